//! The crater's list: one crate a line, `NAME@VERSION` (from crates.io) or a path to a crate
//! (relative to the list's directory), optionally followed by `inspect crate` options for that
//! crate alone (`tokio-util@0.7.13 --features full`); `#` starts a comment, blank lines are
//! skipped.

use std::collections::BTreeSet;
use std::path::Path;

use crate::error::{Context, Error, Result};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// What `inspect crate` is given: `NAME@VERSION`, or the path resolved against the list.
    pub source: String,
    /// `NAME-VERSION`, or the path's last component: the entry's row file and what `--again`
    /// names (the crate's name alone also does).
    pub key: String,
    /// The crate's name where the line gives it (`NAME@VERSION`).
    pub name: Option<String>,
    /// Options for this crate alone, after the crater's own.
    pub options: Vec<String>,
    /// The line in the list, for messages.
    pub line: usize,
}

impl Entry {
    /// Whether `--again WHAT` names this entry.
    pub fn named(&self, what: &str) -> bool {
        self.key == what || self.name.as_deref() == Some(what) || self.source == what
    }
}

pub fn read(path: &Path) -> Result<Vec<Entry>> {
    let text = std::fs::read_to_string(path).context(|| format!("reading the crate list {}", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    parse(&text, base).map_err(|error| Error::new(format!("{}: {error}", path.display())))
}

fn parse(text: &str, base: &Path) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    let mut keys = BTreeSet::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.split_once('#').map_or(raw, |(before, _)| before).trim();
        let mut words = content.split_whitespace();
        let Some(first) = words.next() else { continue };
        let options: Vec<String> = words.map(str::to_owned).collect();
        if let Some(option) =
            options.iter().find(|word| !word.starts_with("--") && !is_value_of_previous(&options, word))
        {
            return Err(Error::new(format!("line {line}: {option:?} is neither an option nor a value of one")));
        }
        let entry = match first.split_once('@') {
            Some((name, version)) => {
                let valid = |text: &str| {
                    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c))
                };
                if !valid(name) || !valid(version) {
                    return Err(Error::new(format!(
                        "line {line}: {first:?} is not NAME@VERSION (as in deadqueue@0.2.5) nor a path"
                    )));
                }
                Entry {
                    source: first.to_owned(),
                    key: format!("{name}-{version}"),
                    name: Some(name.to_owned()),
                    options,
                    line,
                }
            }
            None => {
                let path = base.join(first);
                if !path.exists() {
                    return Err(Error::new(format!(
                        "line {line}: {first:?} is neither NAME@VERSION nor an existing path (paths are relative \
                         to the list's directory)"
                    )));
                }
                let key = path
                    .components()
                    .next_back()
                    .map(|last| last.as_os_str().to_string_lossy().trim_end_matches(".toml").to_owned())
                    .filter(|key| !key.is_empty() && key != "Cargo")
                    .unwrap_or_else(|| format!("line-{line}"));
                Entry { source: path.to_string_lossy().into_owned(), key, name: None, options, line }
            }
        };
        if !keys.insert(entry.key.clone()) {
            return Err(Error::new(format!("line {line}: {} is in the list twice", entry.key)));
        }
        entries.push(entry);
    }
    if entries.is_empty() {
        return Err(Error::new("the list names no crate (one NAME@VERSION or path a line; # comments)"));
    }
    Ok(entries)
}

/// Whether `word` follows an option that takes a value (`--features a,b`).
fn is_value_of_previous(words: &[String], word: &str) -> bool {
    let at = words.iter().position(|w| w == word).unwrap_or(0);
    at > 0 && super::TAKES_A_VALUE.contains(&words[at - 1].as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_comments_options_and_paths() {
        let dir = std::env::temp_dir();
        let text = "# the list\n\ndeadqueue@0.2.5   # a queue\ntokio-util@0.7.13 --features full --no-tests\n.\n";
        let entries = parse(text, &dir).unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!(
            (entries[0].source.as_str(), entries[0].key.as_str(), entries[0].line),
            ("deadqueue@0.2.5", "deadqueue-0.2.5", 3)
        );
        assert_eq!(entries[1].options, ["--features", "full", "--no-tests"]);
        assert!(entries[1].named("tokio-util") && entries[1].named("tokio-util-0.7.13") && !entries[1].named("tokio"));
        assert_eq!(entries[2].name, None);
    }

    #[test]
    fn bad_lines_are_clear_errors() {
        let dir = std::env::temp_dir();
        for (text, said) in [
            ("a@1 b@2\n", "line 1: \"b@2\" is neither an option nor a value"),
            ("not a crate\n", "neither an option"),
            ("./no/such/dir\n", "line 1: \"./no/such/dir\" is neither NAME@VERSION nor an existing path"),
            ("a@\n", "line 1: \"a@\" is not NAME@VERSION"),
            ("a@1\n# x\na@1\n", "line 3: a-1 is in the list twice"),
            ("# nothing\n", "names no crate"),
        ] {
            let error = parse(text, &dir).unwrap_err().to_string();
            assert!(error.contains(said), "{text:?}: {error}");
        }
    }
}

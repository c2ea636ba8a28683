//! Edits of the copy's `Cargo.toml`, made on its text so that everything else in it (comments,
//! order, the published manifest's normalised tables) stays as the crate wrote it: the
//! `lowering` dependency added, and, for a crate whose development dependencies no longer
//! resolve, those dropped.

use std::path::Path;

/// Whether the manifest has the table `[table]` or one of its subtables `[table.x]`.
pub fn has_table(text: &str, table: &str) -> bool {
    text.lines().map(str::trim).any(|line| line == format!("[{table}]") || line.starts_with(&format!("[{table}.")))
}

/// The manifest with `lowering = { path = RUNTIME }` in its `[dependencies]`.
pub fn with_dependency(text: &str, runtime: &Path) -> String {
    let line = format!("lowering = {{ path = {:?} }}\n", runtime.display().to_string());
    let mut out = String::with_capacity(text.len() + line.len() + 20);
    let mut added = false;
    for piece in text.split_inclusive('\n') {
        out.push_str(piece);
        if !added && piece.trim() == "[dependencies]" {
            if !piece.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&line);
            added = true;
        }
    }
    if !added {
        out.push_str("\n[dependencies]\n");
        out.push_str(&line);
    }
    out
}

/// The manifest without its development dependencies (`[dev-dependencies]`, its subtables
/// `[dev-dependencies.NAME]` as a published manifest writes them, and the same under
/// `[target.CFG]`), or `None` when it has none. Cargo resolves them for every build, a library
/// build too: a crate published with a development dependency the registry no longer offers
/// cannot even be resolved until they are gone, though its library needs none of them.
pub fn without_dev_dependencies(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut dropping = false;
    let mut dropped = false;
    for piece in text.split_inclusive('\n') {
        if let Some(path) = table_header(piece) {
            dropping = is_dev_dependencies(&path);
            dropped |= dropping;
        }
        if !dropping {
            out.push_str(piece);
        }
    }
    dropped.then_some(out)
}

fn is_dev_dependencies(path: &[String]) -> bool {
    let dev = |key: Option<&String>| key.is_some_and(|key| key == "dev-dependencies" || key == "dev_dependencies");
    dev(path.first()) || (path.first().is_some_and(|key| key == "target") && dev(path.get(2)))
}

/// The dotted key path of a line that is a table header (`[a.b]`, `[[a]]`, `[target.'cfg(x)'.c]`),
/// unquoted; `None` for any other line (a key, a value, an array's line `["a", "b"],`).
fn table_header(line: &str) -> Option<Vec<String>> {
    let line = line.trim();
    let inner = line.strip_prefix("[[").or_else(|| line.strip_prefix('['))?;
    let mut path = Vec::new();
    let mut key = String::new();
    let mut quote = None;
    let mut chars = inner.char_indices();
    let rest = loop {
        let (at, c) = chars.next()?;
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => key.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, '.') => path.push(std::mem::take(&mut key).trim().to_owned()),
            (None, ']') => break &inner[at + 1..],
            (None, c) if c.is_ascii_alphanumeric() || "-_ ".contains(c) => key.push(c),
            (None, _) => return None,
        }
    };
    path.push(key.trim().to_owned());
    let rest = rest.strip_prefix(']').unwrap_or(rest).trim_start();
    (rest.is_empty() || rest.starts_with('#')).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dependency_joins_the_existing_table_or_a_new_one() {
        let runtime = Path::new("/lab/runtime");
        let with = with_dependency("[package]\nname = \"a\"\n\n[dependencies]\nfutures = \"0.3\"\n", runtime);
        assert_eq!(
            with,
            "[package]\nname = \"a\"\n\n[dependencies]\nlowering = { path = \"/lab/runtime\" }\nfutures = \"0.3\"\n"
        );
        let without = with_dependency("[package]\nname = \"a\"\n", runtime);
        assert!(without.ends_with("\n[dependencies]\nlowering = { path = \"/lab/runtime\" }\n"), "{without}");
        assert!(has_table("[workspace.dependencies]\n", "workspace"));
        assert!(!has_table("[dependencies]\nworkspace = 1\n", "workspace"));
    }

    #[test]
    fn development_dependencies_are_dropped_in_every_spelling_and_nothing_else() {
        let text = "[package]\nname = \"a\"\n\n[dependencies.futures]\nversion = \"0.3\"\nfeatures = [\n  \"std\",\n]\n\n\
                    [dev-dependencies.pretty_env_logger]\nversion = \"0.6\"\n\n[dev-dependencies]\ntokio = \"1\"\n\n\
                    [target.'cfg(unix)'.dev-dependencies]\nlibc = \"0.2\"\n\n[target.\"cfg(unix)\".dependencies]\nnix = \"0.29\"\n\n\
                    [target.'cfg(windows)'.dev_dependencies.x]\nversion = \"1\"\n\n[[test]]\nname = \"t\"\n\n[features]\nfull = []\n";
        assert_eq!(
            without_dev_dependencies(text).as_deref(),
            Some(
                "[package]\nname = \"a\"\n\n[dependencies.futures]\nversion = \"0.3\"\nfeatures = [\n  \"std\",\n]\n\n\
                 [target.\"cfg(unix)\".dependencies]\nnix = \"0.29\"\n\n[[test]]\nname = \"t\"\n\n[features]\nfull = []\n"
            )
        );
        assert_eq!(
            without_dev_dependencies("[package]\nname = \"a\"\n[dependencies]\nx = [\"dev-dependencies\"]\n"),
            None
        );
    }

    #[test]
    fn only_table_headers_are_headers() {
        assert_eq!(
            table_header("[target.'cfg(unix)'.dev-dependencies] # c\n").unwrap(),
            ["target", "cfg(unix)", "dev-dependencies"]
        );
        assert_eq!(table_header("[[bench]]").unwrap(), ["bench"]);
        assert_eq!(table_header(" [ a . \"b.c\" ]").unwrap(), ["a", "b.c"]);
        assert_eq!(table_header("[\"a\", \"b\"],"), None);
        assert_eq!(table_header("x = [1]"), None);
        assert_eq!(table_header("[a] = 1"), None);
    }
}

//! Writing one configuration into the copy: each function's file is its original text with
//! `#[::lowering::lowering(ARGS)] ` inserted at the function's offset (ARGS: the mode, and
//! for a classic fn the hints it was given, `classic, moves(cmd)`). Nothing else changes, so
//! line numbers (and columns, but on the attribute's own line) stay those of the original.

use std::collections::BTreeMap;
use std::path::Path;

use super::functions::Function;
use crate::error::{Context, Result};

/// `args[i]` is the attribute's arguments for `functions[i]`, `None` to leave it unannotated.
pub fn write(original: &Path, copy: &Path, functions: &[Function], args: &[Option<String>]) -> Result<()> {
    let mut by_file: BTreeMap<&str, Vec<(usize, &str)>> = BTreeMap::new();
    for (function, args) in functions.iter().zip(args) {
        let inserts = by_file.entry(function.file.as_str()).or_default();
        if let Some(args) = args {
            inserts.push((function.insert_at, args));
        }
    }
    for (file, inserts) in by_file {
        let text = std::fs::read_to_string(original.join(file)).context(|| format!("reading {file}"))?;
        let annotated = insert(&text, inserts);
        std::fs::write(copy.join(file), annotated).context(|| format!("writing the copy's {file}"))?;
    }
    Ok(())
}

fn insert(text: &str, mut inserts: Vec<(usize, &str)>) -> String {
    inserts.sort();
    let mut out = String::with_capacity(text.len() + inserts.len() * 40);
    let mut from = 0;
    for (at, args) in inserts {
        out.push_str(&text[from..at]);
        out.push_str(&format!("#[::lowering::lowering({args})] "));
        from = at;
    }
    out.push_str(&text[from..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_keep_every_line_in_place() {
        let text = "fn a() {}\n  async fn b() {}\n#[inline] async fn c() {}\n";
        let (b, c) = (text.find("async fn b").unwrap(), text.find("async fn c").unwrap());
        let out = insert(text, vec![(c, "runtime"), (b, "classic, moves(x)")]);
        assert_eq!(
            out,
            "fn a() {}\n  #[::lowering::lowering(classic, moves(x))] async fn b() {}\n#[inline] #[::lowering::lowering(runtime)] async fn c() {}\n"
        );
        assert_eq!(out.lines().count(), text.lines().count());
    }
}

//! Writing one configuration into the copy: each function's file is its original text with
//! `#[::lowering::lowering(MODE)] ` inserted at the function's offset. Nothing else changes, so
//! line numbers (and columns, but on the attribute's own line) stay those of the original.

use std::collections::BTreeMap;
use std::path::Path;

use super::functions::Function;
use crate::error::{Context, Result};

/// `modes[i]` is the lowering of `functions[i]`, `None` to leave it unannotated.
pub fn write(original: &Path, copy: &Path, functions: &[Function], modes: &[Option<&str>]) -> Result<()> {
    let mut by_file: BTreeMap<&str, Vec<(usize, &str)>> = BTreeMap::new();
    for (function, mode) in functions.iter().zip(modes) {
        let inserts = by_file.entry(function.file.as_str()).or_default();
        if let Some(mode) = mode {
            inserts.push((function.insert_at, mode));
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
    for (at, mode) in inserts {
        out.push_str(&text[from..at]);
        out.push_str(&format!("#[::lowering::lowering({mode})] "));
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
        let out = insert(text, vec![(c, "runtime"), (b, "classic")]);
        assert_eq!(
            out,
            "fn a() {}\n  #[::lowering::lowering(classic)] async fn b() {}\n#[inline] #[::lowering::lowering(runtime)] async fn c() {}\n"
        );
        assert_eq!(out.lines().count(), text.lines().count());
    }
}

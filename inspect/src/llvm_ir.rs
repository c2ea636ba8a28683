//! LLVM IR (I4): rustc's `--emit=llvm-ir` text, split into function definitions, counted.
//!
//! A definition starts with `define ... @SYMBOL(...` and ends with `}` at column 0 (the
//! system's LLVM tools are too old to read rustc's IR, so the text is read directly). An
//! instruction starts on a line of the body indented by two spaces that is not a comment or a
//! debug record; the lines that continue one (a `switch`'s cases and closing `]`, `invoke`'s
//! `to label`, a landing pad's `cleanup`) are indented further or start with `]`, and are not
//! instructions. `]` lines are counted apart: cargo-llvm-lines counts them as lines.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Definition {
    /// The mangled symbol.
    pub symbol: String,
    /// Its demangled name (v0, without crate hashes).
    pub name: String,
    pub instructions: u64,
    /// Lines that close a multi-line `switch` (`  ]`), part of the instruction above.
    pub switch_closers: u64,
    /// Line range in the `.ll` file, for dumps.
    pub lines: (usize, usize),
}

pub fn definitions(text: &str) -> Vec<Definition> {
    let mut found = Vec::new();
    let mut current: Option<(String, usize, u64, u64)> = None;
    for (index, line) in text.lines().enumerate() {
        match &mut current {
            None => {
                if let Some(symbol) = line.strip_prefix("define ").and_then(defined_symbol) {
                    current = Some((symbol.to_owned(), index, 0, 0));
                }
            }
            Some((symbol, start, instructions, closers)) => {
                if line == "}" {
                    let name = format!("{:#}", rustc_demangle::demangle(symbol));
                    found.push(Definition {
                        symbol: std::mem::take(symbol),
                        name,
                        instructions: *instructions,
                        switch_closers: *closers,
                        lines: (*start, index),
                    });
                    current = None;
                } else if line.starts_with("  ]") {
                    *closers += 1;
                } else if is_instruction(line) {
                    *instructions += 1;
                }
            }
        }
    }
    found
}

/// `@alias = ... alias ..., ptr @target`: LLVM merged a function into an identical one
/// (rustc enables function merging); the alias has no code of its own.
/// Returns (alias name, target name), demangled.
pub fn aliases(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|line| line.starts_with('@') && line.contains(" alias "))
        .filter_map(|line| {
            let alias = line[1..].split_once(" = ")?.0.trim_matches('"');
            let target = line.rsplit_once(" @")?.1.trim_matches('"');
            let demangle = |symbol: &str| format!("{:#}", rustc_demangle::demangle(symbol));
            Some((demangle(alias), demangle(target)))
        })
        .collect()
}

/// The symbol of a `define` line: `@name(` or `@"quoted name"(`.
fn defined_symbol(line: &str) -> Option<&str> {
    let at = line.find('@')?;
    let rest = &line[at + 1..];
    match rest.strip_prefix('"') {
        Some(quoted) => quoted.split_once('"').map(|(symbol, _)| symbol),
        None => rest.split_once('(').map(|(symbol, _)| symbol),
    }
}

fn is_instruction(line: &str) -> bool {
    let Some(trimmed) = line.strip_prefix("  ") else { return false };
    !trimmed.is_empty() && !trimmed.starts_with([' ', ';', ']']) && !trimmed.starts_with("#dbg_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_count_instructions_not_labels_or_debug_records() {
        let ir = "\
; ModuleID = 'k'
define internal void @_RNvCs1234_1k1f(ptr %x) unnamed_addr #0 !dbg !7 {
start:
  %a = load i64, ptr %x, align 8
    #dbg_value(i64 %a, !9, !DIExpression(), !10)
  br label %bb1

bb1:                                              ; preds = %start
  switch i8 %b, label %bb2 [
    i8 0, label %bb3
  ], !dbg !11
  ret void
}

declare void @other()
";
        let found = definitions(ir);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].instructions, 4);
        assert_eq!(found[0].switch_closers, 1);
        assert_eq!(found[0].name, "k::f");
        assert_eq!(found[0].lines, (1, 12));
    }
}

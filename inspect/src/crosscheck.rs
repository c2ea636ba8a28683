//! `inspect crosscheck`: inspect's per-function LLVM IR counts beside those of
//! `cargo-llvm-lines`, run over the very `.ll` file the report was read from
//! (`cargo llvm-lines --files`), and native bytes beside `cargo-bloat`'s.
//!
//! The units are nearly the same: cargo-llvm-lines' "lines" of a definition are the lines
//! indented by two spaces (labels, comments, blank lines, debug records and continuation
//! lines left out), which are inspect's instructions plus the `]` that closes each
//! multi-line `switch`. With v0 names every instantiation is a row of its own. A function
//! agrees when, over the IR functions inspect attributes to it, the tool has a row for each
//! (one copy each) and its lines are inspect's instructions plus those `]` lines; a function
//! without IR of its own agrees when its row says why (merged, not instantiated).
//!
//! The tools are installed by `inspect/scripts/install-peer-tools.sh`; without them the
//! comparison says which is missing and how to install it, and fails.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::process::Command;

use crate::error::{Context, Error, Result};
use crate::facts::Facts;

const INSTALL: &str = "inspect/scripts/install-peer-tools.sh";

/// One row of `cargo llvm-lines`: lines and copies of one (demangled) name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Lines {
    lines: u64,
    copies: u64,
}

/// Whether `cargo SUBCOMMAND` runs; the error names the install script.
fn require(subcommand: &str, tool: &str) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let works = Command::new(cargo).args([subcommand, "--version"]).output().is_ok_and(|out| out.status.success());
    if works {
        Ok(())
    } else {
        Err(Error::new(format!("{tool} is not installed: run `bash {INSTALL}` (cargo install from crates.io)")))
    }
}

/// `cargo llvm-lines --files FILE`, parsed: name (crate hashes removed) to lines and copies.
fn llvm_lines(file: &std::path::Path) -> Result<HashMap<String, Lines>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["llvm-lines", "--sort", "name", "--files"])
        .arg(file)
        .output()
        .context(|| "running cargo llvm-lines")?;
    if !output.status.success() {
        return Err(Error::new(format!(
            "cargo llvm-lines failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        )));
    }
    let mut rows = HashMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        // `  LINES (P%, C%)   COPIES (P%, C%)  NAME`
        let mut fields = line.split_whitespace();
        let Some(lines) = fields.next().and_then(|field| field.parse::<u64>().ok()) else { continue };
        let rest: Vec<&str> = fields.collect();
        let Some(copies_at) = rest.iter().position(|field| field.parse::<u64>().is_ok()) else { continue };
        let copies = rest[copies_at].parse::<u64>().unwrap_or(0);
        let name_at =
            rest.iter().skip(copies_at + 1).position(|field| field.ends_with("%)")).map(|p| copies_at + 2 + p);
        let Some(name_at) = name_at else { continue };
        let name = strip_crate_hashes(&rest[name_at..].join(" "));
        let entry: &mut Lines = rows.entry(name).or_default();
        entry.lines += lines;
        entry.copies += copies;
    }
    Ok(rows)
}

/// `krate[0123abcd]::x` to `krate::x`, as inspect's own (`{:#}`) demangling writes names.
fn strip_crate_hashes(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find(']').map(|close| open + close);
        match close {
            Some(close) if close > open + 1 && rest[open + 1..close].bytes().all(|b| b.is_ascii_hexdigit()) => {
                out.push_str(&rest[..open]);
                rest = &rest[close + 1..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

pub fn run(facts: &Facts) -> Result<String> {
    require("llvm-lines", "cargo-llvm-lines")?;
    let rows = llvm_lines(&facts.files.llvm_ir)?;
    let mut out = String::new();
    let _ = writeln!(out, "crosscheck: {} ({})", facts.krate.package, crate::report::INSPECTED_BUILD);
    let _ = writeln!(
        out,
        "IR: inspect's instructions and definitions' lines beside cargo-llvm-lines --files {}",
        facts.files.llvm_ir.display()
    );
    let _ = writeln!(
        out,
        "{:<24} {:<8} {:>10} {:>6} {:>12} {:>7}  verdict",
        "function", "variant", "ir instr", "fns", "tool lines", "copies"
    );
    let total = facts.functions.len();
    let mut ir_agree = 0;
    for function in &facts.functions {
        let instructions = function.ir_instructions();
        let closers: u64 = function.llvm_ir.iter().map(|ir| ir.switch_closers).sum();
        let mut tool = Lines::default();
        let mut unseen = Vec::new();
        for ir in &function.llvm_ir {
            match rows.get(&ir.name) {
                Some(row) => {
                    tool.lines += row.lines;
                    tool.copies += row.copies;
                }
                None => unseen.push(ir.name.as_str()),
            }
        }
        let verdict = if !unseen.is_empty() {
            format!("DIFFERENT: the tool has no row for {}", unseen.join(", "))
        } else if tool.lines == instructions + closers && tool.copies == function.llvm_ir.len() as u64 {
            if function.llvm_ir.is_empty() {
                match &function.note {
                    Some(note) => {
                        ir_agree += 1;
                        format!("agree: no IR of its own, both tools ({note})")
                    }
                    None => "DIFFERENT: no IR of its own, and no reason found".to_owned(),
                }
            } else if closers == 0 {
                ir_agree += 1;
                "agree: equal".to_owned()
            } else {
                ir_agree += 1;
                format!("agree: the tool also counts the {closers} `]` line(s) closing a switch")
            }
        } else {
            format!(
                "DIFFERENT: the tool has {} lines in {} copies, inspect {} instructions in {} definitions",
                tool.lines,
                tool.copies,
                instructions,
                function.llvm_ir.len()
            )
        };
        let _ = writeln!(
            out,
            "{:<24} {:<8} {:>10} {:>6} {:>12} {:>7}  {verdict}",
            function.record.function,
            function.variant,
            instructions,
            function.llvm_ir.len(),
            tool.lines,
            tool.copies
        );
    }
    let attributed: std::collections::HashSet<&str> =
        facts.functions.iter().flat_map(|function| function.llvm_ir.iter().map(|ir| ir.name.as_str())).collect();
    let host: u64 = rows.iter().filter(|(name, _)| !attributed.contains(name.as_str())).map(|(_, row)| row.lines).sum();
    let _ = writeln!(
        out,
        "the tool's other {} rows ({host} lines) are code inspect attributes to no function: host code (checks, instantiations, executors) and runtime code not instantiated for a function's types",
        rows.len().saturating_sub(attributed.len())
    );

    let native_agree = 0;
    let _ = writeln!(
        out,
        "native: not compared: cargo-bloat measures a linked executable, and no executable links the inspected object yet"
    );
    let _ = writeln!(
        out,
        "crosscheck: {total} functions, IR agree {ir_agree}/{total}, native agree {native_agree}/{total}"
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::strip_crate_hashes;

    #[test]
    fn crate_hashes_are_removed_and_other_brackets_kept() {
        assert_eq!(
            strip_crate_hashes("<core[c1f1a4ba060b9bfa]::x::Y<[u8; 4]> as a[00ff]::T>::f"),
            "<core::x::Y<[u8; 4]> as a::T>::f"
        );
    }
}

//! `inspect crosscheck`: inspect's per-function LLVM IR counts beside those of
//! `cargo-llvm-lines`, run over the very `.ll` file the report was read from
//! (`cargo llvm-lines --files`), and native bytes beside `cargo-bloat`'s, run over the
//! release stacks example: the executable linked against the very library inspect read
//! (see `builds`), which cargo-bloat finds fresh and only reads.
//!
//! The units are nearly the same: cargo-llvm-lines' "lines" of a definition are the lines
//! indented by two spaces (labels, comments, blank lines, debug records and continuation
//! lines left out), which are inspect's instructions plus the `]` that closes each
//! multi-line `switch`. With v0 names every instantiation is a row of its own. A function
//! agrees when, over the IR functions inspect attributes to it, the tool has a row for each
//! (one copy each) and its lines are inspect's instructions plus those `]` lines; a function
//! without IR of its own agrees when its row says why (merged, not instantiated).
//!
//! Native bytes are symbol sizes on both sides (the object's symbol table for inspect, the
//! executable's for cargo-bloat), and linking does not change a function's size, so a
//! function agrees when every code symbol inspect attributes to it is a row of cargo-bloat's
//! with the same bytes. Names are compared after the same normalisation as the IR's: crate
//! hashes removed, and the type suffix some demanglers print on a const generic argument
//! (`[u8; 16usize]`) dropped.
//!
//! The tools are installed by `inspect/scripts/install-peer-tools.sh`; without them the
//! comparison says which is missing and how to install it, and fails.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::builds::{self, Emitted, Package};
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
        let name = normalise(&rest[name_at..].join(" "));
        let entry: &mut Lines = rows.entry(name).or_default();
        entry.lines += lines;
        entry.copies += copies;
    }
    Ok(rows)
}

/// A demangled name as inspect's own (`{:#}`) demangling writes it: crate hashes removed
/// (`krate[0123abcd]::x` to `krate::x`) and integer constants without their type suffix
/// (`[u8; 16usize]` to `[u8; 16]`).
fn normalise(name: &str) -> String {
    strip_const_suffixes(&strip_crate_hashes(name))
}

/// `16usize` to `16` where a number stands alone (after `; `, `<`, `, ` or a space).
fn strip_const_suffixes(name: &str) -> String {
    const SUFFIXES: [&str; 12] =
        ["usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8"];
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut at = 0;
    while at < name.len() {
        let starts_number = bytes[at].is_ascii_digit()
            && (at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_'));
        if !starts_number {
            let next = name[at..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&name[at..at + next]);
            at += next;
            continue;
        }
        let digits = name[at..].bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(&name[at..at + digits]);
        at += digits;
        // `16usize`, or `16: usize` as cargo-bloat's demangler writes it.
        let typed = if name[at..].starts_with(": ") { 2 } else { 0 };
        let rest = &name[at + typed..];
        if let Some(suffix) = SUFFIXES.iter().find(|suffix| {
            rest.starts_with(**suffix)
                && !rest[suffix.len()..].bytes().next().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        }) {
            at += typed + suffix.len();
        }
    }
    out
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

pub fn run(package: &Package, emitted: &Emitted, facts: &Facts) -> Result<String> {
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

    let native_agree = match native(package, emitted, facts)? {
        Native::Compared { agree, report } => {
            out.push_str(&report);
            agree
        }
        Native::NotCompared(why) => {
            let _ = writeln!(out, "native: not compared: {why}");
            0
        }
    };
    let _ = writeln!(
        out,
        "crosscheck: {total} functions, IR agree {ir_agree}/{total}, native agree {native_agree}/{total}"
    );
    Ok(out)
}

enum Native {
    Compared { agree: usize, report: String },
    NotCompared(String),
}

/// One name's rows in cargo-bloat's list: bytes summed, and how many symbols.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Bytes {
    bytes: u64,
    symbols: u64,
}

/// `cargo bloat` over the release stacks example, parsed: name (normalised) to bytes.
fn bloat(package: &Package, emitted: &Emitted, executable: &Path) -> Result<HashMap<String, Bytes>> {
    let before = std::fs::metadata(executable).and_then(|metadata| metadata.modified()).ok();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .arg("bloat")
        .arg("--manifest-path")
        .arg(&package.manifest_path)
        .args(["-p", &package.name])
        .args(builds::release_build_args(package).into_iter().filter(|arg| arg != "--lib"))
        .args(["-n", "0", "--full-fn", "--message-format", "json"])
        .envs(builds::release_build_env(package, emitted));
    // cargo-bloat asks `cargo metadata` for the workspace root in its working directory.
    if let Some(dir) = package.manifest_path.parent() {
        command.current_dir(dir);
    }
    let output = command.output().context(|| "running cargo bloat")?;
    if !output.status.success() {
        return Err(Error::new(format!(
            "cargo bloat failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        )));
    }
    let after = std::fs::metadata(executable).and_then(|metadata| metadata.modified()).ok();
    if before.is_none() || before != after {
        return Err(Error::new(format!(
            "cargo bloat rebuilt {} instead of reading the inspected build; run inspect again",
            executable.display()
        )));
    }
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).context(|| "parsing cargo bloat's JSON")?;
    let functions = json["functions"].as_array().context(|| "cargo bloat's JSON has no `functions` list")?;
    let mut rows: HashMap<String, Bytes> = HashMap::new();
    for function in functions {
        let (Some(name), Some(size)) = (function["name"].as_str(), function["size"].as_u64()) else { continue };
        let row = rows.entry(normalise(name)).or_default();
        row.bytes += size;
        row.symbols += 1;
    }
    Ok(rows)
}

/// Native bytes per function beside cargo-bloat's reading of the linked executable.
fn native(package: &Package, emitted: &Emitted, facts: &Facts) -> Result<Native> {
    let Some(executable) = &emitted.stacks_example else {
        return Ok(Native::NotCompared(format!(
            "cargo-bloat reads a linked executable, and {} has no `{}` example linking the inspected library",
            package.name,
            builds::STACKS_EXAMPLE
        )));
    };
    require("bloat", "cargo-bloat")?;
    let rows = bloat(package, emitted, executable)?;
    let linked = Linked::read(executable)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "native: inspect's code bytes per symbol beside cargo bloat --release --example {} -n 0 ({})",
        builds::STACKS_EXAMPLE,
        executable.display()
    );
    let _ = writeln!(
        out,
        "{:<24} {:<8} {:>10} {:>6} {:>12} {:>7}  verdict",
        "function", "variant", "bytes", "syms", "tool bytes", "syms"
    );
    let mut agree = 0;
    let mut attributed = std::collections::HashSet::new();
    for function in &facts.functions {
        let mut mine: HashMap<&str, Bytes> = HashMap::new();
        for symbol in function.native.iter().filter(|symbol| symbol.code) {
            let entry = mine.entry(symbol.name.as_str()).or_default();
            entry.bytes += symbol.bytes;
            entry.symbols += 1;
        }
        let mut tool = Bytes::default();
        let mut unseen = Vec::new();
        let mut unequal = Vec::new();
        // Listed under another name of the same address (see `Linked::alias_listed`).
        let mut under_alias = Vec::new();
        for (name, bytes) in &mine {
            attributed.insert(normalise(name));
            let row = match rows.get(&normalise(name)) {
                Some(row) => Some(*row),
                None => linked.alias_listed(&normalise(name), &rows).map(|(alias, row)| {
                    attributed.insert(alias.clone());
                    under_alias.push(short(&alias));
                    row
                }),
            };
            match row {
                Some(row) => {
                    tool.bytes += row.bytes;
                    tool.symbols += row.symbols;
                    if row != *bytes {
                        unequal.push(format!("{name} ({} against {})", row.bytes, bytes.bytes));
                    }
                }
                None => unseen.push(*name),
            }
        }
        let bytes = function.native_bytes();
        let symbols = mine.values().map(|bytes| bytes.symbols).sum::<u64>();
        // A symbol cargo-bloat does not list is either not in the executable at all (the
        // linker's section GC removed it: nothing the executable keeps calls it, only host code
        // of the library that the example does not link), or listed under another name.
        let (removed, misnamed): (Vec<&str>, Vec<&str>) =
            unseen.iter().partition(|name| !linked.addresses.contains_key(&normalise(name)));
        let removed_bytes: u64 = removed.iter().map(|name| mine[name].bytes).sum();
        let verdict = if !misnamed.is_empty() {
            format!(
                "DIFFERENT: the executable has these symbols, the tool lists no row for them: {}",
                misnamed.join(", ")
            )
        } else if !unequal.is_empty() {
            format!("DIFFERENT: other sizes for {}", unequal.join(", "))
        } else if mine.is_empty() {
            match &function.note {
                Some(note) => {
                    agree += 1;
                    format!("agree: no code of its own, both tools ({note})")
                }
                None => "DIFFERENT: no code of its own, and no reason found".to_owned(),
            }
        } else if !removed.is_empty() {
            agree += 1;
            let what: Vec<String> = removed.iter().map(|name| short(name)).collect();
            format!(
                "agree: the tool has {removed_bytes} bytes less, {} symbol(s) the linker removed as nothing the executable keeps calls them ({})",
                removed.len(),
                what.join(", ")
            )
        } else if !under_alias.is_empty() {
            agree += 1;
            format!(
                "agree: equal; the tool lists {} symbol(s) under another name at the same address (LLVM merged identical functions; cargo-bloat keeps one name per address): {}",
                under_alias.len(),
                under_alias.join(", ")
            )
        } else {
            agree += 1;
            "agree: equal".to_owned()
        };
        let _ = writeln!(
            out,
            "{:<24} {:<8} {:>10} {:>6} {:>12} {:>7}  {verdict}",
            function.record.function, function.variant, bytes, symbols, tool.bytes, tool.symbols
        );
    }
    let others: Vec<&Bytes> = rows.iter().filter(|(name, _)| !attributed.contains(*name)).map(|(_, row)| row).collect();
    let _ = writeln!(
        out,
        "the tool's other {} names ({} bytes) are code inspect attributes to no function: the example's and the crate's host code, the runtime's code not instantiated for a function's types, and the standard library",
        others.len(),
        others.iter().map(|row| row.bytes).sum::<u64>()
    );
    Ok(Native::Compared { agree, report: out })
}

/// The executable's own symbol table: where each code symbol is, and every name at an
/// address. cargo-bloat lists one name per address, so a function LLVM merged with identical
/// ones (aliases: several names, one body) appears under one of those names only.
struct Linked {
    /// Normalised name to address.
    addresses: HashMap<String, u64>,
    /// Address to the normalised names there.
    names: HashMap<u64, Vec<String>>,
}

impl Linked {
    fn read(executable: &Path) -> Result<Linked> {
        use object::{Object, ObjectSymbol, SymbolKind};
        let data = std::fs::read(executable).context(|| format!("reading {}", executable.display()))?;
        let file = object::File::parse(&*data).context(|| format!("parsing {}", executable.display()))?;
        let mut linked = Linked { addresses: HashMap::new(), names: HashMap::new() };
        for symbol in file.symbols() {
            if symbol.size() == 0 || symbol.kind() != SymbolKind::Text {
                continue;
            }
            let Ok(name) = symbol.name() else { continue };
            let name = normalise(&format!("{:#}", rustc_demangle::demangle(name)));
            linked.addresses.insert(name.clone(), symbol.address());
            linked.names.entry(symbol.address()).or_default().push(name);
        }
        Ok(linked)
    }

    /// The name, and cargo-bloat's row, under which the tool lists the body at `name`'s
    /// address, when that is another name.
    fn alias_listed(&self, name: &str, rows: &HashMap<String, Bytes>) -> Option<(String, Bytes)> {
        let address = self.addresses.get(name)?;
        self.names[address]
            .iter()
            .filter(|other| *other != name)
            .find_map(|other| Some((other.clone(), *rows.get(other)?)))
    }
}

/// A symbol's name with its generic arguments elided below the first level
/// (`core::ptr::drop_in_place::<a::Task<u64, S<..>>>` to `core::ptr::drop_in_place::<a::Task<..>>`),
/// for a verdict that stays readable.
fn short(name: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in name.chars() {
        match c {
            '<' => {
                depth += 1;
                match depth {
                    1 => out.push('<'),
                    2 => out.push_str("<.."),
                    _ => {}
                }
            }
            '>' => {
                if depth <= 2 {
                    out.push('>');
                }
                depth = depth.saturating_sub(1);
            }
            _ if depth <= 1 => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{normalise, strip_crate_hashes};

    #[test]
    fn const_arguments_lose_their_type_suffix_and_names_keep_theirs() {
        assert_eq!(normalise("f::<[u8; 16usize], x[0a]::T<3u32>, u8, usize>"), "f::<[u8; 16], x::T<3>, u8, usize>");
        assert_eq!(normalise("f::<[u8; 16: usize]>"), "f::<[u8; 16]>");
        assert_eq!(normalise("a::b2u8::c"), "a::b2u8::c");
    }

    #[test]
    fn short_names_keep_the_first_level_of_generic_arguments() {
        assert_eq!(
            super::short("core::ptr::drop_in_place::<a::Task<u64, b::S<c::R<u8>>>>"),
            "core::ptr::drop_in_place::<a::Task<..>>"
        );
        assert_eq!(super::short("<alloc::sync::Arc<a::Core<u64>>>::drop_slow"), "<alloc::sync::Arc<..>>::drop_slow");
    }

    #[test]
    fn crate_hashes_are_removed_and_other_brackets_kept() {
        assert_eq!(
            strip_crate_hashes("<core[c1f1a4ba060b9bfa]::x::Y<[u8; 4]> as a[00ff]::T>::f"),
            "<core::x::Y<[u8; 4]> as a::T>::f"
        );
    }
}

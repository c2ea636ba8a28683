//! The side-by-side view of one source function: its source lines above, then its MIR, LLVM
//! IR and assembly, classic on the left and runtime on the right, aligned by what each
//! piece is (the function itself, the state machine, closures, poll, machinery).
//!
//! The dumps are read once per page (the assembly in one pass over the file), and each view
//! goes into an inert `<template>` that the page's script opens on demand.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::error::{Context, Result};
use crate::facts::{Facts, FunctionFacts};
use crate::mir::Role;

use super::escape;

/// Lines shown per pane of MIR, LLVM IR and assembly; the rest is one command away (every
/// function's whole IR and assembly made the workloads' page over 40 MB).
const MAX_LINES: [usize; 3] = [400, 200, 300];
/// Lines of source shown at most, from the function's first line.
const MAX_SOURCE_LINES: usize = 120;

/// The three dumps, loaded once.
pub struct Dumps {
    mir: Vec<String>,
    llvm_ir: Vec<String>,
    /// Demangled symbol name to its instructions and local labels.
    asm: HashMap<String, String>,
}

fn lines_of(path: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).context(|| format!("reading {}", path.display()))?;
    Ok(text.lines().map(str::to_owned).collect())
}

impl Dumps {
    pub fn load(facts: &Facts) -> Result<Dumps> {
        let wanted: HashSet<&str> = facts
            .functions
            .iter()
            .flat_map(|function| function.native.iter().filter(|symbol| symbol.code).map(|symbol| symbol.name.as_str()))
            .collect();
        let text =
            std::fs::read_to_string(&facts.files.asm).context(|| format!("reading {}", facts.files.asm.display()))?;
        let mut asm: HashMap<String, String> = HashMap::new();
        let mut current: Option<String> = None;
        for line in text.lines() {
            if let Some(label) = line
                .strip_suffix(':')
                .filter(|label| !label.starts_with('.') && !label.starts_with(char::is_whitespace))
            {
                let name = format!("{:#}", rustc_demangle::demangle(label));
                current = wanted.contains(name.as_str()).then_some(name);
                continue;
            }
            let Some(name) = &current else { continue };
            if line.starts_with(".Lfunc_end") {
                current = None;
            } else if !line.trim().is_empty()
                && (!line.starts_with(char::is_whitespace) || !line.trim_start().starts_with('.'))
                && !line.starts_with(".Ltmp")
                && !line.starts_with(".Lfunc_begin")
            {
                // Instructions and local labels; assembler directives are left out.
                let text = asm.entry(name.clone()).or_default();
                text.push_str(line);
                text.push('\n');
            }
        }
        Ok(Dumps { mir: lines_of(&facts.files.mir)?, llvm_ir: lines_of(&facts.files.llvm_ir)?, asm })
    }

    fn range(lines: &[String], (start, end): (usize, usize)) -> String {
        let end = end.min(lines.len().saturating_sub(1));
        if start > end {
            return String::new();
        }
        let mut out = lines[start..=end].join("\n");
        out.push('\n');
        out
    }
}

/// An IR line without its debug-info records and metadata attachments (`, !dbg !42`,
/// `#dbg_value(..)`): the instructions are what the view compares.
fn without_debug_info(line: &str) -> Option<String> {
    if line.trim_start().starts_with("#dbg_") {
        return None;
    }
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(", !") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        // `, !name !N`: a metadata kind, a space, a metadata reference.
        let name_end =
            after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_')).unwrap_or(after.len());
        let reference = after[name_end..].strip_prefix(" !");
        let number_end = reference.map(|r| r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len()));
        match (reference, number_end) {
            (Some(reference), Some(end)) if name_end > 0 && end > 0 => rest = &reference[end..],
            _ => {
                out.push_str(", !");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Some(out)
}

/// The rows of the view: what a piece of a function is, in a fixed order, so that the
/// classic `move_next` sits beside the runtime coroutine body.
fn row_of(role: Role) -> Option<(usize, &'static str)> {
    match role {
        Role::Stub => Some((0, "the function (classic: the stub that starts the state machine)")),
        Role::MoveNext | Role::Coroutine => {
            Some((1, "the state machine (classic: move_next; runtime: coroutine body)"))
        }
        Role::Closure => Some((2, "closures")),
        Role::Poll => Some((3, "Future::poll of the task")),
        Role::Machinery => Some((4, "machinery instantiated for its types (drop glue, task core)")),
        Role::Record => None,
    }
}

const ROWS: usize = 5;

#[derive(Clone, Copy)]
enum Kind {
    Mir,
    LlvmIr,
    Asm,
}

fn pieces(dumps: &Dumps, function: &FunctionFacts, kind: Kind) -> [String; ROWS] {
    let mut rows: [String; ROWS] = Default::default();
    let mut add = |role: Role, text: String| {
        if let Some((row, _)) = row_of(role) {
            rows[row].push_str(&text);
            rows[row].push('\n');
        }
    };
    match kind {
        Kind::Mir => {
            for body in &function.mir_bodies {
                add(body.role, Dumps::range(&dumps.mir, body.lines));
            }
        }
        Kind::LlvmIr => {
            for ir in &function.llvm_ir {
                let text = Dumps::range(&dumps.llvm_ir, ir.lines);
                add(ir.role, text.lines().filter_map(without_debug_info).collect::<Vec<_>>().join("\n"));
            }
        }
        Kind::Asm => {
            for symbol in function.native.iter().filter(|symbol| symbol.code) {
                let body = dumps.asm.get(&symbol.name).map_or("(no instructions found)\n", String::as_str);
                add(symbol.role, format!("{}:\n{body}", symbol.name));
            }
        }
    }
    rows
}

fn pane(out: &mut String, text: &str, function: &FunctionFacts, kind: Kind, flag: &str) {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    if lines.is_empty() {
        out.push_str("<pre class=\"empty\">(nothing)</pre>");
        return;
    }
    let shown = lines.len().min(MAX_LINES[kind as usize]);
    let _ = write!(out, "<pre>{}", escape(&lines[..shown].join("\n")));
    if shown < lines.len() {
        let _ = write!(
            out,
            "\n<span class=\"cut\">… {} more lines: cargo run -p inspect -- --function {} {flag}</span>",
            lines.len() - shown,
            escape(&function.record.function)
        );
    }
    out.push_str("</pre>");
}

/// The function's source lines, from its first line to the brace that closes it.
fn source(root: &Path, function: &FunctionFacts) -> String {
    let path = root.join(&function.record.file);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return format!("(source {} not readable)", path.display());
    };
    let mut out = String::new();
    let mut depth = 0_i64;
    let mut opened = false;
    // The record's line is where the tokens came from: the function itself, or the macro
    // (`lowering::both! {`) that holds it; then the function starts at its `fn` below.
    let recorded = function.record.line.max(1) as usize;
    let name = &function.record.function;
    let first = text
        .lines()
        .enumerate()
        .skip(recorded - 1)
        .find(|(_, line)| {
            line.split("fn ")
                .skip(1)
                .any(|after| after.strip_prefix(name.as_str()).is_some_and(|rest| rest.starts_with(['(', '<', ' '])))
        })
        .map_or(recorded, |(index, _)| index + 1);
    for (index, line) in text.lines().enumerate().skip(first - 1).take(MAX_SOURCE_LINES) {
        let _ = writeln!(out, "{:>5}  {line}", index + 1);
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        if opened && depth <= 0 {
            break;
        }
    }
    out
}

/// The view of one source function, as the content of a `<template>`.
pub fn view(out: &mut String, dumps: &Dumps, root: &Path, name: &str, functions: &[&FunctionFacts]) {
    let Some(first) = functions.first() else { return };
    let _ = write!(
        out,
        "<h3>{} <small>{}:{}</small></h3><pre class=\"source\">{}</pre>",
        escape(name),
        escape(&first.record.file),
        first.record.line,
        escape(&source(root, first))
    );
    out.push_str(
        "<div class=\"tabs\"><button data-kind=\"mir\" class=\"on\">MIR</button>\
         <button data-kind=\"llvm-ir\">LLVM IR</button><button data-kind=\"asm\">assembly</button></div>",
    );
    for (kind, class, flag) in
        [(Kind::Mir, "mir", "--mir"), (Kind::LlvmIr, "llvm-ir", "--llvm-ir"), (Kind::Asm, "asm", "--asm")]
    {
        let _ =
            write!(out, "<table class=\"sbs\" data-kind=\"{class}\"{}>", if class == "mir" { "" } else { " hidden" });
        out.push_str("<thead><tr>");
        for function in functions {
            let _ = write!(
                out,
                "<th class=\"{0}\">{0} <code>{1}</code></th>",
                escape(&function.variant),
                escape(&function.record.path())
            );
        }
        out.push_str("</tr></thead><tbody>");
        let rows: Vec<[String; ROWS]> = functions.iter().map(|function| pieces(dumps, function, kind)).collect();
        for row in 0..ROWS {
            if rows.iter().all(|pieces| pieces[row].trim().is_empty()) {
                continue;
            }
            let label = [Role::Stub, Role::MoveNext, Role::Closure, Role::Poll, Role::Machinery]
                .into_iter()
                .filter_map(row_of)
                .find(|(index, _)| *index == row)
                .map_or("", |(_, label)| label);
            let _ = write!(out, "<tr class=\"role\"><td colspan=\"{}\">{label}</td></tr><tr>", functions.len());
            for (function, pieces) in functions.iter().zip(&rows) {
                out.push_str("<td>");
                pane(out, &pieces[row], function, kind, flag);
                out.push_str("</td>");
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table>");
    }
}

#[cfg(test)]
mod tests {
    use super::without_debug_info;

    #[test]
    fn ir_lines_lose_their_debug_metadata_only() {
        assert_eq!(
            without_debug_info("  %3 = load i32, ptr %2, align 4, !dbg !120, !noundef !7").as_deref(),
            Some("  %3 = load i32, ptr %2, align 4")
        );
        assert_eq!(without_debug_info("    #dbg_value(ptr %x, !10, !DIExpression(), !12)"), None);
        assert_eq!(without_debug_info("  br label %bb3, !llvm.loop !44").as_deref(), Some("  br label %bb3"));
        assert_eq!(without_debug_info("  ret void").as_deref(), Some("  ret void"));
    }
}

//! The report: the facts rendered as tables (for a person) or as JSON (schema 1, for
//! tools), and the per-function dumps. Nothing here computes a fact.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::{Value, json};

use crate::error::{Context, Result};
use crate::facts::{Diagnostics, Facts, FunctionFacts, RECURSION_DEPTHS};
use crate::stacks::Stack;

pub const SCHEMA: u64 = 1;
/// How the inspected build differs from a plain `cargo build --release`.
pub const INSPECTED_BUILD: &str = "release profile, one codegen unit, v0 symbol names, full debug info";

/// Functions keyed by source function: same function name in the same module once the
/// variant segment is removed, classic first.
pub fn by_source_function(facts: &Facts) -> Vec<(String, Vec<&FunctionFacts>)> {
    let mut groups: BTreeMap<(String, String), Vec<&FunctionFacts>> = BTreeMap::new();
    for function in &facts.functions {
        let module =
            function.record.module.strip_suffix(&format!("::{}", function.variant)).unwrap_or(&function.record.module);
        groups.entry((module.to_owned(), function.record.function.clone())).or_default().push(function);
    }
    groups
        .into_iter()
        .map(|((_, name), mut functions)| {
            functions.sort_by(|a, b| a.variant.cmp(&b.variant));
            (name, functions)
        })
        .collect()
}

fn or_dash(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_owned(), |value| value.to_string())
}

pub fn table(facts: &Facts) -> String {
    let mut out = String::new();
    let krate = &facts.krate;
    let _ = writeln!(out, "inspect: {} ({INSPECTED_BUILD})", krate.package);
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Per function (I1, I3-I5, I7, I8). `line`: the function's line in its file (from its record); `lowering` is read from the record in the object; `!` marks a MIR shape that disagrees, `?` one the MIR did not tell."
    );
    let _ = writeln!(
        out,
        "{:<22} {:<8} {:>5} {:<9} {:<26} {:>15} {:>13} {:>8} {:>7} {:>7} {:>8}",
        "function",
        "variant",
        "line",
        "lowering",
        "generated type",
        "MIR bb/st/loc",
        "IR instr(fns)",
        "native",
        "state",
        "task",
        "expanded"
    );
    for (name, functions) in by_source_function(facts) {
        for (index, function) in functions.iter().enumerate() {
            // An unknown shape is not a disagreement: `?` says the MIR did not tell, `!` that it
            // told another lowering than the record's.
            let shape_mark = match function.shape.as_str() {
                "unknown" => "?",
                shape if shape == function.record.lowering => "",
                _ => "!",
            };
            let instantiated = match (&function.note, function.merged_into.first()) {
                (Some(note), _) => format!(" ({note})"),
                (None, Some(target)) if function.native_bytes() == 0 => {
                    format!(" (identical code merged into {target})")
                }
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "{:<22} {:<8} {:>5} {:<9} {:<26} {:>15} {:>13} {:>8} {:>7} {:>7} {:>8}{instantiated}",
                if index == 0 { name.as_str() } else { "" },
                function.variant,
                function.record.line,
                format!("{}{shape_mark}", function.record.lowering),
                function.record.generated_type.as_deref().unwrap_or("-"),
                format!("{}/{}/{}", function.mir.basic_blocks, function.mir.statements, function.mir.locals),
                format!("{}({})", function.ir_instructions(), function.llvm_ir.len()),
                function.native_bytes(),
                or_dash(function.state_bytes),
                or_dash(function.task_bytes),
                or_dash(function.expanded_lines),
            );
        }
    }

    let _ = writeln!(out);
    let _ = writeln!(out, "Per variant (I2, I6, I8):");
    let _ = writeln!(
        out,
        "{:<8} {:>9} {:>15} {:>16} {:>11} {:>10} {:>13} {:>14} {:>9}",
        "variant",
        "functions",
        "generated types",
        "coroutine bodies",
        "text bytes",
        "rlib bytes",
        "variant .text",
        "expanded lines",
        "build ms"
    );
    for (variant, totals) in &facts.variants {
        let _ = writeln!(
            out,
            "{:<8} {:>9} {:>15} {:>16} {:>11} {:>10} {:>13} {:>14} {:>9}",
            variant,
            totals.functions,
            totals.generated_types,
            totals.coroutine_bodies,
            totals.text_bytes,
            totals.rlib_bytes,
            or_dash(totals.object_text_bytes),
            or_dash(totals.expanded_lines),
            or_dash(totals.build_ms),
        );
    }
    let _ = writeln!(
        out,
        "crate: object .text {} B, rlib .text {} B, rlib file {} B (code, data and metadata), host code not attributed to any function {} B; the crate's rustc took {} ms of {} time{}",
        krate.object_text_bytes,
        krate.rlib_text_bytes,
        krate.rlib_file_bytes,
        krate.unattributed_text_bytes,
        krate.build_ms,
        krate.build_clock,
        if facts.variants.len() > 1 { " for both variants" } else { "" },
    );
    if facts.variants.len() > 1 {
        let _ = writeln!(
            out,
            "build ms, variant .text: CPU time (user and system) of the crate's rustc again with one variant kept (--cfg lowering_only), same flags and outputs, and the .text bytes of the object it emitted (shared runtime code included)"
        );
    }
    for (variant, totals) in &facts.variants {
        if let Some(note) = &totals.build_note {
            let _ = writeln!(out, "build ms of {variant}: {note}");
        }
    }

    match &facts.diagnostics {
        Some(diagnostics) => diagnostics_table(&mut out, diagnostics),
        None => {
            let _ = writeln!(out, "\nDiagnostics (D1-D4): the package has no `lowering_stacks` example.");
        }
    }
    out
}

fn stack_cell(stack: Option<&Stack>) -> String {
    stack.map_or_else(|| "-".to_owned(), |stack| format!("{} ({} user)", stack.frames, stack.user_frames))
}

fn diagnostics_table(out: &mut String, by_build: &BTreeMap<String, Diagnostics>) {
    let builds: Vec<&String> = by_build.keys().collect();
    let variants = ["classic", "runtime"];
    let stack = |build: &str, scenario: &str, variant: &str| {
        by_build.get(build).and_then(|d| d.stacks.get(scenario)).and_then(|s| s.get(variant))
    };

    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "D1 live stack at the bottom of a 3-level chain: operation frames (annotated-function frames among them)"
    );
    let _ = writeln!(out, "D3 right after a real suspension: frames from the resumed function down to the executor");
    let _ = writeln!(out, "{:<8} {:>18} {:>18} {:>18} {:>18}", "", "D1 debug", "D1 release", "D3 debug", "D3 release");
    for variant in variants {
        let _ = writeln!(
            out,
            "{:<8} {:>18} {:>18} {:>18} {:>18}",
            variant,
            stack_cell(stack("debug", "chain3", variant)),
            stack_cell(stack("release", "chain3", variant)),
            stack_cell(stack("debug", "after_yield", variant)),
            stack_cell(stack("release", "after_yield", variant)),
        );
    }

    let _ = writeln!(out);
    let _ = writeln!(out, "D2 recursion: operation frames at depth 0 / 3 / 10, and frames per level");
    for build in &builds {
        for variant in variants {
            let frames: Vec<Option<u64>> = RECURSION_DEPTHS
                .iter()
                .map(|depth| stack(build, &format!("recursive/{depth}"), variant).map(|s| s.frames))
                .collect();
            let _ = writeln!(
                out,
                "{:<8} {:<8} {} / {} / {}   per level {}",
                build,
                variant,
                or_dash(frames[0]),
                or_dash(frames[1]),
                or_dash(frames[2]),
                per_level(&frames).map_or_else(|| "-".to_owned(), |x| format!("{x}")),
            );
        }
    }

    if let Some(debug) = by_build.get("debug") {
        let _ = writeln!(out);
        let _ = writeln!(out, "D1 frames (debug build), innermost first:");
        for variant in variants {
            if let Some(stack) = debug.stacks.get("chain3").and_then(|s| s.get(variant)) {
                let _ = writeln!(out, "  {variant}:");
                for name in &stack.names {
                    let _ = writeln!(out, "    {name}");
                }
            }
        }
    }

    for (build, diagnostics) in by_build {
        let _ = writeln!(out);
        let _ = writeln!(out, "D4 panic 3 levels down and error through `?` ({build} build):");
        for (scenario, comparison) in &diagnostics.panics {
            let same: Vec<String> = comparison
                .identical
                .iter()
                .map(|(what, same)| format!("{what} {}", if *same { "identical" } else { "DIFFERENT" }))
                .collect();
            let _ = writeln!(out, "  panic ({scenario}): {}", same.join(", "));
            for (variant, report) in &comparison.variants {
                let _ = writeln!(
                    out,
                    "    {variant}: \"{}\" at {} (hook calls: {})",
                    report.message, report.location, report.hook_calls
                );
                let _ = writeln!(out, "      user frames: {}", report.user_frames.join(" <- "));
            }
        }
        for (scenario, comparison) in &diagnostics.errors {
            let same = comparison.identical.values().all(|same| *same);
            let _ = writeln!(out, "  error ({scenario}): Display {}", if same { "identical" } else { "DIFFERENT" });
            for (variant, text) in &comparison.variants {
                let _ = writeln!(out, "    {variant}: {text}");
            }
        }
    }
}

/// Frames per level of recursion: (frames at 10 - frames at 0) / 10, when both are known.
fn per_level(frames: &[Option<u64>]) -> Option<f64> {
    let (Some(first), Some(last)) = (frames.first().copied().flatten(), frames.last().copied().flatten()) else {
        return None;
    };
    let levels = RECURSION_DEPTHS[RECURSION_DEPTHS.len() - 1] - RECURSION_DEPTHS[0];
    Some((last as f64 - first as f64) / levels as f64)
}

fn stack_json(stack: &Stack) -> Value {
    json!({"frames": stack.frames, "user_frames": stack.user_frames, "names": stack.names})
}

fn diagnostics_json(diagnostics: &Diagnostics) -> Value {
    let by_variant = |scenario: &str| -> Value {
        diagnostics.stacks.get(scenario).map_or(Value::Null, |stacks| {
            stacks
                .iter()
                .map(|(variant, stack)| (variant.clone(), stack_json(stack)))
                .collect::<serde_json::Map<_, _>>()
                .into()
        })
    };
    let mut recursive = serde_json::Map::new();
    for variant in ["classic", "runtime"] {
        let mut depths = serde_json::Map::new();
        let mut frames = Vec::new();
        for depth in RECURSION_DEPTHS {
            let count =
                diagnostics.stacks.get(&format!("recursive/{depth}")).and_then(|s| s.get(variant)).map(|s| s.frames);
            frames.push(count);
            depths.insert(depth.to_string(), json!(count));
        }
        depths.insert("per_level".to_owned(), json!(per_level(&frames)));
        recursive.insert(variant.to_owned(), depths.into());
    }
    json!({
        "chain3": by_variant("chain3"),
        "recursive": recursive,
        "after_yield": by_variant("after_yield"),
        "panic": serde_json::to_value(&diagnostics.panics).unwrap_or(Value::Null),
        "error": serde_json::to_value(&diagnostics.errors).unwrap_or(Value::Null),
    })
}

/// The JSON report, schema 1 (documented in inspect/README-section.md).
pub fn json(facts: &Facts) -> Value {
    let functions: Vec<Value> = facts
        .functions
        .iter()
        .map(|function| {
            json!({
                "name": function.record.function,
                "variant": function.variant,
                "lowering": function.record.lowering,
                "generated_type": function.record.generated_type,
                "mir": {
                    "basic_blocks": function.mir.basic_blocks,
                    "statements": function.mir.statements,
                    "locals": function.mir.locals,
                },
                "llvm_ir": {
                    "instructions": function.ir_instructions(),
                    "functions": function.llvm_ir.iter().map(|ir| json!({
                        "role": ir.role.name(), "symbol": ir.name, "instructions": ir.instructions,
                    })).collect::<Vec<_>>(),
                },
                "native_bytes": function.native_bytes(),
                "state_bytes": function.state_bytes,
                "module": function.record.module,
                "shape": function.shape,
                "value_task": function.record.value_task,
                "task_bytes": function.task_bytes,
                "merged_into": function.merged_into,
                "note": function.note,
                "rlib_bytes": function.rlib_bytes,
                "expanded_lines": function.expanded_lines,
                "file": function.record.file,
                "line": function.record.line,
            })
        })
        .collect();
    let variants: serde_json::Map<String, Value> = facts
        .variants
        .iter()
        .map(|(variant, totals)| {
            (
                variant.clone(),
                json!({
                    "generated_types": totals.generated_types,
                    "coroutine_bodies": totals.coroutine_bodies,
                    "text_bytes": totals.text_bytes,
                    "rlib_bytes": totals.rlib_bytes,
                    "expanded_lines": totals.expanded_lines,
                    "build_ms": totals.build_ms,
                    "object_text_bytes": totals.object_text_bytes,
                    "build_note": totals.build_note,
                    "functions": totals.functions,
                }),
            )
        })
        .collect();
    let stacks = facts.diagnostics.as_ref().map_or(Value::Null, |by_build| {
        let mut stacks = by_build.get("debug").map_or_else(|| json!({}), diagnostics_json);
        if let (Some(object), Some(release)) = (stacks.as_object_mut(), by_build.get("release")) {
            object.insert("build".to_owned(), json!("debug"));
            object.insert("release".to_owned(), diagnostics_json(release));
        }
        stacks
    });
    let krate = &facts.krate;
    json!({
        "schema": SCHEMA,
        "crate": {
            "name": krate.name,
            "package": krate.package,
            "manifest_path": krate.manifest_path,
            "inspected_build": INSPECTED_BUILD,
            "build_ms": krate.build_ms,
            "object_text_bytes": krate.object_text_bytes,
            "rlib_text_bytes": krate.rlib_text_bytes,
            "rlib_file_bytes": krate.rlib_file_bytes,
            "unattributed_text_bytes": krate.unattributed_text_bytes,
        },
        "functions": functions,
        "variants": variants,
        "stacks": stacks,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dump {
    Mir,
    LlvmIr,
    Asm,
}

/// The dump of every function named `name`, one variant after the other.
pub fn dump(facts: &Facts, name: &str, kind: Dump) -> Result<String> {
    let mut functions: Vec<&FunctionFacts> =
        facts.functions.iter().filter(|function| function.record.function == name).collect();
    functions.sort_by(|a, b| (&a.variant, &a.record.module).cmp(&(&b.variant, &b.record.module)));
    if functions.is_empty() {
        let mut known: Vec<&str> = facts.functions.iter().map(|function| function.record.function.as_str()).collect();
        known.sort();
        known.dedup();
        return Err(crate::error::Error::new(format!(
            "no annotated function named `{name}` (known: {})",
            known.join(", ")
        )));
    }
    let mut out = String::new();
    for function in functions {
        let _ = writeln!(
            out,
            "==== {} `{}` ({}) ====",
            function.variant,
            function.record.path(),
            match kind {
                Dump::Mir => "MIR",
                Dump::LlvmIr => "LLVM IR",
                Dump::Asm => "assembly",
            }
        );
        match kind {
            Dump::Mir => {
                let ranges: Vec<(usize, usize)> = function.mir_bodies.iter().map(|body| body.lines).collect();
                out.push_str(&lines_in(&facts.files.mir, &ranges)?);
            }
            Dump::LlvmIr => {
                let ranges: Vec<(usize, usize)> = function.llvm_ir.iter().map(|ir| ir.lines).collect();
                out.push_str(&lines_in(&facts.files.llvm_ir, &ranges)?);
            }
            Dump::Asm => out.push_str(&assembly(&facts.files.asm, function)?),
        }
        out.push('\n');
    }
    Ok(out)
}

fn lines_in(path: &Path, ranges: &[(usize, usize)]) -> Result<String> {
    let file = std::fs::File::open(path).context(|| format!("opening {}", path.display()))?;
    let mut out = String::new();
    for (index, line) in BufReader::new(file).lines().enumerate() {
        if ranges.iter().any(|(start, end)| (*start..=*end).contains(&index)) {
            out.push_str(&line.context(|| format!("reading {}", path.display()))?);
            out.push('\n');
            if ranges.iter().any(|(_, end)| *end == index) {
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// The assembly of the function's code symbols: from each symbol's label to the end of the
/// function, without assembler directives.
fn assembly(path: &Path, function: &FunctionFacts) -> Result<String> {
    let wanted: Vec<&str> =
        function.native.iter().filter(|symbol| symbol.code).map(|symbol| symbol.name.as_str()).collect();
    let file = std::fs::File::open(path).context(|| format!("opening {}", path.display()))?;
    let mut out = String::new();
    let mut inside = false;
    for line in BufReader::new(file).lines() {
        let line = line.context(|| format!("reading {}", path.display()))?;
        if let Some(label) =
            line.strip_suffix(':').filter(|label| !label.starts_with('.') && !label.starts_with(char::is_whitespace))
        {
            let name = format!("{:#}", rustc_demangle::demangle(label));
            inside = wanted.contains(&name.as_str());
            if inside {
                let _ = writeln!(out, "{name}:");
            }
            continue;
        }
        if inside {
            if line.starts_with(".Lfunc_end") {
                inside = false;
                out.push('\n');
            } else if !line.trim().is_empty()
                && (!line.starts_with(char::is_whitespace) || !line.trim_start().starts_with('.'))
                && !line.starts_with(".Ltmp")
                && !line.starts_with(".Lfunc_begin")
            {
                // Instructions and local labels (`.LBB3_2:`); assembler directives are left out.
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

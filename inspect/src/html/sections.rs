//! The page's sections that are tables and text: the headline figures, the benchmark rows,
//! the per-function table (sortable, filterable), and the D1/D3 stacks side by side.

use std::fmt::Write as _;

use crate::bench::{Bench, Row};
use crate::facts::{Diagnostics, FunctionFacts};
use crate::headline::{self, Figure};

use super::escape;

pub fn headline(out: &mut String, figures: &[Figure], bench: &Bench) {
    out.push_str("<section id=\"headline\"><h2>Headline</h2>");
    out.push_str("<table class=\"figures\"><thead><tr><th></th><th>from</th><th class=\"classic\">classic</th><th class=\"runtime\">runtime</th><th>classic / runtime</th></tr></thead><tbody>");
    for figure in figures {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num ratio\">{}</td></tr>",
            escape(&figure.label),
            escape(&figure.source),
            headline::number_text(figure.classic),
            headline::number_text(figure.runtime),
            headline::ratio_text(figure)
        );
    }
    out.push_str("</tbody></table>");
    if let Some((mean, count)) = bench.summary().and_then(headline::mean_time_ratio) {
        let _ = write!(
            out,
            "<p>Time per operation, classic / runtime, geometric mean over {count} scenarios: <b>{mean:.1}x</b>.</p>"
        );
    }
    bench_status(out, bench);
    out.push_str("</section>");
}

pub fn bench_status(out: &mut String, bench: &Bench) {
    let class = match bench {
        Bench::Found { stale: None, .. } => "status",
        Bench::Found { stale: Some(_), .. } => "status stale",
        Bench::Missing(_) | Bench::Unreadable(..) => "status missing",
    };
    let _ = write!(out, "<p class=\"{class}\" id=\"bench-status\">{}</p>", escape(&bench.status()));
}

fn ns_cell(row: Option<&Row>) -> String {
    row.map_or_else(
        || "<td></td>".to_owned(),
        |row| {
            format!(
                "<td class=\"num\" data-value=\"{}\">{} <small>({}–{})</small></td>",
                row.ns.median,
                headline::number_text(row.ns.median),
                headline::number_text(row.ns.min),
                headline::number_text(row.ns.max)
            )
        },
    )
}

fn pair(classic: Option<f64>, runtime: Option<f64>) -> String {
    let cell = |value: Option<f64>| value.map_or_else(|| "-".to_owned(), headline::number_text);
    format!("<td class=\"num\">{} | {}</td>", cell(classic), cell(runtime))
}

/// The benchmark's rows as a table (the charts come from `charts`).
pub fn bench_table(out: &mut String, bench: &Bench) {
    let Some(summary) = bench.summary() else { return };
    out.push_str("<table id=\"bench-table\"><thead><tr><th>row</th><th>scenario (unit)</th><th class=\"classic\">classic ns/op</th><th class=\"runtime\">runtime ns/op</th><th>c/r</th><th>bytes/op c | r</th><th>allocs/op c | r</th><th>instr/op c | r</th></tr></thead><tbody>");
    for (scenario, rows) in summary.scenarios() {
        let classic = rows.iter().find(|row| row.variant == "classic").copied();
        let runtime = rows.iter().find(|row| row.variant == "runtime").copied();
        let control = rows.iter().find(|row| row.variant == "control").copied();
        let first = rows[0];
        let ratio = match (classic, runtime) {
            (Some(c), Some(r)) if r.ns.median > 0.0 => format!("{:.2}x", c.ns.median / r.ns.median),
            _ => String::new(),
        };
        let get = |row: Option<&Row>, field: fn(&Row) -> Option<f64>| row.and_then(field);
        let _ = write!(
            out,
            "<tr data-row=\"{}\"><td>{}</td><td>{} <small>({}){}</small></td>{}{}<td class=\"num\">{ratio}</td>{}{}{}</tr>",
            escape(&scenario),
            escape(&first.id),
            escape(&first.name),
            escape(&first.unit),
            if control.is_some() { " control" } else { "" },
            ns_cell(classic.or(control)),
            ns_cell(runtime),
            pair(get(classic.or(control), |r| r.bytes_per_op), get(runtime, |r| r.bytes_per_op)),
            pair(get(classic.or(control), |r| r.allocs_per_op), get(runtime, |r| r.allocs_per_op)),
            pair(get(classic.or(control), |r| r.instructions_per_op), get(runtime, |r| r.instructions_per_op)),
        );
    }
    out.push_str("</tbody></table>");
}

fn cell(value: Option<u64>) -> String {
    match value {
        Some(value) => format!("<td class=\"num\" data-value=\"{value}\">{value}</td>"),
        None => "<td class=\"num\" data-value=\"\">-</td>".to_owned(),
    }
}

/// The per-function table: one row per source function, classic beside runtime.
pub fn function_table(out: &mut String, groups: &[(String, Vec<&FunctionFacts>)]) {
    out.push_str(
        "<p><input id=\"filter\" type=\"search\" placeholder=\"filter functions by name\" autocomplete=\"off\"> \
         <span id=\"filter-count\"></span> Click a heading to sort, a name to open its code side by side.</p>",
    );
    let headings: [(&str, &str); 16] = [
        ("text", "function"),
        ("text", "generated type"),
        ("num", "MIR bb classic"),
        ("num", "MIR bb runtime"),
        ("num", "IR instr classic"),
        ("num", "IR instr runtime"),
        ("num", "native B classic"),
        ("num", "native B runtime"),
        ("num", "native c/r"),
        ("num", "state B classic"),
        ("num", "state B runtime"),
        ("num", "task B"),
        ("num", "expanded classic"),
        ("num", "expanded runtime"),
        ("text", "lowering read"),
        ("text", "code"),
    ];
    out.push_str("<table id=\"functions-table\"><thead><tr>");
    for (index, (kind, heading)) in headings.iter().enumerate() {
        let class = if heading.ends_with("classic") {
            " class=\"classic\""
        } else if heading.ends_with("runtime") {
            " class=\"runtime\""
        } else {
            ""
        };
        let _ = write!(out, "<th data-sort=\"{kind}\" data-column=\"{index}\"{class}>{heading}</th>");
    }
    out.push_str("</tr></thead><tbody>");
    for (index, (name, functions)) in groups.iter().enumerate() {
        let of = |variant: &str| functions.iter().find(|function| function.variant == variant).copied();
        let (classic, runtime) = (of("classic"), of("runtime"));
        let num = |function: Option<&FunctionFacts>, value: fn(&FunctionFacts) -> Option<u64>| function.and_then(value);
        let native_ratio = match (classic.map(FunctionFacts::native_bytes), runtime.map(FunctionFacts::native_bytes)) {
            (Some(c), Some(r)) if r > 0 && c > 0 => {
                format!("<td class=\"num\" data-value=\"{}\">{:.1}x</td>", c as f64 / r as f64, c as f64 / r as f64)
            }
            _ => "<td class=\"num\" data-value=\"\">-</td>".to_owned(),
        };
        let lowerings: Vec<String> = functions
            .iter()
            .map(|function| {
                let mark = if function.shape == function.record.lowering { "" } else { "!" };
                format!("{}{mark}", function.record.lowering)
            })
            .collect();
        let _ = write!(
            out,
            "<tr data-name=\"{0}\"><td><button class=\"open\" data-code=\"code-{index}\" title=\"open the code side by side\">{0}</button></td><td><code>{1}</code></td>",
            escape(name),
            escape(classic.and_then(|f| f.record.generated_type.as_deref()).unwrap_or("-")),
        );
        for value in [
            num(classic, |f| Some(f.mir.basic_blocks)),
            num(runtime, |f| Some(f.mir.basic_blocks)),
            num(classic, |f| Some(f.ir_instructions())),
            num(runtime, |f| Some(f.ir_instructions())),
            num(classic, |f| Some(f.native_bytes())),
            num(runtime, |f| Some(f.native_bytes())),
        ] {
            out.push_str(&cell(value));
        }
        out.push_str(&native_ratio);
        for value in [
            num(classic, |f| f.state_bytes),
            num(runtime, |f| f.state_bytes),
            num(classic, |f| f.task_bytes),
            num(classic, |f| f.expanded_lines),
            num(runtime, |f| f.expanded_lines),
        ] {
            out.push_str(&cell(value));
        }
        let _ = write!(
            out,
            "<td>{}</td><td><button class=\"open\" data-code=\"code-{index}\">side by side</button></td></tr>",
            escape(&lowerings.join(" / "))
        );
    }
    out.push_str("</tbody></table>");
}

/// D1 and D3: the frames of each variant's stack, side by side, per build.
pub fn stacks(out: &mut String, diagnostics: &std::collections::BTreeMap<String, Diagnostics>) {
    for (scenario, title) in [
        ("chain3", "D1: the live stack at the bottom of a 3-level chain, innermost first"),
        ("after_yield", "D3: the stack right after a real suspension, innermost first"),
    ] {
        for (build, diagnostics) in diagnostics {
            let Some(stacks) = diagnostics.stacks.get(scenario) else { continue };
            let _ = write!(out, "<h3>{title} ({build} build)</h3><table class=\"sbs stacks\"><thead><tr>");
            for (variant, stack) in stacks {
                let _ = write!(
                    out,
                    "<th class=\"{0}\">{0}: {1} frames ({2} of annotated functions)</th>",
                    escape(variant),
                    stack.frames,
                    stack.user_frames
                );
            }
            out.push_str("</tr></thead><tbody><tr>");
            for stack in stacks.values() {
                out.push_str("<td><ol>");
                for name in &stack.names {
                    let _ = write!(out, "<li><code>{}</code></li>", escape(name));
                }
                out.push_str("</ol></td>");
            }
            out.push_str("</tr></tbody></table>");
        }
    }
}

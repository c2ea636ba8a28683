//! The headline figures: per variant, what the lowering produced (types, code, frames) and,
//! when the benchmark's summary is at hand, what a call costs; each with its classic/runtime
//! ratio. The terminal report opens with them and the page shows them first.

use std::fmt::Write as _;

use crate::bench::{Bench, Summary};
use crate::facts::{Facts, RECURSION_DEPTHS};

/// The benchmark row the per-call figures come from: a ten-level chain of calls that
/// complete at once, the common case the seeds measure first.
pub const CHAIN_SCENARIO: &str = "B3 ValueChain10";

#[derive(Debug, Clone)]
pub struct Figure {
    pub label: String,
    /// Where the figure comes from (the report's column or the benchmark row).
    pub source: String,
    pub classic: f64,
    pub runtime: f64,
}

impl Figure {
    /// classic / runtime, when runtime is not zero.
    pub fn ratio(&self) -> Option<f64> {
        (self.runtime != 0.0).then(|| self.classic / self.runtime)
    }
}

pub fn ratio_text(figure: &Figure) -> String {
    match figure.ratio() {
        Some(ratio) if ratio >= 10.0 => format!("{ratio:.0}x"),
        Some(ratio) => format!("{ratio:.2}x"),
        None if figure.classic == 0.0 => "both 0".to_owned(),
        None => "runtime 0".to_owned(),
    }
}

pub fn number_text(value: f64) -> String {
    if value != 0.0 && value.abs() < 0.05 {
        // A rare event averaged over many operations (one allocation in a million calls):
        // shown as it is, not rounded to a 0 beside a huge ratio.
        format!("{value:.1e}")
    } else if value.fract().abs() < 1e-9 || value >= 100.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    }
}

pub fn figures(facts: &Facts, bench: Option<&Summary>) -> Vec<Figure> {
    let mut figures = Vec::new();
    let (Some(classic), Some(runtime)) = (facts.variants.get("classic"), facts.variants.get("runtime")) else {
        return figures;
    };
    let mut push = |label: &str, source: &str, classic: f64, runtime: f64| {
        figures.push(Figure { label: label.to_owned(), source: source.to_owned(), classic, runtime });
    };
    push("generated state-machine types", "I2", classic.generated_types as f64, runtime.generated_types as f64);
    push("native code of the functions, bytes", "I6", classic.text_bytes as f64, runtime.text_bytes as f64);
    if let (Some(c), Some(r)) = (classic.object_text_bytes, runtime.object_text_bytes) {
        push("object .text, one variant built alone, bytes", "I6", c as f64, r as f64);
    }
    if let (Some(c), Some(r)) = (classic.expanded_lines, runtime.expanded_lines) {
        push("lines the attribute expands to", "I8", c as f64, r as f64);
    }
    if let (Some(c), Some(r)) = (classic.build_ms, runtime.build_ms) {
        // (Wall time where this system gives no CPU time: said so, never passed off as CPU.)
        let label = format!("{} ms of the crate's rustc, one variant built alone", facts.krate.build_clock);
        push(&label, "I8", c as f64, r as f64);
    }
    if let Some(debug) = facts.diagnostics.as_ref().and_then(|by_build| by_build.get("debug")) {
        let frames = |scenario: &str, variant: &str| {
            debug.stacks.get(scenario).and_then(|s| s.get(variant)).map(|stack| stack.frames as f64)
        };
        if let (Some(c), Some(r)) = (frames("chain3", "classic"), frames("chain3", "runtime")) {
            push("frames at the bottom of a 3-level chain (debug)", "D1", c, r);
        }
        let deepest = RECURSION_DEPTHS[RECURSION_DEPTHS.len() - 1];
        let per_level = |variant: &str| {
            let first = frames(&format!("recursive/{}", RECURSION_DEPTHS[0]), variant)?;
            let last = frames(&format!("recursive/{deepest}"), variant)?;
            Some((last - first) / (deepest - RECURSION_DEPTHS[0]) as f64)
        };
        if let (Some(c), Some(r)) = (per_level("classic"), per_level("runtime")) {
            push("frames per level of recursion (debug)", "D2", c, r);
        }
        if let (Some(c), Some(r)) = (frames("after_yield", "classic"), frames("after_yield", "runtime")) {
            push("frames after a real suspension (debug)", "D3", c, r);
        }
    }
    if let Some(summary) = bench
        && let (Some(c), Some(r)) = (summary.row(CHAIN_SCENARIO, "classic"), summary.row(CHAIN_SCENARIO, "runtime"))
    {
        let source = CHAIN_SCENARIO.split(' ').next().unwrap_or(CHAIN_SCENARIO);
        push("ns per call of a ten-level chain (median)", source, c.ns.median, r.ns.median);
        if let (Some(ci), Some(ri)) = (c.instructions_per_op, r.instructions_per_op) {
            push("instructions per call of a ten-level chain", source, ci, ri);
        }
        if let (Some(ca), Some(ra)) = (c.allocs_per_op, r.allocs_per_op) {
            push("allocations per call of a ten-level chain", source, ca, ra);
        }
        if let (Some(cb), Some(rb)) = (c.bytes_per_op, r.bytes_per_op) {
            push("bytes allocated per call of a ten-level chain", source, cb, rb);
        }
    }
    figures
}

/// The geometric mean of classic/runtime median ns over the scenarios measured for both,
/// and how many scenarios that is.
pub fn mean_time_ratio(summary: &Summary) -> Option<(f64, usize)> {
    let ratios: Vec<f64> = summary
        .scenarios()
        .iter()
        .filter_map(|(scenario, _)| {
            let classic = summary.row(scenario, "classic")?.ns.median;
            let runtime = summary.row(scenario, "runtime")?.ns.median;
            (classic > 0.0 && runtime > 0.0).then(|| classic / runtime)
        })
        .collect();
    if ratios.is_empty() {
        return None;
    }
    let mean = (ratios.iter().map(|ratio| ratio.ln()).sum::<f64>() / ratios.len() as f64).exp();
    Some((mean, ratios.len()))
}

/// The one-screen summary the terminal report opens with.
pub fn terminal(facts: &Facts, bench: &Bench) -> String {
    let mut out = String::new();
    let figures = figures(facts, bench.summary());
    if figures.is_empty() {
        let _ = writeln!(out, "Summary: the package has not both variants; no ratios.");
        return out;
    }
    let _ = writeln!(out, "Summary (the tables below give every function and the details):");
    let _ = writeln!(out, "{:<50} {:>6} {:>12} {:>12} {:>10}", "", "from", "classic", "runtime", "c/r");
    for figure in &figures {
        let _ = writeln!(
            out,
            "{:<50} {:>6} {:>12} {:>12} {:>10}",
            figure.label,
            figure.source,
            number_text(figure.classic),
            number_text(figure.runtime),
            ratio_text(figure)
        );
    }
    if let Some((mean, count)) = bench.summary().and_then(mean_time_ratio) {
        let _ = writeln!(out, "time per operation, classic/runtime, geometric mean over {count} scenarios: {mean:.1}x");
    }
    let _ = writeln!(out, "{}", bench.status());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_ratios_read_as_measured() {
        assert_eq!(number_text(118.0), "118");
        assert_eq!(number_text(4.5), "4.5");
        assert_eq!(number_text(0.000002), "2.0e-6");
        let figure = |classic, runtime| Figure { label: String::new(), source: String::new(), classic, runtime };
        assert_eq!(ratio_text(&figure(624429.0, 26729.0)), "23x");
        assert_eq!(ratio_text(&figure(11.0, 2.0)), "5.50x");
        assert_eq!(ratio_text(&figure(118.0, 0.0)), "runtime 0");
        assert_eq!(ratio_text(&figure(0.0, 0.0)), "both 0");
    }
}

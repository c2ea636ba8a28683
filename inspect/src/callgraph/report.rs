//! The call-graph results as a terminal table: one row per build, then classic against runtime
//! per shape and depth, then why each build that did not build did not.

use std::fmt::Write as _;

use super::results::{Build, Outcome, Results};

/// What the times are, for every output.
pub const TIMED: &str = "wall and CPU time (user and system: its threads and the linker it runs) of the crate's own \
     rustc, measured by inspect as cargo's RUSTC_WORKSPACE_WRAPPER; the dependencies are built before, once, and in \
     no figure";

pub fn table(results: &Results) -> String {
    let mut out = String::new();
    let settings = &results.settings;
    let _ = writeln!(out, "Compile cost against the call graph (I9), {}", results.provenance());
    let _ = writeln!(
        out,
        "{}; incremental off; recursion_limit {}; each build limited to {} s and {} MiB of address space per process; {}",
        results.machine.rustc,
        settings.recursion_limit,
        seconds_text(settings.timeout_s),
        settings.memory_limit_mib,
        settings.jobs.map_or_else(|| "cargo's default jobs".to_owned(), |jobs| format!("--jobs {jobs}"))
    );
    for (shape, profile) in &settings.profiles {
        let _ = writeln!(out, "  {shape}: {profile}");
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<6} {:>5} {:>4} {:>11} {:<8} {:<13} {:>7} {:>7} {:>8} {:>14} {:>11} {:>5} {:>7}",
        "shape",
        "depth",
        "fns",
        "paths",
        "variant",
        "outcome",
        "wall s",
        "CPU s",
        "peak MiB",
        "binary B",
        "longest sym",
        "types",
        "records"
    );
    for build in &results.builds {
        let symbols = build.symbols();
        let records = build.binary.as_ref().and_then(|binary| binary.records.as_ref()).map(|records| {
            records
                .lowerings
                .iter()
                .map(|(lowering, count)| format!("{count} {lowering}"))
                .collect::<Vec<_>>()
                .join("+")
        });
        let _ = writeln!(
            out,
            "{:<6} {:>5} {:>4} {:>11} {:<8} {:<13} {:>7} {:>7} {:>8} {:>14} {:>11} {:>5} {}",
            build.shape,
            build.depth,
            build.functions,
            grouped(build.paths),
            build.variant,
            build.outcome.name(),
            wall_text(build),
            seconds(build.cpu_seconds()),
            build.rustc.and_then(|rustc| rustc.max_rss_kib).map_or_else(dash, |kib| (kib / 1024).to_string()),
            build.binary_bytes().map_or_else(dash, grouped),
            symbols.map_or_else(dash, |symbols| grouped(symbols.longest_bytes)),
            symbols.map_or_else(dash, |symbols| symbols.state_machine_types.to_string()),
            records.unwrap_or_else(dash),
        );
    }
    ratios(&mut out, results);
    let unbuilt: Vec<&Build> = results.builds.iter().filter(|build| build.outcome != Outcome::Built).collect();
    if !unbuilt.is_empty() {
        let _ = writeln!(out, "\nNot built:");
        for build in unbuilt {
            let detail = build.detail.as_deref().unwrap_or("");
            let mut lines = detail.lines();
            let _ = writeln!(
                out,
                "  {} {} {}: {}: {}",
                build.shape,
                build.depth,
                build.variant,
                build.outcome.name(),
                lines.next().unwrap_or("")
            );
            for line in lines {
                let _ = writeln!(out, "      {line}");
            }
        }
    }
    let deps: Vec<String> = results
        .dependencies
        .wall_ms
        .iter()
        .map(|(profile, ms)| format!("{profile} {} s", seconds(Some(*ms as f64 / 1000.0))))
        .collect();
    let _ = writeln!(
        out,
        "\nwall s, CPU s: {TIMED} (dependencies: {} of cargo wall time, a freshness check when already built); a build stopped at the timeout shows its wall \
         time as `>N`. peak MiB: the peak resident memory of that rustc (or of the linker it ran). binary B: the \
         executable's size. longest sym: bytes of the longest name in its symbol table (mangled). types: distinct \
         generated state-machine types (MainKStateMachine) its symbol names mention. records: the lowering records \
         the executable prints, by lowering (read from the artifact).",
        if deps.is_empty() { "already built".to_owned() } else { deps.join(", ") }
    );
    out
}

/// Classic against runtime, per shape and depth where both built.
fn ratios(out: &mut String, results: &Results) {
    let mut rows = Vec::new();
    let built = |build: &&Build| build.outcome == Outcome::Built;
    for classic in results.builds.iter().filter(|build| build.variant == "classic").filter(built) {
        let Some(runtime) = results.build(&classic.shape, classic.depth, "runtime").filter(built) else { continue };
        let ratio = |c: Option<f64>, r: Option<f64>| match (c, r) {
            (Some(c), Some(r)) if r > 0.0 => format!("{:.1}x", c / r),
            _ => "-".to_owned(),
        };
        let float = |value: Option<u64>| value.map(|v| v as f64);
        rows.push(format!(
            "{:<6} {:>5} {:>8} {:>8} {:>12}",
            classic.shape,
            classic.depth,
            ratio(classic.cpu_seconds(), runtime.cpu_seconds()),
            ratio(float(classic.binary_bytes()), float(runtime.binary_bytes())),
            ratio(float(classic.longest_symbol_bytes()), float(runtime.longest_symbol_bytes())),
        ));
    }
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nclassic / runtime, where both built:");
    let _ = writeln!(out, "{:<6} {:>5} {:>8} {:>8} {:>12}", "shape", "depth", "CPU", "binary", "longest sym");
    for row in rows {
        let _ = writeln!(out, "{row}");
    }
}

/// rustc's wall time, or for a build stopped at the timeout, cargo's, as a lower bound.
fn wall_text(build: &Build) -> String {
    match (build.wall_seconds(), build.cargo_wall_ms) {
        (Some(wall), _) => seconds(Some(wall)),
        (None, Some(cargo)) if build.outcome == Outcome::Timeout => format!(">{}", seconds_text(cargo as f64 / 1000.0)),
        _ => dash(),
    }
}

/// Seconds as a person writes them: `60`, `2.5`, `0.25`.
pub fn seconds_text(value: f64) -> String {
    let text = match value {
        v if v >= 10.0 => format!("{v:.0}"),
        v if v >= 1.0 => format!("{v:.2}"),
        v => format!("{v:.3}"),
    };
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_owned() } else { text }
}

fn seconds(value: Option<f64>) -> String {
    match value {
        Some(value) if value >= 100.0 => format!("{value:.0}"),
        Some(value) => format!("{value:.2}"),
        None => dash(),
    }
}

fn dash() -> String {
    "-".to_owned()
}

/// `1234567` as `1,234,567`.
pub fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use super::super::binary::{Records, Symbols};
    use super::super::results::{Binary, Dependencies, Machine, Rustc, Settings, Source};
    use super::*;

    pub fn sample() -> Results {
        let build =
            |shape: &str, depth: u32, variant: &str, outcome: Outcome, cpu_ms: u64, bytes: u64, longest: u64| {
                let built = outcome == Outcome::Built;
                Build {
                    shape: shape.to_owned(),
                    depth,
                    variant: variant.to_owned(),
                    package: format!("cg-{shape}-{depth}-{variant}"),
                    functions: depth + 1,
                    paths: if shape == "chain" { 1 } else { 1_000_000 },
                    outcome,
                    detail: (!built).then(|| "stopped after 60 s".to_owned()),
                    cargo_wall_ms: Some(cpu_ms + 100),
                    rustc: built.then_some(Rustc {
                        wall_ms: cpu_ms + 50,
                        cpu_ms: Some(cpu_ms),
                        max_rss_kib: Some(204_800),
                    }),
                    binary: built.then(|| Binary {
                        path: "/x".to_owned(),
                        bytes,
                        symbols: Some(Symbols {
                            count: 10,
                            name_bytes: 1000,
                            longest_bytes: longest,
                            longest_start: "core::ptr::drop_in_place".to_owned(),
                            state_machine_types: if variant == "classic" { u64::from(depth) + 1 } else { 0 },
                            record_symbols: u64::from(depth) + 1,
                        }),
                        symbols_error: None,
                        records: Some(Records {
                            lowerings: BTreeMap::from([(variant.to_owned(), u64::from(depth) + 1)]),
                            generated_types: if variant == "classic" { u64::from(depth) + 1 } else { 0 },
                        }),
                        records_error: None,
                        kept: false,
                    }),
                }
            };
        Results {
            schema: 1,
            complete: true,
            source: Source { commit: Some("0123456789abcdef".to_owned()), dirty: Some(false), written_unix: Some(0) },
            machine: Machine { rustc: "rustc 1.95.0".to_owned(), cores: Some(2) },
            settings: Settings {
                depths: vec![8, 16],
                shapes: vec!["dag".to_owned()],
                variants: vec!["classic".to_owned(), "runtime".to_owned()],
                timeout_s: 60.0,
                memory_limit_mib: 8192,
                jobs: Some(1),
                recursion_limit: 256,
                profiles: BTreeMap::from([("dag".to_owned(), "dev".to_owned())]),
                incremental: false,
                timed: TIMED.to_owned(),
            },
            dependencies: Dependencies { wall_ms: BTreeMap::from([("dev".to_owned(), 12_000)]) },
            builds: vec![
                build("dag", 8, "classic", Outcome::Built, 400, 9_000_000, 20_000),
                build("dag", 8, "runtime", Outcome::Built, 200, 4_500_000, 500),
                build("dag", 16, "classic", Outcome::Timeout, 60_000, 0, 0),
                build("dag", 16, "runtime", Outcome::Built, 250, 5_000_000, 583),
            ],
        }
    }

    #[test]
    fn the_table_has_a_row_per_build_the_ratios_and_why_a_build_did_not_build() {
        let text = table(&sample());
        assert!(
            text.starts_with("Compile cost against the call graph (I9), 1970-01-01 00:00 UTC, commit 0123456789\n")
        );
        let rows: Vec<&str> = text.lines().filter(|line| line.starts_with("dag ")).collect();
        assert_eq!(
            rows[..4],
            [
                "dag        8    9   1,000,000 classic  built            0.45    0.40      200      9,000,000      20,000     9 9 classic",
                "dag        8    9   1,000,000 runtime  built            0.25    0.20      200      4,500,000         500     0 9 runtime",
                "dag       16   17   1,000,000 classic  timeout           >60       -        -              -           -     - -",
                "dag       16   17   1,000,000 runtime  built            0.30    0.25      200      5,000,000         583     0 17 runtime",
            ]
        );
        assert!(text.contains("\nclassic / runtime, where both built:\n"), "{text}");
        assert!(text.contains("\ndag        8     2.0x     2.0x        40.0x\n\nNot built:"), "{text}");
        assert!(text.contains("\nNot built:\n  dag 16 classic: timeout: stopped after 60 s\n"), "{text}");
        assert!(text.contains("(dependencies: dev 12.00 s of cargo wall time, a freshness check when already built)"));
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1_044_000_000), "1,044,000,000");
        assert_eq!(seconds_text(60.1), "60");
        assert_eq!(seconds_text(2.5), "2.5");
        assert_eq!(seconds_text(0.001), "0.001");
        assert_eq!(seconds_text(0.25), "0.25");
    }
}

//! The terminal report of `inspect crate`: functions, refusals by code, tests per
//! configuration, phase times, and the last line.

use std::fmt::Write as _;

use super::results::Results;

pub fn terminal(results: &Results) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "crate {} {} (edition {}), from {}",
        results.name, results.version, results.edition, results.source
    );
    if !results.feature_args.is_empty() {
        let _ = writeln!(out, "features: {}", results.feature_args.join(" "));
    }
    let _ = writeln!(out, "\nasync fns ({}):", results.functions.len());
    for verdict in &results.functions {
        let f = &verdict.function;
        match &verdict.refused {
            None => {
                let _ = writeln!(out, "  accepted  {} {}:{}", f.path, f.file, f.line);
            }
            Some(refusal) => {
                let e = &refusal.error;
                let company = if refusal.in_company { " (only with the other accepted fns)" } else { "" };
                let _ = writeln!(
                    out,
                    "  refused   {} {}:{}: {} at {}:{}: {}{company}",
                    f.path, f.file, f.line, e.code, e.file, e.line, e.message
                );
            }
        }
    }
    let groups = results.by_code();
    if !groups.is_empty() {
        let _ = writeln!(out, "\nrefusals by error code:");
        for (code, verdicts) in &groups {
            let names: Vec<&str> = verdicts.iter().map(|v| v.function.path.as_str()).collect();
            let _ = writeln!(out, "  {code}: {} ({})", verdicts.len(), names.join(", "));
        }
    }
    let _ = writeln!(out, "\ntests passed:");
    for tests in &results.tests {
        let _ = writeln!(out, "  {:<9} {}/{}", tests.configuration, tests.passed(), tests.total());
        for (binary, outcome) in &tests.binaries {
            let mut problems = Vec::new();
            problems.extend(outcome.failed.iter().map(|name| match outcome.reasons.get(name) {
                Some(reason) => format!("FAILED {name} ({reason})"),
                None => format!("FAILED {name}"),
            }));
            problems.extend(outcome.hung.iter().map(|name| format!("HUNG {name}")));
            if let Some(crash) = &outcome.crashed {
                problems.push(format!("crashed ({crash}), {} not run", outcome.not_run.len()));
            }
            if !problems.is_empty() {
                let _ = writeln!(out, "    {binary}: {}", problems.join("; "));
            }
        }
    }
    let _ = writeln!(out, "\nphases:");
    for phase in &results.phases {
        let _ = writeln!(out, "  {:<10} {:>7.1} s  {} build(s)", phase.name, phase.seconds, phase.builds);
    }
    let _ = writeln!(out, "\n{}", results.last_line());
    out
}

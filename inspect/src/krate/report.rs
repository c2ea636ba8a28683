//! The terminal report of `inspect crate`: functions, refusals by code, tests per
//! configuration, memcheck's per test binary (`--memcheck`), the accepted fns' figures, phase
//! times, and the last line.

use std::fmt::Write as _;

use super::figures::{Figures, Lowered, shown};
use super::memcheck::Memcheck;
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
        let hints = hints_said(verdict);
        match &verdict.refused {
            None => {
                let _ = writeln!(out, "  accepted  {} {}:{}{hints}", f.path, f.file, f.line);
            }
            Some(refusal) => {
                let e = &refusal.error;
                let company = if refusal.in_company { " (only with the other accepted fns)" } else { "" };
                let _ = writeln!(
                    out,
                    "  refused   {} {}:{}: {} at {}:{}: {}{company}{hints}",
                    f.path, f.file, f.line, e.code, e.file, e.line, e.message
                );
                if let Some(before) = &refusal.before_hints {
                    let _ = writeln!(
                        out,
                        "            before the hints: {} at {}:{}: {}",
                        before.code, before.file, before.line, before.message
                    );
                }
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
        if let Some(why) = &tests.not_run {
            let _ = writeln!(out, "  {:<9} not run: {why}", tests.configuration);
            continue;
        }
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
    if let Some(run) = &results.memcheck {
        memcheck(&mut out, run);
    }
    figures(&mut out, &results.figures);
    let _ = writeln!(out, "\nphases:");
    for phase in &results.phases {
        let _ = writeln!(out, "  {:<10} {:>7.1} s  {} build(s)", phase.name, phase.seconds, phase.builds);
    }
    let _ = writeln!(out, "\n{}", results.last_line());
    out
}

/// ` (with moves(cmd), keeps(tx))` for a function given hints, else nothing.
pub fn hints_said(verdict: &super::results::Verdict) -> String {
    if verdict.hints.is_empty() {
        return String::new();
    }
    let hints: Vec<String> = verdict.hints.iter().map(ToString::to_string).collect();
    format!(" (with {})", hints.join(", "))
}

/// Each accepted library fn's figures, classic beside runtime, and the two builds'.
fn figures(out: &mut String, figures: &Figures) {
    let _ = writeln!(out, "\nfigures (the library's release build, classic / runtime):");
    if let Some(why) = &figures.missing {
        let _ = writeln!(out, "  {why}");
        return;
    }
    let both = |pick: &dyn Fn(&super::figures::BuildFigures) -> u64| -> String {
        let side = |name: &str| figures.builds.iter().find(|b| b.configuration == name).map(pick);
        format!("{} / {}", shown(side("classic")), shown(side("runtime")))
    };
    let _ = writeln!(
        out,
        "  crate: rustc {} ms; object text {} bytes; rlib {} bytes; generated types {}",
        both(&|b| b.build_ms),
        both(&|b| b.object_text_bytes),
        both(&|b| b.rlib_file_bytes),
        both(&|b| b.generated_types)
    );
    let _ = writeln!(
        out,
        "  {:<44} {:>13} {:>11} {:>13} {:>13}",
        "fn", "state bytes", "task bytes", "native bytes", "IR instrs"
    );
    for function in &figures.functions {
        let pair = |pick: &dyn Fn(&Lowered) -> Option<u64>| -> String {
            format!(
                "{} / {}",
                shown(function.classic.as_ref().and_then(pick)),
                shown(function.runtime.as_ref().and_then(pick))
            )
        };
        let _ = writeln!(
            out,
            "  {:<44} {:>13} {:>11} {:>13} {:>13}",
            format!("{} {}:{}", function.path, function.file, function.line),
            pair(&|l| l.state_bytes),
            pair(&|l| l.task_bytes),
            pair(&|l| Some(l.native_bytes)),
            pair(&|l| Some(l.llvm_ir_instructions))
        );
        if let Some(note) = &function.note {
            let _ = writeln!(out, "    {note}");
        }
        for lowered in [&function.classic, &function.runtime].into_iter().flatten() {
            if let Some(note) = &lowered.code_note {
                let _ = writeln!(out, "    {}: {note}", lowered.lowering);
            }
        }
    }
}

/// Each test binary under memcheck: tests run, failed, valgrind's errors, the verdict; what
/// went wrong beneath; the total line last.
fn memcheck(out: &mut String, memcheck: &Memcheck) {
    if !memcheck.ran() {
        let _ = writeln!(out, "\nmemcheck:");
        if let Some(why) = &memcheck.detail {
            let _ = writeln!(out, "  {why}");
        }
        let _ = writeln!(out, "{}", memcheck.line());
        return;
    }
    let _ = writeln!(
        out,
        "\nmemcheck ({} {}; the {} build's test binaries, each with --test-threads=1, at most {} s):",
        memcheck.valgrind.as_deref().unwrap_or("valgrind"),
        memcheck.flags.join(" "),
        memcheck.configuration,
        memcheck.timeout_s
    );
    let _ = writeln!(out, "  {:<32} {:>9} {:>6} {:>6}  verdict", "binary", "tests run", "failed", "errors");
    for binary in &memcheck.binaries {
        let _ = writeln!(
            out,
            "  {:<32} {:>9} {:>6} {:>6}  {}",
            binary.name,
            binary.tests_run,
            binary.tests_failed,
            binary.errors,
            binary.verdict.as_str()
        );
        let tests = &binary.tests;
        let mut notes: Vec<String> = Vec::new();
        notes.extend(binary.detail.clone());
        notes.extend(binary.first_error.as_ref().map(|error| format!("first error: {error}")));
        notes.extend(tests.failed.iter().map(|name| match tests.reasons.get(name) {
            Some(reason) => format!("FAILED {name} ({reason})"),
            None => format!("FAILED {name}"),
        }));
        notes.extend(tests.hung.iter().map(|name| format!("HUNG {name}")));
        if !tests.not_run.is_empty() {
            notes.push(format!("{} not run", tests.not_run.len()));
        }
        if binary.errors > 0 || !notes.is_empty() {
            notes.push(format!("valgrind's report: {}", binary.xml.display()));
        }
        for note in notes {
            let _ = writeln!(out, "    {note}");
        }
    }
    let _ = writeln!(out, "  doc tests: {}", memcheck.doc_tests);
    let _ = writeln!(out, "{}", memcheck.line());
}

//! The crater's table on the terminal: a line per crate, what each refused and which of its
//! tests pass runtime but not classic, then the totals and the refusals by code.

use std::fmt::Write as _;

use super::results::{Count, Crater, Status};

pub fn terminal(crater: &Crater) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "crater over {} ({} crates), lowering of {}, each with: inspect crate {}",
        crater.list,
        crater.rows.len() + crater.pending.len(),
        crater.lab.commit,
        crater.crate_options.join(" ")
    );
    let others: Vec<String> = crater
        .rows
        .iter()
        .filter(|row| !row.lab_commit.is_empty() && row.lab_commit != crater.lab.commit)
        .map(|row| format!("{} ({})", row.label(), row.lab_commit))
        .collect();
    if !others.is_empty() {
        let _ = writeln!(out, "built against another lowering (rerun them with --again): {}", others.join(", "));
    }
    let _ = writeln!(
        out,
        "\n{:<36} {:>4} {:>9} {:>5} {:>11} {:>11} {:>7}  refusals / why not measured",
        "crate", "ed.", "classic", "hints", "tests cl.", "baseline", "secs"
    );
    let count = |count: Option<Count>| count.map_or_else(|| "-".to_owned(), |c| format!("{}/{}", c.passed, c.total));
    for row in &crater.rows {
        let said = match row.status {
            Status::Done => {
                let codes: Vec<String> =
                    row.refusals.iter().map(|(code, refused)| format!("{code} {}", refused.len())).collect();
                let mut said = codes.join(", ");
                if let Some(why) = &row.tests_not_run {
                    said = format!("{said}{}tests not run: {why}", if said.is_empty() { "" } else { "; " });
                }
                if let Some(memcheck) = &row.memcheck {
                    said = format!("{said}{}{}", if said.is_empty() { "" } else { "; " }, memcheck.said());
                }
                said
            }
            status => format!("{}: {}", status.as_str(), row.detail.as_deref().unwrap_or_default()),
        };
        let _ = writeln!(
            out,
            "{:<36} {:>4} {:>9} {:>5} {:>11} {:>11} {:>7.0}  {}",
            row.label(),
            row.edition.as_deref().unwrap_or("-"),
            if row.status == Status::Done { format!("{}/{}", row.accepted, row.functions) } else { "-".to_owned() },
            if row.status == Status::Done { row.hinted.to_string() } else { "-".to_owned() },
            count(row.classic),
            count(row.baseline),
            row.seconds,
            said
        );
    }
    for pending in &crater.pending {
        let _ = writeln!(out, "{pending:<36} pending");
    }
    let failing: Vec<_> = crater.rows.iter().filter(|row| !row.classic_only_failures.is_empty()).collect();
    if !failing.is_empty() {
        let _ = writeln!(out, "\ntests that pass runtime and not classic:");
        for row in failing {
            for test in &row.classic_only_failures {
                let _ = writeln!(out, "  {}: {test}", row.label());
            }
        }
    }
    let unclean: Vec<String> = crater
        .rows
        .iter()
        .flat_map(|row| {
            row.memcheck
                .iter()
                .flat_map(|memcheck| &memcheck.not_clean)
                .map(|binary| format!("  {}: {binary}", row.label()))
        })
        .collect();
    if !unclean.is_empty() {
        let _ = writeln!(out, "\ntest binaries not clean under memcheck:\n{}", unclean.join("\n"));
    }
    let refusing: Vec<_> = crater.rows.iter().filter(|row| !row.refusals.is_empty()).collect();
    if !refusing.is_empty() {
        let _ = writeln!(out, "\nrefused fns:");
        for row in refusing {
            for (code, refused) in &row.refusals {
                for fn_refused in refused {
                    let _ = writeln!(
                        out,
                        "  {} {code} {} {} (at {}): {}",
                        row.label(),
                        fn_refused.path,
                        fn_refused.at,
                        fn_refused.error_at,
                        fn_refused.message
                    );
                }
            }
        }
    }
    let totals = &crater.totals;
    if !totals.refusals.is_empty() {
        let codes: Vec<String> = totals.refusals_by_count().iter().map(|(code, n)| format!("{code} {n}")).collect();
        let _ = writeln!(out, "\nrefusals by code: {}", codes.join(", "));
    }
    let _ = writeln!(out, "\ncrater: {}", totals.line());
    out
}

/// The table as Markdown: a row per crate, then the totals, the refusals by code (most first,
/// one example each) and the tests that pass runtime and not classic.
pub fn markdown(crater: &Crater) -> String {
    let mut out = String::new();
    let cell = |text: &str| text.replace('|', "\\|");
    let count = |count: Option<Count>| count.map_or_else(|| "-".to_owned(), |c| format!("{}/{}", c.passed, c.total));
    let _ = writeln!(
        out,
        "| crate | edition | lowered classic | with hints | tests classic | runtime baseline | refusals, or why not measured |"
    );
    let _ = writeln!(out, "| --- | --- | --- | --- | --- | --- | --- |");
    for row in &crater.rows {
        let done = row.status == Status::Done;
        let said = if done {
            let mut parts: Vec<String> =
                row.refusals.iter().map(|(code, refused)| format!("{code} {}", refused.len())).collect();
            parts.extend(row.tests_not_run.as_ref().map(|why| format!("tests not run: {why}")));
            parts.extend(row.memcheck.as_ref().map(|memcheck| memcheck.said()));
            parts.join("; ")
        } else {
            format!("{}: {}", row.status.as_str(), row.detail.as_deref().unwrap_or_default())
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(&row.label()),
            row.edition.as_deref().unwrap_or("-"),
            if done { format!("{}/{}", row.accepted, row.functions) } else { "-".to_owned() },
            if done { row.hinted.to_string() } else { "-".to_owned() },
            count(row.classic),
            count(row.baseline),
            cell(&said)
        );
    }
    for pending in &crater.pending {
        let _ = writeln!(out, "| {} | | | | | | pending |", cell(pending));
    }
    let _ = writeln!(out, "\n    crater: {}", crater.totals.line());
    let by_code = crater.totals.refusals_by_count();
    if !by_code.is_empty() {
        let _ = writeln!(out, "\n| code | refused fns | an example |\n| --- | --- | --- |");
        for (code, n) in by_code {
            let example = crater.rows.iter().find_map(|row| {
                let refused = row.refusals.get(code)?.first()?;
                Some(format!(
                    "{} `{}` ({}, error at {}): {}",
                    row.label(),
                    refused.path,
                    refused.at,
                    refused.error_at,
                    refused.message
                ))
            });
            let _ = writeln!(out, "| {code} | {n} | {} |", cell(&example.unwrap_or_default()));
        }
    }
    let failing: Vec<String> = crater
        .rows
        .iter()
        .flat_map(|row| row.classic_only_failures.iter().map(move |test| format!("- {}: {test}", row.label())))
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(out, "\nTests that pass runtime and not classic:\n\n{}", failing.join("\n"));
    }
    out
}

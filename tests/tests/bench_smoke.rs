//! The benchmark harness, run in `--quick` mode: the structure of its summary (every row the
//! README lists, both variants, no failed check). Timings are never checked here. The run
//! writes into this test's own directory, so that `cargo test` leaves the benchmark's own
//! summaries (`target/lowering-bench/`, which `inspect` reads) as they were.

use std::process::Command;

#[test]
fn quick_benchmark_reports_every_row_for_both_variants() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let workspace = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-smoke");
    // A summary left by an earlier run must not pass for this one's.
    let _ = std::fs::remove_dir_all(&out);
    // The dev profile: this checks what the harness reports, not how fast anything is, and
    // reuses what the test build compiled already.
    let output = Command::new(cargo)
        .current_dir(workspace)
        .args(["bench", "-p", "lowering", "--profile", "dev", "--", "--quick", "--json", "--out"])
        .arg(&out)
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the quick benchmark failed:\n{stderr}");
    assert!(stderr.contains("checks: 64 passed, 0 failed"), "checks did not all pass:\n{stderr}");

    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).expect("--json prints the summary");
    let written =
        std::fs::read(out.join("summary-quick.json")).expect("a quick run writes summary-quick.json in --out");
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&written).ok().as_ref(), Some(&summary));
    assert!(!out.join("summary.json").exists(), "a quick run wrote over a full run's summary");
    assert_eq!(summary["schema"], 1);
    assert!(summary["machine"].is_object());
    let rows = summary["rows"].as_array().expect("rows");
    // B1-B16, and every row the README's benchmark section names.
    let listed = readme_rows(workspace);
    assert!(listed.iter().all(|id| rows.iter().any(|row| row["id"] == id.as_str())), "docs/bench.md rows {listed:?}");
    for id in (1..=16).map(|n| format!("B{n}")) {
        let variants: Vec<&str> =
            rows.iter().filter(|row| row["id"] == id.as_str()).filter_map(|row| row["variant"].as_str()).collect();
        if id == "B1" {
            assert_eq!(variants, ["control"], "B1 is the control row");
        } else if ["B2", "B3", "B4", "B6"].contains(&id.as_str()) {
            let decomposition = ["direct", "runtime", "runtime-opaque", "model-floor", "model-floor-panic", "classic"];
            assert_eq!(variants, decomposition, "{id} runs the decomposition controls");
        } else {
            assert!(variants.contains(&"classic") && variants.contains(&"runtime"), "{id}: {variants:?}");
        }
    }
    // The configuration rows (issue 15): the proxy end to end with its control, and the mixed
    // configuration M1 in B9 and B10.
    let configurations = |id: &str, name_part: &str| -> Vec<&str> {
        rows.iter()
            .filter(|row| row["id"] == id && row["name"].as_str().is_some_and(|name| name.contains(name_part)))
            .filter_map(|row| row["variant"].as_str())
            .collect()
    };
    let mixed = ["classic", "classic-over-runtime", "runtime", "runtime-over-classic"];
    for id in ["A1", "A1-8k"] {
        assert_eq!(configurations(id, "Proxy"), [&mixed[..], &["control"]].concat(), "{id}");
    }
    assert_eq!(configurations("B9", "mixed"), mixed, "B9 mixed");
    assert_eq!(configurations("B10", "mixed"), mixed, "B10 mixed");
    for row in rows.iter().filter(|row| row["id"].as_str().is_some_and(|id| id.starts_with("A1"))) {
        assert!(row["requests_per_s"]["median"].is_number(), "requests_per_s missing in {row}");
    }
    for row in rows {
        for field in ["name", "lowering_measured", "bytes_per_op", "allocs_per_op", "samples"] {
            assert!(!row[field].is_null(), "{field} missing in {row}");
        }
        for statistic in ["median", "min", "max"] {
            assert!(row["ns_per_op"][statistic].is_number(), "ns_per_op.{statistic} missing in {row}");
        }
        assert!(row.get("instructions_per_op").is_some(), "instructions_per_op (null in --quick) missing in {row}");
        let control = !matches!(
            row["variant"].as_str(),
            Some("classic" | "runtime" | "classic-over-runtime" | "runtime-over-classic")
        );
        assert_eq!(row["control"], control, "controls are marked as such: {row}");
        if !control {
            assert_eq!(
                row["lowering_measured"], row["variant"],
                "a row measured a lowering other than its label: {row}"
            );
        }
    }
}

/// The row ids (`B<n>`) the benchmark's page (`docs/bench.md`) names.
fn readme_rows(workspace: &str) -> Vec<String> {
    let section = std::fs::read_to_string(format!("{workspace}/docs/bench.md")).expect("docs/bench.md");
    let mut ids: Vec<String> = section
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| word.len() > 1 && word.starts_with('B') && word[1..].bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_owned)
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

//! From the children's raw results to the summary rows (`summary.json`) and the table.

use std::fmt::Write as _;
use std::process::Command;

use serde_json::{Value, json};

use crate::scenarios::{SCENARIOS, Subject};

/// What the run ran on.
pub fn machine(valgrind: Option<&str>) -> Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|text| {
        text.lines().find_map(|line| {
            line.strip_prefix("model name").map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_owned())
        })
    });
    let rustc = Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned());
    json!({
        "os": std::env::consts::OS,
        "arch": std::env::consts::ARCH,
        "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "cpu": cpu,
        "rustc": rustc,
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "valgrind": valgrind,
    })
}

fn median(sorted: &[f64]) -> f64 {
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 { sorted[middle] } else { (sorted[middle - 1] + sorted[middle]) / 2.0 }
}

/// One summary row per scenario and subject: every round's samples together.
pub fn rows(results: &[Vec<Value>], instructions: &[Vec<(Subject, u64, u64, f64)>]) -> Vec<Value> {
    let mut rows = Vec::new();
    for (row, runs) in results.iter().enumerate() {
        let mut subjects: Vec<&str> = Vec::new();
        for run in runs {
            let variant = run["variant"].as_str().unwrap_or("?");
            if !subjects.contains(&variant) {
                subjects.push(variant);
            }
        }
        for subject in subjects {
            let mine: Vec<&Value> = runs.iter().filter(|run| run["variant"] == subject).collect();
            let mut samples: Vec<f64> = mine
                .iter()
                .flat_map(|run| run["samples_ns_per_op"].as_array().into_iter().flatten().filter_map(Value::as_f64))
                .collect();
            samples.sort_by(f64::total_cmp);
            if samples.is_empty() {
                continue;
            }
            let first = mine[0];
            let counted =
                instructions[row].iter().find(|(counted, ..)| counted.name() == subject).map(|(.., per_op)| *per_op);
            rows.push(json!({
                "id": SCENARIOS[row].id,
                "name": SCENARIOS[row].name,
                "unit": SCENARIOS[row].unit,
                "variant": subject,
                "control": Subject::parse(subject).is_none_or(Subject::is_control),
                "lowering_measured": first["lowering_measured"],
                "function_measured": first["function_measured"],
                "ns_per_op": { "median": median(&samples), "min": samples[0], "max": samples[samples.len() - 1] },
                "bytes_per_op": first["bytes_per_op"],
                "allocs_per_op": first["allocs_per_op"],
                "instructions_per_op": counted,
                "first_invocation_ns": mine.iter().map(|run| run["first_invocation_ns"].clone()).collect::<Vec<_>>(),
                "samples": samples.len(),
            }));
        }
    }
    rows
}

fn ns(value: &Value) -> String {
    let median = value["median"].as_f64().unwrap_or(f64::NAN);
    let (min, max) = (value["min"].as_f64().unwrap_or(f64::NAN), value["max"].as_f64().unwrap_or(f64::NAN));
    format!("{} ({}–{})", short(median), short(min), short(max))
}

fn short(value: f64) -> String {
    if value >= 100.0 { format!("{value:.0}") } else { format!("{value:.1}") }
}

fn per_op(value: &Value) -> String {
    match value.as_f64() {
        Some(value) if value.fract().abs() < 1e-9 || value >= 100.0 => format!("{value:.0}"),
        Some(value) => format!("{value:.2}"),
        None => "-".to_owned(),
    }
}

/// The side-by-side table.
pub fn table(summary: &Value) -> String {
    let rows = summary["rows"].as_array().cloned().unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<4} {:<40} {:>22} {:>22} {:>7} {:>13} {:>13} {:>13}",
        "row",
        "scenario (unit)",
        "classic ns/op",
        "runtime ns/op",
        "c/r",
        "bytes/op c|r",
        "allocs/op c|r",
        "instr/op c|r"
    );
    let find = |id: &Value, name: &Value, variant: &str| {
        rows.iter().find(|row| &row["id"] == id && &row["name"] == name && row["variant"] == variant).cloned()
    };
    let mut seen = Vec::new();
    for row in &rows {
        let key = (row["id"].clone(), row["name"].clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key.clone());
        let label = format!("{} ({})", row["name"].as_str().unwrap_or("?"), row["unit"].as_str().unwrap_or("?"));
        let id = row["id"].as_str().unwrap_or("?");
        if row["variant"] != "control" && row["control"] == true {
            // A decomposition control: listed in the decomposition table below.
            seen.pop();
            continue;
        }
        if row["variant"] == "control" {
            let _ = writeln!(
                out,
                "{id:<4} {label:<40} {:>22} {:>22} {:>7} {:>13} {:>13} {:>13}",
                format!("control {}", ns(&row["ns_per_op"])),
                "",
                "",
                per_op(&row["bytes_per_op"]),
                per_op(&row["allocs_per_op"]),
                per_op(&row["instructions_per_op"]),
            );
            continue;
        }
        let classic = find(&key.0, &key.1, "classic");
        let runtime = find(&key.0, &key.1, "runtime");
        let cell = |row: &Option<Value>, field: &str| row.as_ref().map(|row| row[field].clone()).unwrap_or(Value::Null);
        let ratio =
            match (cell(&classic, "ns_per_op")["median"].as_f64(), cell(&runtime, "ns_per_op")["median"].as_f64()) {
                (Some(classic), Some(runtime)) if runtime > 0.0 => format!("{:.2}x", classic / runtime),
                _ => "-".to_owned(),
            };
        let pair = |field: &str| format!("{}|{}", per_op(&cell(&classic, field)), per_op(&cell(&runtime, field)));
        let timing = |row: &Option<Value>| {
            row.as_ref().map(|row| ns(&row["ns_per_op"])).unwrap_or_else(|| "not timed".to_owned())
        };
        let _ = writeln!(
            out,
            "{id:<4} {label:<40} {:>22} {:>22} {ratio:>7} {:>13} {:>13} {:>13}",
            timing(&classic),
            timing(&runtime),
            pair("bytes_per_op"),
            pair("allocs_per_op"),
            pair("instructions_per_op"),
        );
    }
    let measured: Vec<String> = rows
        .iter()
        .filter(|row| row["control"] != true)
        .filter(|row| row["lowering_measured"] != row["variant"])
        .map(|row| format!("{} {} {}: {}", row["id"], row["name"], row["variant"], row["lowering_measured"]))
        .collect();
    decomposition(&rows, &mut out);
    if measured.is_empty() {
        let _ =
            writeln!(out, "lowering measured (the record of the function each row called): as labelled in every row");
    } else {
        let _ =
            writeln!(out, "WARNING: rows whose lowering record disagrees with their label: {}", measured.join("; "));
    }
    out
}

/// The decomposition rows (B2, B3, B4, B6): every subject of a row on a line of its own, in
/// the order of [`Subject::DECOMPOSITION`], with its instructions against `model-floor-panic`.
fn decomposition(rows: &[Value], out: &mut String) {
    let mut keys: Vec<(Value, Value)> = Vec::new();
    for row in rows.iter().filter(|row| row["variant"] == "model-floor") {
        keys.push((row["id"].clone(), row["name"].clone()));
    }
    if keys.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\ndecomposition (controls: direct, runtime-opaque, model-floor, model-floor-panic; instr/floor = instructions against model-floor-panic)"
    );
    let _ = writeln!(
        out,
        "{:<4} {:<24} {:<18} {:>22} {:>10} {:>10} {:>10} {:>12}",
        "row", "scenario", "variant", "ns/op", "bytes/op", "allocs/op", "instr/op", "instr/floor"
    );
    for (id, name) in keys {
        let of_row: Vec<&Value> = rows.iter().filter(|row| row["id"] == id && row["name"] == name).collect();
        let floor = of_row
            .iter()
            .find(|row| row["variant"] == "model-floor-panic")
            .and_then(|row| row["instructions_per_op"].as_f64());
        for subject in Subject::DECOMPOSITION {
            let Some(row) = of_row.iter().find(|row| row["variant"] == subject.name()) else { continue };
            let ratio = match (row["instructions_per_op"].as_f64(), floor) {
                (Some(instructions), Some(floor)) if floor > 0.0 => format!("{:.2}x", instructions / floor),
                _ => "-".to_owned(),
            };
            let _ = writeln!(
                out,
                "{:<4} {:<24} {:<18} {:>22} {:>10} {:>10} {:>10} {:>12}",
                id.as_str().unwrap_or("?"),
                name.as_str().unwrap_or("?"),
                subject.name(),
                ns(&row["ns_per_op"]),
                per_op(&row["bytes_per_op"]),
                per_op(&row["allocs_per_op"]),
                per_op(&row["instructions_per_op"]),
                ratio,
            );
        }
    }
}

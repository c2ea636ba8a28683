//! The configuration rows in the parent: children per (row, configuration) over interleaved
//! rounds, the order reversed every other round; their summary rows (the fields every row has,
//! plus `requests_per_s` and latencies for A1); and the table seed 001 printed, configurations
//! side by side.

use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

use lowering_proxy::Config;
use serde_json::{Value, json};

use crate::app_rows::{APP_ROWS, AppProtocol, Kind};

/// Is `id` the id of a configuration row?
pub fn knows(id: &str) -> bool {
    APP_ROWS.iter().any(|row| row.id == id)
}

/// A child started with `--app-child --app-row N --config NAME [--quick]`.
pub fn child(args: &[String]) -> Result<(), String> {
    let value_of = |name: &str| args.iter().position(|arg| arg == name).and_then(|index| args.get(index + 1));
    let row: usize = value_of("--app-row").and_then(|row| row.parse().ok()).ok_or("a child needs --app-row")?;
    let row = APP_ROWS.get(row).ok_or("no such configuration row")?;
    let config = value_of("--config").and_then(|name| Config::parse(name)).ok_or("a child needs --config")?;
    let protocol = if args.iter().any(|arg| arg == "--quick") { &AppProtocol::QUICK } else { &AppProtocol::FULL };
    let result = crate::app_rows::measure(row, config, protocol)?;
    println!("{result}");
    Ok(())
}

fn run_child(row: usize, config: Config, quick: bool) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|error| format!("cannot find this executable: {error}"))?;
    let mut command = Command::new(exe);
    command.args(["--app-child", "--app-row", &row.to_string(), "--config", config.name()]);
    if quick {
        command.arg("--quick");
    }
    let output = command.output().map_err(|error| format!("cannot start a child: {error}"))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    serde_json::from_slice(&output.stdout).map_err(|error| format!("unreadable child output: {error}"))
}

/// Every configuration row selected by `rows` (all when empty): the raw runs, and the summary
/// rows. A configuration that fails its check (or any error of its child) is reported through
/// `say` and not timed; the others still are.
pub fn run(rows: &[String], quick: bool, say: &dyn Fn(&str)) -> (Vec<Value>, Vec<Value>) {
    let started = Instant::now();
    let selected: Vec<usize> =
        (0..APP_ROWS.len()).filter(|&row| rows.is_empty() || rows.iter().any(|id| id == APP_ROWS[row].id)).collect();
    let rounds = if quick { 1 } else { 4 };
    let mut failed: Vec<(usize, Config)> = Vec::new();
    let mut runs: Vec<Value> = Vec::new();
    for round in 0..rounds {
        for &row in &selected {
            let mut order = APP_ROWS[row].configs();
            if round % 2 == 1 {
                order.reverse();
            }
            for config in order {
                if failed.contains(&(row, config)) {
                    continue;
                }
                eprint!(
                    "\r\x1b[Kconfigurations, round {}/{rounds}: {} {} {} ({:.0?})",
                    round + 1,
                    APP_ROWS[row].id,
                    APP_ROWS[row].name,
                    config.name(),
                    started.elapsed()
                );
                match run_child(row, config, quick) {
                    Ok(mut value) => {
                        value["round"] = json!(round + 1);
                        runs.push(value);
                    }
                    Err(reason) => {
                        eprintln!();
                        say(&format!("not timing {} {}: {reason}", APP_ROWS[row].id, config.name()));
                        failed.push((row, config));
                    }
                }
            }
        }
    }
    eprintln!("\r\x1b[Kconfigurations measured in {:.1?}", started.elapsed());
    let summary = selected.iter().flat_map(|&row| summary_rows(row, &runs, &failed)).collect();
    (runs, summary)
}

fn median(sorted: &[f64]) -> f64 {
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 { sorted[middle] } else { (sorted[middle - 1] + sorted[middle]) / 2.0 }
}

fn summary_rows(row: usize, runs: &[Value], failed: &[(usize, Config)]) -> Vec<Value> {
    let spec = &APP_ROWS[row];
    let mut out = Vec::new();
    for config in spec.configs() {
        let mine: Vec<&Value> = runs
            .iter()
            .filter(|run| run["id"] == spec.id && run["name"] == spec.name && run["variant"] == config.name())
            .collect();
        if mine.is_empty() || failed.contains(&(row, config)) {
            continue;
        }
        let mut samples: Vec<f64> = mine
            .iter()
            .flat_map(|run| run["samples_ns_per_op"].as_array().into_iter().flatten().filter_map(Value::as_f64))
            .collect();
        samples.sort_by(f64::total_cmp);
        if samples.is_empty() {
            continue;
        }
        // Allocations are exact and the same in every round up to the generator's scheduling:
        // the median over rounds.
        let per_round = |field: &str| {
            let mut values: Vec<f64> = mine.iter().filter_map(|run| run[field].as_f64()).collect();
            values.sort_by(f64::total_cmp);
            if values.is_empty() { Value::Null } else { json!(median(&values)) }
        };
        let mut summary = json!({
            "id": spec.id,
            "name": spec.name,
            "unit": spec.unit,
            "variant": config.name(),
            "control": config == Config::Control,
            "lowering_measured": mine[0]["lowering_measured"],
            "ns_per_op": { "median": median(&samples), "min": samples[0], "max": samples[samples.len() - 1] },
            "bytes_per_op": per_round("bytes_per_op"),
            "allocs_per_op": per_round("allocs_per_op"),
            "instructions_per_op": Value::Null,
            "first_invocation_ns": mine.iter().map(|run| run["first_invocation_ns"].clone()).collect::<Vec<_>>(),
            "samples": samples.len(),
            "rounds": mine.len(),
        });
        if let Kind::Proxy(_) = spec.kind {
            // Requests per second from ns per request: the fastest sample is the max.
            summary["requests_per_s"] = json!({
                "median": 1e9 / median(&samples),
                "min": 1e9 / samples[samples.len() - 1],
                "max": 1e9 / samples[0],
            });
            let latency = |statistic: &str| {
                let mut values: Vec<f64> =
                    mine.iter().filter_map(|run| run["latency_ns"][statistic].as_f64()).collect();
                values.sort_by(f64::total_cmp);
                if values.is_empty() { Value::Null } else { json!(median(&values)) }
            };
            summary["latency_ns"] = json!({ "mean": latency("mean"), "p50": latency("p50"), "p99": latency("p99") });
        }
        out.push(summary);
    }
    out
}

/// Seed 001's table: one line per configuration row, the configurations side by side.
pub fn table(rows: &[Value]) -> String {
    let mut out = String::new();
    let configs = Config::ALL;
    let _ = writeln!(
        out,
        "\nconfigurations (M1: application-over-library); A1: requests/s median (min-max), KB and allocations per request, latency per request; B9, B10: ns/op median (min-max), bytes and allocations per op"
    );
    let _ = write!(out, "{:<6} {:<44}", "row", "scenario (unit)");
    for config in configs {
        let _ = write!(out, " {:>26}", config.name());
    }
    let _ = writeln!(out);
    for spec in APP_ROWS {
        let of_row: Vec<&Value> = rows.iter().filter(|row| row["id"] == spec.id && row["name"] == spec.name).collect();
        if of_row.is_empty() {
            continue;
        }
        let proxy = matches!(spec.kind, Kind::Proxy(_));
        // Proxy rows: rate, memory, latency; lab rows: time, memory.
        for line in 0..if proxy { 3 } else { 2 } {
            let label = if line == 0 { format!("{} ({})", spec.name, spec.unit) } else { String::new() };
            let _ = write!(out, "{:<6} {label:<44}", if line == 0 { spec.id } else { "" });
            for config in configs {
                let cell = match of_row.iter().find(|row| row["variant"] == config.name()) {
                    None if spec.configs().contains(&config) => "not timed".to_owned(),
                    None => String::new(),
                    Some(row) if line == 0 && proxy => {
                        let rate = &row["requests_per_s"];
                        format!(
                            "{:.0} ({:.0}-{:.0})",
                            rate["median"].as_f64().unwrap_or(f64::NAN),
                            rate["min"].as_f64().unwrap_or(f64::NAN),
                            rate["max"].as_f64().unwrap_or(f64::NAN)
                        )
                    }
                    Some(row) if line == 0 => {
                        let ns = &row["ns_per_op"];
                        format!(
                            "{:.1} ns ({:.1}-{:.1})",
                            ns["median"].as_f64().unwrap_or(f64::NAN),
                            ns["min"].as_f64().unwrap_or(f64::NAN),
                            ns["max"].as_f64().unwrap_or(f64::NAN)
                        )
                    }
                    Some(row) if line == 2 => {
                        let latency = &row["latency_ns"];
                        format!(
                            "p50 {:.0} us, p99 {:.0} us",
                            latency["p50"].as_f64().unwrap_or(f64::NAN) / 1000.0,
                            latency["p99"].as_f64().unwrap_or(f64::NAN) / 1000.0
                        )
                    }
                    Some(row) => {
                        let bytes = row["bytes_per_op"].as_f64().unwrap_or(f64::NAN);
                        let allocs = row["allocs_per_op"].as_f64().unwrap_or(f64::NAN);
                        if proxy {
                            format!("{:.2} KB, {allocs:.1} allocs", bytes / 1000.0)
                        } else {
                            format!("{bytes:.0} B, {allocs:.2} allocs")
                        }
                    }
                };
                let _ = write!(out, " {cell:>26}");
            }
            let _ = writeln!(out);
        }
    }
    let mislabelled: Vec<String> = rows
        .iter()
        .filter(|row| row["control"] != true && row["lowering_measured"] != row["variant"])
        .map(|row| format!("{} {}: {}", row["id"], row["variant"], row["lowering_measured"]))
        .collect();
    if mislabelled.is_empty() {
        let _ = writeln!(out, "lowering measured (from the records of each layer): as labelled in every configuration");
    } else {
        let _ = writeln!(
            out,
            "WARNING: configurations whose records disagree with their label: {}",
            mislabelled.join("; ")
        );
    }
    out
}

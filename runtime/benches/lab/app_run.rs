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
    if let Some(operations) = value_of("--count-instructions") {
        let operations: u64 = operations.parse().map_err(|_| "--count-instructions takes a number")?;
        return crate::app_rows::count_instructions(row, config, operations);
    }
    let protocol = if args.iter().any(|arg| arg == "--quick") { &AppProtocol::QUICK } else { &AppProtocol::FULL };
    let result = crate::app_rows::measure(row, config, protocol)?;
    println!("{result}");
    Ok(())
}

fn child_command(row: usize, config: Config) -> Result<Command, String> {
    let exe = std::env::current_exe().map_err(|error| format!("cannot find this executable: {error}"))?;
    let mut command = Command::new(exe);
    command.args(["--app-child", "--app-row", &row.to_string(), "--config", config.name()]);
    Ok(command)
}

/// User-space instructions per unit, counted by callgrind inside the measured region only:
/// runs of n and 2n operations, the difference over the extra units. Kernel work (the
/// sockets' system calls) is not counted: this is the proxy's and the stack's own code.
fn instructions(row: usize, config: Config, dir: &std::path::Path) -> Result<f64, String> {
    let spec = &APP_ROWS[row];
    let n = crate::app_rows::instruction_operations(spec);
    let out_file = dir.join(format!("callgrind-{}-{}.out", spec.id, config.name()));
    let count = |operations: u64| {
        let mut command = child_command(row, config)?;
        command.args(["--count-instructions", &operations.to_string()]);
        crate::callgrind::count(&mut command, &out_file)
    };
    let (small, large) = (count(n)?, count(2 * n)?);
    let extra = crate::app_rows::units(spec, 2 * n) - crate::app_rows::units(spec, n);
    Ok(large.saturating_sub(small) as f64 / extra as f64)
}

fn run_child(row: usize, config: Config, quick: bool) -> Result<Value, String> {
    let mut command = child_command(row, config)?;
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
pub fn run(
    rows: &[String],
    quick: bool,
    count_instructions: bool,
    dir: &std::path::Path,
    say: &dyn Fn(&str),
) -> (Vec<Value>, Vec<Value>) {
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
    let mut summary: Vec<Value> = selected.iter().flat_map(|&row| summary_rows(row, &runs, &failed)).collect();
    if count_instructions && !quick && crate::callgrind::available().is_some() {
        for row in summary.iter_mut() {
            let (Some(index), Some(config)) = (
                APP_ROWS.iter().position(|spec| row["id"] == spec.id && row["name"] == spec.name),
                row["variant"].as_str().and_then(Config::parse),
            ) else {
                continue;
            };
            eprint!("\r\x1b[Kcallgrind: {} {} ({:.0?})", APP_ROWS[index].id, config.name(), started.elapsed());
            match instructions(index, config, dir) {
                Ok(per_unit) => row["instructions_per_op"] = json!(per_unit),
                Err(reason) => {
                    say(&format!("no instruction count for {} {}: {reason}", APP_ROWS[index].id, config.name()))
                }
            }
        }
        eprintln!("\r\x1b[Kconfigurations counted in {:.1?}", started.elapsed());
    }
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
        let mut cpu: Vec<f64> = mine
            .iter()
            .flat_map(|run| run["samples_cpu_ns_per_op"].as_array().into_iter().flatten().filter_map(Value::as_f64))
            .collect();
        cpu.sort_by(f64::total_cmp);
        if let Kind::Proxy(_) = spec.kind {
            // Null where the thread's CPU time cannot be read (not Linux).
            summary["cpu_ns_per_op"] = if cpu.is_empty() {
                Value::Null
            } else {
                json!({ "median": median(&cpu), "min": cpu[0], "max": cpu[cpu.len() - 1] })
            };
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
        "\nconfigurations (M1: application-over-library); A1: requests/s median (min-max), KB, allocations and user-space instructions per request, latency per request, CPU time per request (all three on one thread); B9, B10: ns/op median (min-max), bytes, allocations and instructions per op"
    );
    let _ = write!(out, "{:<6} {:<44}", "row", "scenario (unit)");
    for config in configs {
        let _ = write!(out, " {:>30}", config.name());
    }
    let _ = writeln!(out);
    for spec in APP_ROWS {
        let of_row: Vec<&Value> = rows.iter().filter(|row| row["id"] == spec.id && row["name"] == spec.name).collect();
        if of_row.is_empty() {
            continue;
        }
        let proxy = matches!(spec.kind, Kind::Proxy(_));
        // Proxy rows: rate, memory, latency; lab rows: time, memory.
        for line in 0..if proxy { 4 } else { 2 } {
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
                    Some(row) if line == 3 => match row["cpu_ns_per_op"].as_object() {
                        Some(cpu) => format!(
                            "cpu {:.1} us ({:.1}-{:.1})",
                            cpu["median"].as_f64().unwrap_or(f64::NAN) / 1000.0,
                            cpu["min"].as_f64().unwrap_or(f64::NAN) / 1000.0,
                            cpu["max"].as_f64().unwrap_or(f64::NAN) / 1000.0
                        ),
                        None => "cpu: not read here".to_owned(),
                    },
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
                        let instructions = match row["instructions_per_op"].as_f64() {
                            Some(count) if proxy => format!(", {:.1}k instr", count / 1000.0),
                            Some(count) => format!(", {count:.0} instr"),
                            None => String::new(),
                        };
                        if proxy {
                            format!("{:.2} KB, {allocs:.1} allocs{instructions}", bytes / 1000.0)
                        } else {
                            format!("{bytes:.0} B, {allocs:.2} allocs{instructions}")
                        }
                    }
                };
                let _ = write!(out, " {cell:>30}");
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

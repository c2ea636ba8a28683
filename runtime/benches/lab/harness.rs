//! The run: options, checks, one child process per row and variant, rounds, callgrind, and
//! the files the run leaves.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};
use workloads::Variant;

use crate::measure::{self, Protocol};
use crate::scenarios::{SCENARIOS, Scenario, Subject};
use crate::{callgrind, report};

struct Options {
    quick: bool,
    json: bool,
    instructions: bool,
    /// Only these row ids (`--rows B2,B3`); every row when empty.
    rows: Vec<String>,
    /// Where the files go (`--out DIR`); `target/lowering-bench/` by default.
    out: Option<PathBuf>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options { quick: false, json: false, instructions: true, rows: Vec::new(), out: None };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--rows" => {
                    let list = args.next().ok_or("--rows takes a list of row ids, such as B2,B3")?;
                    options.rows = list.split(',').map(|id| id.trim().to_owned()).collect();
                    if let Some(unknown) = options.rows.iter().find(|id| {
                        !SCENARIOS.iter().any(|scenario| scenario.id == id.as_str()) && !crate::app_run::knows(id)
                    }) {
                        return Err(format!("no row `{unknown}` (rows are B1-B16, A1, A1-8k)"));
                    }
                }
                "--out" => options.out = Some(PathBuf::from(args.next().ok_or("--out takes a directory")?)),
                "--quick" => options.quick = true,
                "--json" => options.json = true,
                "--no-instructions" => options.instructions = false,
                // `cargo bench` passes `--bench` to every bench target.
                "--bench" => {}
                "--help" | "-h" => {
                    return Err(
                        "usage: cargo bench -p lowering -- [--quick] [--json] [--no-instructions] [--rows B2,B3,..] [--out DIR]"
                            .to_owned(),
                    );
                }
                other => return Err(format!("unknown option `{other}` (try --help)")),
            }
        }
        Ok(options)
    }

    /// What distinguishes this run's files from a full run's: a quick or partial run writes
    /// beside the full run's `summary.json` (`summary-quick.json`, `summary-rows-B3-B6.json`)
    /// rather than over it, so that no lesser run replaces a better one.
    fn file_suffix(&self) -> String {
        let mut suffix = String::new();
        if self.quick {
            suffix.push_str("-quick");
        }
        if !self.rows.is_empty() {
            suffix.push_str("-rows-");
            suffix.push_str(&self.rows.join("-"));
        }
        suffix
    }
}

/// A child: measure one row for one subject and print the result as one JSON line; or, with
/// `--count-instructions N`, run N operations in the counted region for callgrind.
pub fn child(args: &[String]) -> Result<(), String> {
    let value_of = |name: &str| args.iter().position(|arg| arg == name).and_then(|index| args.get(index + 1));
    let row: usize = value_of("--row").and_then(|row| row.parse().ok()).ok_or("a child needs --row")?;
    let scenario = SCENARIOS.get(row).ok_or("no such row")?;
    let subject = value_of("--subject").and_then(|name| Subject::parse(name)).ok_or("a child needs --subject")?;
    // Panics are part of some rows (B8); their messages are not output.
    std::panic::set_hook(Box::new(|_| {}));
    if let Some(ops) = value_of("--count-instructions") {
        let ops: u64 = ops.parse().map_err(|_| "--count-instructions takes a number")?;
        // As in the timed samples, the counting allocator is off: its atomics are not an
        // operation's cost.
        lowering::alloc::set_counting(false);
        // Once outside the region: first-use initialization is not an operation's cost.
        (scenario.run)(subject, ops);
        measure::lowering_lab_counted_region(scenario, subject, ops);
        return Ok(());
    }
    let protocol = if args.iter().any(|arg| arg == "--quick") { &Protocol::QUICK } else { &Protocol::FULL };
    let result = measure::measure(scenario, subject, protocol)?;
    println!("{result}");
    Ok(())
}

fn spawn_child(row: usize, subject: Subject, extra: &[&str]) -> Result<Command, String> {
    let exe = std::env::current_exe().map_err(|error| format!("cannot find this executable: {error}"))?;
    let mut command = Command::new(exe);
    command.args(["--child", "--row", &row.to_string(), "--subject", subject.name()]).args(extra);
    Ok(command)
}

fn run_child(row: usize, subject: Subject, quick: bool) -> Result<Value, String> {
    let extra: &[&str] = if quick { &["--quick"] } else { &[] };
    let output =
        spawn_child(row, subject, extra)?.output().map_err(|error| format!("cannot start a child: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "row {} ({}) failed for {}: {}",
            SCENARIOS[row].id,
            SCENARIOS[row].name,
            subject.name(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    serde_json::from_slice(&output.stdout).map_err(|error| format!("unreadable child output: {error}"))
}

/// `--out DIR`, or `target/lowering-bench/` next to the profile directory this executable runs
/// from (`target/<profile>/deps/lab-<hash>`).
fn output_dir(out: Option<&PathBuf>) -> Result<PathBuf, String> {
    let dir = match out {
        Some(dir) => dir.clone(),
        None => {
            let exe = std::env::current_exe().map_err(|error| error.to_string())?;
            exe.ancestors().nth(3).ok_or("cannot find the target directory")?.join("lowering-bench")
        }
    };
    std::fs::create_dir_all(&dir).map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    Ok(dir)
}

/// What the run measured: the commit, whether the working tree had changes, and when it was
/// written, so that a reader of `summary.json` (`inspect --html`) can tell a stale summary.
fn source() -> Value {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let written =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|since| since.as_secs()).unwrap_or(0);
    json!({
        "commit": git(&["rev-parse", "HEAD"]),
        "dirty": git(&["status", "--porcelain"]).map(|status| !status.is_empty()),
        "written_unix": written,
    })
}

fn subjects(scenario: &Scenario, timed: &[Variant], rows: &[String]) -> Vec<Subject> {
    if !rows.is_empty() && !rows.iter().any(|id| id == scenario.id) {
        Vec::new()
    } else if scenario.control {
        vec![Subject::Control]
    } else if scenario.decomposed {
        Subject::DECOMPOSITION
            .into_iter()
            .filter(|subject| match subject {
                Subject::Variant(variant) => timed.contains(variant),
                _ => true,
            })
            .collect()
    } else {
        timed.iter().map(|&variant| Subject::Variant(variant)).collect()
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    let options = Options::parse(args)?;
    let started = Instant::now();
    // Progress and the check table go to stderr when stdout carries JSON.
    let say = |text: &str| if options.json { eprintln!("{text}") } else { println!("{text}") };

    let checks = workloads::checks::run(&Variant::BOTH);
    say(&workloads::checks::table(&checks));
    let timed: Vec<Variant> = Variant::BOTH
        .into_iter()
        .filter(|variant| checks.iter().all(|check| check.variant != *variant || check.passed()))
        .collect();
    for variant in Variant::BOTH {
        if !timed.contains(&variant) {
            say(&format!("not timing {}: it failed a behaviour check", variant.name()));
        }
    }

    // Round 1 in table order, round 2 with each row's variants reversed.
    let rounds = if options.quick { 1 } else { 2 };
    let mut results: Vec<Vec<Value>> = vec![Vec::new(); SCENARIOS.len()];
    for round in 0..rounds {
        for (row, scenario) in SCENARIOS.iter().enumerate() {
            let mut order = subjects(scenario, &timed, &options.rows);
            if round == 1 {
                order.reverse();
            }
            for subject in order {
                eprint!(
                    "\r\x1b[Kround {}/{rounds}: {} {} {} ({:.0?})",
                    round + 1,
                    scenario.id,
                    scenario.name,
                    subject.name(),
                    started.elapsed()
                );
                let mut value = run_child(row, subject, options.quick)?;
                value["round"] = json!(round + 1);
                results[row].push(value);
            }
        }
    }
    eprintln!("\r\x1b[Kmeasured in {:.1?}", started.elapsed());

    let valgrind = if options.quick || !options.instructions { None } else { callgrind::available() };
    let mut instructions: Vec<Vec<(Subject, u64, u64, f64)>> = vec![Vec::new(); SCENARIOS.len()];
    if valgrind.is_some() {
        let out_dir = output_dir(options.out.as_ref())?;
        for (row, scenario) in SCENARIOS.iter().enumerate() {
            for subject in subjects(scenario, &timed, &options.rows) {
                eprint!(
                    "\r\x1b[Kcallgrind: {} {} {} ({:.0?})",
                    scenario.id,
                    scenario.name,
                    subject.name(),
                    started.elapsed()
                );
                let n = (scenario.base_ops / 64).max(256);
                let out_file = out_dir.join(format!("callgrind-{row}-{}.out", subject.name()));
                let small = callgrind::count(
                    &mut spawn_child(row, subject, &["--count-instructions", &n.to_string()])?,
                    &out_file,
                )?;
                let large = callgrind::count(
                    &mut spawn_child(row, subject, &["--count-instructions", &(2 * n).to_string()])?,
                    &out_file,
                )?;
                let extra_units = measure::units(scenario, 2 * n) - measure::units(scenario, n);
                let per_op = large.saturating_sub(small) as f64 / extra_units as f64;
                instructions[row].push((subject, small, large, per_op));
            }
        }
        eprintln!("\r\x1b[Kcounted instructions in {:.1?}", started.elapsed());
    }

    // The configuration rows (A1, and M1 in B9 and B10): their own children and rounds.
    let (app_runs, app_rows) = crate::app_run::run(
        &options.rows,
        options.quick,
        options.instructions,
        &output_dir(options.out.as_ref())?,
        &say,
    );

    let machine = report::machine(valgrind.as_deref());
    let mut rows = report::rows(&results, &instructions);
    rows.extend(app_rows);
    let summary = json!({
        "schema": 1, "machine": machine, "source": source(), "quick": options.quick,
        "rows_requested": options.rows, "rows": rows,
    });
    let raw = json!({
        "schema": 1,
        "machine": summary["machine"].clone(),
        "checks": checks.iter().map(|check| json!({
            "id": check.id, "name": check.name, "variant": check.variant.name(),
            "passed": check.passed(), "detail": match &check.outcome { Ok(seen) => seen, Err(problem) => problem },
        })).collect::<Vec<_>>(),
        "runs": results.iter().flatten().chain(&app_runs).cloned().collect::<Vec<_>>(),
        "callgrind": instructions.iter().enumerate().flat_map(|(row, counts)| counts.iter().map(move |(subject, small, large, per_op)| json!({
            "id": SCENARIOS[row].id, "name": SCENARIOS[row].name, "variant": subject.name(),
            "instructions_small_run": small, "instructions_large_run": large, "instructions_per_op": per_op,
        }))).collect::<Vec<_>>(),
    });
    let dir = output_dir(options.out.as_ref())?;
    let write = |name: &str, value: &Value| -> Result<(), String> {
        let path = dir.join(name);
        let text = serde_json::to_string_pretty(value).map_err(|error| error.to_string())?;
        std::fs::write(&path, text).map_err(|error| format!("cannot write {}: {error}", path.display()))
    };
    let suffix = options.file_suffix();
    write(&format!("summary{suffix}.json"), &summary)?;
    write(&format!("raw{suffix}.json"), &raw)?;

    if options.json {
        println!("{}", serde_json::to_string_pretty(&summary).map_err(|error| error.to_string())?);
    } else {
        println!("{}", report::table(&summary));
        println!("{}", crate::app_run::table(summary["rows"].as_array().map(Vec::as_slice).unwrap_or_default()));
        match &valgrind {
            Some(version) => println!("instructions/op: {version}, callgrind, counted in the measured region only"),
            None if options.quick => println!("instructions/op: not counted in --quick"),
            None if !options.instructions => println!("instructions/op: not counted (--no-instructions)"),
            None => println!("instructions/op: valgrind not found; install it to count instructions"),
        }
        println!("raw samples: {}", dir.join(format!("raw{suffix}.json")).display());
        println!("summary: {}", dir.join(format!("summary{suffix}.json")).display());
    }
    Ok(())
}

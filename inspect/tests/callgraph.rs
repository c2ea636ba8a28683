//! `inspect callgraph` at a small depth: every shape built under both lowerings, and what each
//! executable holds counted exactly (async fns, records by lowering, generated state-machine
//! types in the symbol names); the generated crates run; a build past its timeout is stopped and
//! the deeper depths skipped. Never a time: times are measured, not asserted.
//!
//! The generated workspace and its target dir live in `<workspace target>/tmp/callgraph`, which
//! later runs reuse (its dependencies build once).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

use serde_json::Value;

/// The runs share the generated workspace; one at a time.
static RUNS: Mutex<()> = Mutex::new(());

fn dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("callgraph")
}

fn callgraph(args: &[&str]) -> (Output, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_inspect"))
        .arg("callgraph")
        .args(["--dir", dir().to_str().expect("a UTF-8 path"), "--json"])
        .args(args)
        .output()
        .expect("inspect runs");
    assert!(output.status.success(), "inspect callgraph {args:?} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    let results: Value = serde_json::from_slice(&output.stdout).expect("the results are JSON");
    (output, results)
}

#[test]
fn every_shape_builds_under_both_lowerings_and_holds_exactly_what_was_generated() {
    let _one_at_a_time = RUNS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let (_, results) = callgraph(&["--depths", "3", "--keep-binaries", "--timeout", "300"]);
    assert_eq!(results["schema"], 1);
    assert_eq!(results["complete"], true);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(dir().join("results.json")).expect("results.json is written"))
            .expect("results.json is JSON");
    assert_eq!(written, results, "--json prints what results.json holds");

    let builds = results["builds"].as_array().expect("builds");
    let order: Vec<String> = builds
        .iter()
        .map(|build| format!("{} {}", build["shape"].as_str().unwrap_or(""), build["variant"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(
        order,
        ["chain classic", "chain runtime", "dag classic", "dag runtime", "freeze classic", "freeze runtime"]
    );
    for build in builds {
        let name = build["package"].as_str().expect("a package");
        let variant = build["variant"].as_str().expect("a variant");
        let classic = variant == "classic";
        assert_eq!(build["outcome"], "built", "{name}: {}", build["detail"]);
        assert_eq!(build["depth"], 3);
        assert_eq!(build["functions"], 4, "{name}: main_0 to main_3");
        assert_eq!(build["paths"], if build["shape"] == "chain" { 1 } else { 3 }, "{name}");
        assert!(build["rustc"]["cpu_ms"].is_u64() && build["rustc"]["max_rss_kib"].is_u64(), "{name} is timed");
        let binary = &build["binary"];
        assert!(binary["bytes"].as_u64() > Some(0), "{name}");
        // The records the executable prints: one per async fn, each with the lowering asked
        // for, and a generated type for each classic one.
        let records = &binary["records"];
        assert_eq!(records["lowerings"], serde_json::json!({ variant: 4 }), "{name}");
        assert_eq!(records["generated_types"], if classic { 4 } else { 0 }, "{name}");
        // The symbol table: a record static per fn, and the classic fns' state-machine types.
        // `main_3` awaits nothing: its state machine holds only its state number, has no drop
        // glue and no generic parameter, so no symbol's name spells it (legacy mangling hashes
        // the arguments of generic functions). Each caller's state machine is generic over its
        // awaiter, whose witness names the callee's body, never the callee's state machine.
        let symbols = &binary["symbols"];
        assert_eq!(symbols["record_symbols"], 4, "{name}");
        // The freeze crate (optimized, fat LTO) only makes the root and drops it unpolled:
        // what survives is `main_0`'s, and no callee's type is inside it to be spelled.
        let state_machine_types = match (classic, build["shape"].as_str()) {
            (false, _) => 0,
            (true, Some("freeze")) => 1,
            (true, _) => 3,
        };
        assert_eq!(symbols["state_machine_types"], state_machine_types, "{name}");
        assert!(symbols["longest_bytes"].as_u64() > Some(0) && symbols["count"].as_u64() > Some(100), "{name}");

        // The crate on disk is the generated one.
        let source = std::fs::read_to_string(dir().join(format!("workspace/crates/{name}/src/main.rs")))
            .expect("the generated source");
        assert_eq!(source.matches("async fn main_").count(), 4, "{name}");
        assert_eq!(source.matches(&format!("#[lowering({variant})]")).count(), 4, "{name}");
        let awaits = if build["shape"] == "chain" { 3 } else { 5 };
        assert_eq!(source.matches("().await;").count(), awaits, "{name}");

        // And it runs: the chain and the dag to completion, the freeze crate makes its root.
        let executable = binary["path"].as_str().expect("a path");
        assert_eq!(binary["kept"], true);
        let ran = Command::new(executable).arg("run").output().expect("the executable runs");
        let stdout = String::from_utf8_lossy(&ran.stdout);
        assert!(ran.status.success(), "{name} run: {}", String::from_utf8_lossy(&ran.stderr));
        if build["shape"] == "freeze" {
            assert!(stdout.starts_with("root future: ") && stdout.ends_with(" bytes\n"), "{name}: {stdout}");
        } else {
            assert_eq!(stdout, "done\n", "{name}");
        }
    }
    let settings = &results["settings"];
    assert_eq!(settings["incremental"], false);
    assert_eq!(settings["memory_limit_mib"], 8192);
    assert!(
        results["dependencies"]["wall_ms"]["dev"].is_u64() && results["dependencies"]["wall_ms"]["freeze"].is_u64()
    );
}

#[test]
fn a_build_past_its_timeout_is_stopped_and_the_deeper_depths_are_skipped() {
    let _one_at_a_time = RUNS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // No cargo starts and builds within a millisecond.
    let (output, results) =
        callgraph(&["--depths", "2,3", "--shapes", "chain", "--variants", "classic", "--timeout", "0.001"]);
    let builds = results["builds"].as_array().expect("builds");
    assert_eq!(builds.len(), 2);
    assert_eq!(builds[0]["outcome"], "timeout");
    assert_eq!(builds[0]["detail"], "stopped after 0.001 s (the timeout)");
    assert_eq!(builds[0]["binary"], Value::Null);
    assert_eq!(builds[1]["outcome"], "skipped");
    assert_eq!(builds[1]["detail"], "not built: depth 2 did not build (timeout)");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("callgraph: chain 3 classic: skipped (depth 2 did not build (timeout))"), "{stderr}");
}

#[test]
fn the_table_names_every_column_and_bad_arguments_are_errors() {
    let output = Command::new(env!("CARGO_BIN_EXE_inspect")).args(["callgraph", "--help"]).output().expect("runs");
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success() && help.starts_with("usage: inspect callgraph"), "{help}");
    let output =
        Command::new(env!("CARGO_BIN_EXE_inspect")).args(["callgraph", "--depths", "4,x"]).output().expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a bad depth fails");
    assert!(stderr.starts_with("inspect: error: --depths: `x` is not a depth"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

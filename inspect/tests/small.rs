//! `inspect` on the smallest crates (`tests/fixtures/one-fn`, `tests/fixtures/no-fn`): what it
//! says about a crate must be right for any crate, so each claim is asserted exactly.
//!
//! Each fixture builds into `CARGO_TARGET_TMPDIR`, which later runs reuse.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn inspect(fixture: &str, args: &[&str]) -> Output {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(fixture).join("Cargo.toml");
    Command::new(env!("CARGO_BIN_EXE_inspect"))
        .arg("--manifest-path")
        .arg(manifest)
        .args(args)
        .env("CARGO_TARGET_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("inspect-{fixture}")))
        .output()
        .expect("inspect runs")
}

fn one_fn_report() -> Value {
    let output = inspect("one-fn", &["--json"]);
    assert!(output.status.success(), "inspect failed:\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("the report is JSON")
}

#[test]
fn one_classic_function_reads_as_classic() {
    let report = one_fn_report();
    let functions = report["functions"].as_array().expect("functions");
    assert_eq!(functions.len(), 1);
    let add = &functions[0];
    assert_eq!(
        (&add["name"], &add["variant"], &add["lowering"]),
        (&"add".into(), &"classic".into(), &"classic".into())
    );
    // The MIR's first body (the stub) follows rustc's comment banner: the shape is read, not unknown.
    assert_eq!(add["shape"], "classic");
    assert_eq!(add["generated_type"], "AddStateMachine");
}

#[test]
fn the_generated_type_is_counted() {
    let report = one_fn_report();
    let classic = &report["variants"]["classic"];
    assert_eq!(classic["functions"], 1, "{classic}");
    assert_eq!(classic["generated_types"], 1, "{classic}");
}

#[test]
fn a_stub_with_code_is_not_said_to_have_none() {
    let report = one_fn_report();
    let add = &report["functions"][0];
    assert!(add["native_bytes"].as_u64() > Some(0), "{add}");
    // Nothing polls the task in a library alone: the note names the poll, not the whole function.
    assert_eq!(
        add["note"],
        "no code for its task's poll: nothing in the crate instantiates it (no entry point keeps it)"
    );
}

#[test]
fn no_annotated_function_is_said_plainly() {
    let output = inspect("no-fn", &["--json"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("no-fn has no lowering records: no function in it carries #[lowering(..)]"), "{stderr}");
    assert!(!stderr.contains("debuginfo"), "inspect built it with debug info itself:\n{stderr}");
}

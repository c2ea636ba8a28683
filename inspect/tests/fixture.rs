//! `inspect` on a small fixture crate (`tests/fixture`): its counts are asserted exactly, so
//! that a change in what the macro generates (types, records, frames per level) fails here.
//!
//! The fixture builds into `<workspace target>/tmp/inspect-fixture`, which later runs reuse.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixture_manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture/Cargo.toml")
}

fn inspect(args: &[&str]) -> Output {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("inspect-fixture");
    let output = Command::new(env!("CARGO_BIN_EXE_inspect"))
        .arg("--manifest-path")
        .arg(fixture_manifest())
        .args(args)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("inspect runs");
    assert!(output.status.success(), "inspect {args:?} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    output
}

fn frames(stacks: &Value, scenario: &str, variant: &str) -> u64 {
    stacks[scenario][variant]["frames"].as_u64().unwrap_or_else(|| panic!("no {scenario} frames for {variant}"))
}

#[test]
fn the_fixture_report_counts_exactly() {
    let output = inspect(&["--json"]);
    let report: Value = serde_json::from_slice(&output.stdout).expect("the report is JSON");
    assert_eq!(report["schema"], 1);
    assert_eq!(report["crate"]["name"], "lowering_fixture");

    // I1, I2: eleven functions per variant, each with the lowering its module asks for, read
    // from the object; classic generates one named type each, runtime none and one
    // coroutine body each instead.
    let functions = report["functions"].as_array().expect("functions");
    assert_eq!(functions.len(), 22);
    for function in functions {
        let name = function["name"].as_str().unwrap_or_default();
        assert_eq!(function["lowering"], function["variant"], "{name}");
        assert_eq!(function["shape"], function["variant"], "{name}: the MIR agrees with the record");
        assert!(function["mir"]["basic_blocks"].as_u64() > Some(0), "{name} has MIR");
        assert!(function["state_bytes"].as_u64() > Some(0), "{name} has a state size");
        let has_code = function["native_bytes"].as_u64() > Some(0)
            || !function["merged_into"].as_array().is_none_or(Vec::is_empty);
        assert!(has_code, "{name} ({}) has code in the artifact", function["variant"]);
    }
    // Each function at its own line (the record's span is the function's, not `both!`'s).
    let line_of = |name: &str, variant: &str| {
        functions.iter().find(|f| f["name"] == name && f["variant"] == variant).and_then(|f| f["line"].as_u64())
    };
    for variant in ["classic", "runtime"] {
        assert_eq!((line_of("level3", variant), line_of("level2", variant)), (Some(11), Some(12)), "{variant}");
    }
    let variants = &report["variants"];
    // I8: each variant built alone (`--cfg lowering_only`) and timed.
    for variant in ["classic", "runtime"] {
        assert!(variants[variant]["build_ms"].as_u64().is_some(), "{variant}: {}", variants[variant]["build_note"]);
    }
    assert_eq!(variants["classic"]["generated_types"], 11);
    assert_eq!(variants["classic"]["coroutine_bodies"], 0);
    assert_eq!(variants["runtime"]["generated_types"], 0);
    assert_eq!(variants["runtime"]["coroutine_bodies"], 11);
    assert!(variants["classic"]["text_bytes"].as_u64() > variants["runtime"]["text_bytes"].as_u64());
    assert!(variants["classic"]["expanded_lines"].as_u64() > variants["runtime"]["expanded_lines"].as_u64());

    // D1-D3, debug build: operation frames at the bottom of the 3-level chain, of the
    // recursion, and after a real suspension.
    let stacks = &report["stacks"];
    assert_eq!((frames(stacks, "chain3", "classic"), frames(stacks, "chain3", "runtime")), (24, 3));
    assert_eq!((frames(stacks, "after_yield", "classic"), frames(stacks, "after_yield", "runtime")), (12, 1));
    let recursion = |stacks: &Value, variant: &str| {
        let depths = &stacks["recursive"][variant];
        (depths["0"].as_u64(), depths["3"].as_u64(), depths["10"].as_u64(), depths["per_level"].as_f64())
    };
    assert_eq!(recursion(stacks, "classic"), (Some(8), Some(32), Some(88), Some(8.0)));
    assert_eq!(recursion(stacks, "runtime"), (Some(1), Some(7), Some(21), Some(2.0)));
    // Release build with line tables: inlining changes the frames, not the levels' shape.
    assert_eq!(recursion(&stacks["release"], "classic").3, Some(7.0));
    assert_eq!(recursion(&stacks["release"], "runtime").3, Some(2.0));

    // D4: without a suspension, the panic report is the same in both variants; so is the
    // error's text.
    for (what, identical) in stacks["panic"]["sync"]["identical"].as_object().expect("panic comparison") {
        assert_eq!(identical, true, "panic without suspension: {what}");
    }
    assert_eq!(stacks["error"]["err3"]["identical"]["display"], true);
    assert_eq!(stacks["error"]["err3"]["variants"]["classic"], "invalid digit found in string");

    // A dump shows both variants of the function.
    let dump = String::from_utf8_lossy(&inspect(&["--function", "level1", "--mir"]).stdout).into_owned();
    assert!(dump.contains("==== classic `lowering_fixture::classic::level1`"), "{dump}");
    assert!(dump.contains("==== runtime `lowering_fixture::runtime::level1`"), "{dump}");
    assert!(dump.contains("Level1StateMachine"), "the classic dump shows the generated type");
}

#[test]
fn bad_arguments_are_refused_before_anything_is_built() {
    let output = Command::new(env!("CARGO_BIN_EXE_inspect")).arg("--frobnicate").output().expect("inspect runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unknown argument `--frobnicate`") && stderr.contains("usage:"), "{stderr}");
}

//! `inspect crate --memcheck` on `tests/fixtures/crate-fixture` (the fixture of
//! `crate_command.rs`): the classic build's test binaries run again under valgrind's memcheck,
//! a row per binary (tests run, failed, errors, verdict), the total line, the `memcheck` object
//! of the results, and the exit status. Every fn but the one the classic lowering refuses, so
//! that the exit status is memcheck's to decide; no figures, to keep it short. Skipped, saying
//! so, where valgrind is missing and cannot be installed (apt-get as root).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crate-fixture")
}

/// valgrind is there, or `inspect crate` can install it as `scripts/memcheck.sh` does.
fn valgrind_can_be_had() -> Result<(), String> {
    let runs = |program: &str| {
        Command::new(program)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    if runs("valgrind") {
        return Ok(());
    }
    let root = Command::new("id").arg("-u").output().is_ok_and(|output| output.stdout.trim_ascii() == b"0");
    if runs("apt-get") && root {
        return Ok(());
    }
    Err("valgrind is not installed, and apt-get as root is not available to install it".to_owned())
}

/// Every fixture fn but `send_last`, which the classic lowering refuses without a hint.
const ONLY: &str =
    "^(add|Counter::bump|Source::twice|<Counter as Source>::get|Sender::send|bin:crate-fixture::greet|store::.*) ";

#[test]
fn memcheck_runs_each_test_binary_of_the_classic_build_and_counts_valgrinds_errors() {
    if let Err(why) = valgrind_can_be_had() {
        // Past libtest's capture, so that it shows even when the test passes.
        let _ = writeln!(std::io::stderr(), "skipping the memcheck test: {why}");
        return;
    }
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("crate-command").join("memcheck");
    let output = Command::new(env!("CARGO_BIN_EXE_inspect"))
        .arg("crate")
        .arg(fixture())
        .args(["--memcheck", "--memcheck-timeout", "600", "--no-figures", "--only", ONLY])
        .arg("--dir")
        .arg(&work)
        .output()
        .expect("running inspect");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Vec<&str> = stdout.lines().collect();
    let start = report
        .iter()
        .position(|line| line.starts_with("memcheck ("))
        .unwrap_or_else(|| panic!("no memcheck section:\n{stdout}\n{stderr}"));
    let section: Vec<&str> = report[start..].iter().take_while(|line| !line.is_empty()).copied().collect();
    assert!(
        section[0].starts_with("memcheck (valgrind-")
            && section[0].ends_with(
                " --quiet --error-exitcode=99 --errors-for-leak-kinds=none; the classic build's test binaries, each \
                 with --test-threads=1, at most 600 s):"
            ),
        "{stdout}"
    );
    assert_eq!(
        section[1..],
        [
            "  binary                           tests run failed errors  verdict",
            "  bin crate-fixture                        0      0      0  clean",
            "  lib                                      2      0      0  clean",
            "  test integration                         2      0      0  clean",
            "  doc tests: not run under memcheck (out of scope: rustdoc builds and runs each doc test itself)",
            "memcheck: 3 test binaries, 0 errors",
        ],
        "{stdout}\n{stderr}"
    );
    assert!(stdout.contains("\n  classic   7/7\n"), "{stdout}");
    assert_eq!(
        report.last().copied(),
        Some(
            "crate crate-fixture: 8/8 async fns lowered classic (0 with hints); tests 7/7 pass with them (runtime \
             baseline 7/7)"
        )
    );
    assert_eq!(output.status.code(), Some(0), "every fn accepted, every test passing, memcheck clean:\n{stderr}");

    // The same in the results (`--json` prints them).
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(work.join("results.json")).unwrap()).unwrap();
    let memcheck = &results["memcheck"];
    assert_eq!(memcheck["status"], "run");
    assert_eq!(memcheck["errors"], 0);
    assert_eq!(memcheck["clean"], true);
    assert_eq!(memcheck["configuration"], "classic");
    assert_eq!(
        memcheck["flags"],
        serde_json::json!(["--quiet", "--error-exitcode=99", "--errors-for-leak-kinds=none"])
    );
    let rows: Vec<(&str, u64, u64, u64, &str)> = memcheck["binaries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|binary| {
            (
                binary["name"].as_str().unwrap(),
                binary["tests_run"].as_u64().unwrap(),
                binary["tests_failed"].as_u64().unwrap(),
                binary["errors"].as_u64().unwrap(),
                binary["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [("bin crate-fixture", 0, 0, 0, "clean"), ("lib", 2, 0, 0, "clean"), ("test integration", 2, 0, 0, "clean"),]
    );
    // valgrind really ran each one: its XML output, finished, with its count.
    for binary in memcheck["binaries"].as_array().unwrap() {
        let xml = std::fs::read_to_string(binary["xml"].as_str().unwrap()).unwrap();
        assert!(xml.contains("<state>FINISHED</state>") && xml.contains("<errorcounts>"), "{xml}");
        assert!(xml.contains("<arg>--errors-for-leak-kinds=none</arg>"), "{xml}");
    }
}

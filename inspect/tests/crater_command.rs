//! `inspect crater` on a list of two fixture crates and one that cannot be fetched: the run is
//! killed once the first crate's row is saved, then run again, which skips what was done,
//! finishes the rest, and writes the whole table; a crate that fails is a row, not the end.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn work() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("crater-command")
}

fn crater(list: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_inspect"));
    command
        .arg("crater")
        .arg(list)
        .args(["--dir", work().join("dir").to_str().unwrap(), "--lab", "worktree", "--no-figures"])
        .args(extra);
    command
}

fn run(list: &Path, extra: &[&str]) -> Output {
    crater(list, extra).output().expect("running inspect crater")
}

#[test]
fn a_killed_run_resumes_where_it_stopped_and_writes_one_table() {
    let dir = work().join("dir");
    let _ = std::fs::remove_dir_all(dir.join("rows"));
    let _ = std::fs::remove_file(dir.join("crater.json"));
    std::fs::create_dir_all(work()).unwrap();
    let list = work().join("list.txt");
    std::fs::write(
        &list,
        format!(
            "# two fixtures and a crate that does not exist\n{}\nno-such-crate-at-all-lowering@0.0.1\n{}  # fails unchanged\n",
            fixture("hints").display(),
            fixture("needs-server").display()
        ),
    )
    .unwrap();

    // Killed, with everything it started, once the first crate's row is saved.
    let first_row = dir.join("rows/hints.json");
    let mut child = crater(&list, &[]).stdout(Stdio::null()).stderr(Stdio::null()).process_group(0).spawn().unwrap();
    let started = Instant::now();
    while !first_row.is_file() {
        assert!(child.try_wait().unwrap().is_none(), "the crater ended before it was interrupted");
        assert!(started.elapsed() < Duration::from_secs(1800), "no row after 30 minutes");
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: `kill` sends a signal to the process group this test started.
    unsafe {
        libc::kill(-(child.id() as i32), libc::SIGKILL);
    }
    let _ = child.wait();
    let saved = std::fs::read(&first_row).unwrap();
    let interrupted: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("crater.json")).unwrap()).unwrap();
    assert_eq!(interrupted["rows"].as_array().unwrap().len() + interrupted["pending"].as_array().unwrap().len(), 3);
    assert!(!interrupted["pending"].as_array().unwrap().is_empty(), "{interrupted}");

    let output = run(&list, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("hints: already done"), "{stderr}");
    assert_eq!(std::fs::read(&first_row).unwrap(), saved, "the done crate was not run again");
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");

    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("crater.json")).unwrap()).unwrap();
    assert_eq!(table["pending"], serde_json::json!([]));
    let rows = table["rows"].as_array().unwrap();
    let row = |key: &str| rows.iter().find(|row| row["key"] == key).unwrap_or_else(|| panic!("no {key}: {table}"));
    let hints = row("hints");
    assert_eq!(
        hints["last_line"],
        "crate hints: 7/7 async fns lowered classic (3 with hints); tests 3/3 pass with them (runtime baseline 3/3)"
    );
    assert_eq!(
        (hints["functions"].as_u64(), hints["accepted"].as_u64(), hints["hinted"].as_u64()),
        (Some(7), Some(7), Some(3))
    );
    assert_eq!(hints["classic"], serde_json::json!({"passed": 3, "total": 3}));
    let missing = row("no-such-crate-at-all-lowering-0.0.1");
    assert_eq!(missing["status"], "error");
    assert!(missing["detail"].as_str().unwrap().contains("could not be fetched"), "{missing}");
    let server = row("needs-server");
    assert_eq!(server["status"], "done");
    assert_eq!(server["classic"], serde_json::Value::Null);
    assert!(server["tests_not_run"].as_str().unwrap().contains("fail unchanged"), "{server}");
    let totals = &table["totals"];
    assert_eq!(
        (totals["functions"].as_u64(), totals["accepted"].as_u64(), totals["hinted"].as_u64()),
        (Some(9), Some(9), Some(3))
    );
    assert_eq!(
        (totals["measured"].as_u64(), totals["not_measured"].as_u64(), totals["tested_crates"].as_u64()),
        (Some(2), Some(1), Some(1))
    );

    // The terminal table: a line per crate and the totals last.
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines.iter().any(|line| line.starts_with("no-such-crate-at-all-lowering@0.0.1") && line.contains("error: ")),
        "{stdout}"
    );
    assert!(
        lines.iter().any(|line| line.starts_with("hints@0.1.0") && line.contains(" 7/7 ") && line.contains(" 3/3 ")),
        "{stdout}"
    );
    assert_eq!(
        lines.last().copied(),
        Some(
            "crater: 9/9 async fns lowered classic (100.0 %), 3 with hints; tests 3/3 pass classic (100.0 %) in 1 \
             crates (runtime baseline 3/3); 2 of 3 crates measured"
        )
    );

    // The table alone, as Markdown, without running anything.
    let output = run(&list, &["--no-run", "--markdown"]);
    let markdown = String::from_utf8_lossy(&output.stdout);
    assert!(markdown.contains("| hints@0.1.0 | 2021 | 7/7 | 3 | 3/3 | 3/3 |  |\n"), "{markdown}");
    assert!(markdown.contains("\n    crater: 9/9 async fns lowered classic (100.0 %)"), "{markdown}");
    assert_eq!(output.status.code(), Some(0));

    // One run at a time in a directory.
    std::fs::write(dir.join("run.lock"), std::process::id().to_string()).unwrap();
    let output = run(&list, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("another inspect crater (process {}) is running", std::process::id())),
        "{stderr}"
    );
    std::fs::remove_file(dir.join("run.lock")).unwrap();

    // A row built against another lowering is run again.
    let missing_row = dir.join("rows/no-such-crate-at-all-lowering-0.0.1.json");
    let text = std::fs::read_to_string(&missing_row).unwrap();
    assert!(text.contains("\"lab_commit\": \"worktree\""), "{text}");
    std::fs::write(&missing_row, text.replace("\"lab_commit\": \"worktree\"", "\"lab_commit\": \"0123abc\"")).unwrap();
    let output = run(&list, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no-such-crate-at-all-lowering@0.0.1: running (its row was built against 0123abc)"),
        "{stderr}"
    );
    assert!(std::fs::read_to_string(&missing_row).unwrap().contains("\"lab_commit\": \"worktree\""));

    // `--again` runs a done crate again (the cheap one: it fails at once).
    let output = run(&list, &["--again", "no-such-crate-at-all-lowering"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no-such-crate-at-all-lowering@0.0.1: running"), "{stderr}");
    assert!(stderr.contains("hints: already done") && stderr.contains("needs-server: already done"), "{stderr}");
}

#[test]
fn bad_input_is_a_clear_error() {
    std::fs::create_dir_all(work()).unwrap();
    let bad_list = work().join("bad-list.txt");
    std::fs::write(&bad_list, "deadqueue@0.2.5 extra-word\n").unwrap();
    let good_list = work().join("good-list.txt");
    std::fs::write(&good_list, "deadqueue@0.2.5\n").unwrap();
    for (list, extra, said) in [
        (work().join("no-such-list.txt"), vec![], "reading the crate list"),
        (bad_list, vec![], "line 1: \"extra-word\" is neither an option nor a value"),
        (good_list.clone(), vec!["--again", "tokio"], "--again tokio: no such crate"),
        (good_list.clone(), vec!["--bogus"], "unknown option --bogus"),
        (good_list, vec!["--lab", "no-such-commit-anywhere"], "--lab no-such-commit-anywhere: no such commit"),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_inspect"));
        command.arg("crater").arg(&list).args(["--dir", work().join("bad").to_str().unwrap()]).args(&extra);
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{extra:?}: {stderr}");
        assert!(stderr.contains(said) && !stderr.contains("panicked"), "{extra:?}: {stderr}");
    }
}

//! `inspect crate` on `tests/fixtures/crate-fixture`: what it lowers, what it refuses and why,
//! the tests under each configuration, the last line and the exit status, asserted exactly;
//! the fixture's own files stay as they were. One run (its builds take a while), in a work
//! directory under CARGO_TARGET_TMPDIR that later runs reuse, so dependencies build once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crate-fixture")
}

/// `inspect crate ARGS` in the work directory `work` (one per test: they run in parallel, and
/// each run copies the fixture afresh).
fn inspect(work: &str, args: &[&str]) -> Output {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("crate-command").join(work);
    Command::new(env!("CARGO_BIN_EXE_inspect"))
        .arg("crate")
        .args(args)
        .arg("--dir")
        .arg(&work)
        .output()
        .expect("running inspect")
}

/// Every file of the fixture, by path, with its contents.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    found
}

const FUNCTIONS: &str = "\
add src/lib.rs:14
Counter::bump src/lib.rs:25
Source::twice src/lib.rs:35
<Counter as Source>::get src/lib.rs:41
Sender::send src/lib.rs:49
send_last src/lib.rs:56
bin:crate-fixture::greet src/main.rs:8
store::Store::load_twice src/store.rs:9
store::<Memory as Store>::load src/store.rs:18
9 async fns would be lowered in crate-fixture 0.1.0
";

#[test]
fn list_names_each_kind_and_leaves_entry_points_tests_macros_and_cfg_off_code() {
    let output = inspect("list", &[fixture().to_str().unwrap(), "--list"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout), FUNCTIONS);
    let extra =
        inspect("list", &[fixture().to_str().unwrap(), "--list", "--features", "extra", "--only", "extra|^add "]);
    assert_eq!(
        String::from_utf8_lossy(&extra.stdout),
        "extra::extra src/extra.rs:3\nadd src/lib.rs:14\n2 async fns would be lowered in crate-fixture 0.1.0\n"
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    for (args, said) in [
        (vec!["/no/such/crate"], "no such crate"),
        (vec!["no-such-crate-at-all-lowering@0.0.1"], "could not be fetched from crates.io"),
        (vec![fixture().to_str().unwrap(), "--placement", "sideways"], "--placement is outer or inner"),
        (vec![fixture().to_str().unwrap(), "--bogus"], "unknown option --bogus"),
        (vec![fixture().to_str().unwrap(), "--only", "("], "--only is not a regular expression"),
    ] {
        let output = inspect("bad-input", &args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(said) && !stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn the_fixture_is_lowered_fn_by_fn_and_its_tests_run_both_ways() {
    let before = files(&fixture());
    let output = inspect("run", &[fixture().to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(files(&fixture()), before, "the fixture's own files changed");
    let report: Vec<&str> = stdout.lines().collect();
    let section = |title: &str| -> Vec<&str> {
        let start = report
            .iter()
            .position(|line| *line == title)
            .unwrap_or_else(|| panic!("no {title:?}:\n{stdout}\n{stderr}"));
        report[start + 1..].iter().take_while(|line| !line.is_empty()).copied().collect()
    };
    assert_eq!(
        section("async fns (9):"),
        [
            "  accepted  add src/lib.rs:14",
            "  accepted  Counter::bump src/lib.rs:25",
            "  accepted  Source::twice src/lib.rs:35",
            "  accepted  <Counter as Source>::get src/lib.rs:41",
            "  accepted  Sender::send src/lib.rs:49",
            "  accepted  send_last src/lib.rs:56 (with keeps(tx))",
            "  accepted  bin:crate-fixture::greet src/main.rs:8",
            "  accepted  store::Store::load_twice src/store.rs:9",
            "  accepted  store::<Memory as Store>::load src/store.rs:18",
        ]
    );
    assert!(!stdout.contains("refusals by error code:"), "{stdout}");
    assert_eq!(section("tests passed:"), ["  reference 7/7", "  runtime   7/7", "  classic   7/7"]);
    assert_eq!(
        report.last().copied(),
        Some(
            "crate crate-fixture: 9/9 async fns lowered classic (1 with hints); tests 7/7 pass with them (runtime \
             baseline 7/7)"
        )
    );
    assert_eq!(output.status.code(), Some(0), "every fn lowered, with a hint, and every test passes");
    accepted_fns_have_their_figures_in_both_lowerings(&stdout);
}

/// The figures section of that run: the library inspected twice, each accepted library fn
/// (not the binary's) in both lowerings, by its own record.
fn accepted_fns_have_their_figures_in_both_lowerings(stdout: &str) {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("crate-command/run");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(work.join("results.json")).unwrap()).unwrap();
    let figures = &results["figures"];
    assert_eq!(figures["missing"], serde_json::Value::Null, "{stdout}");
    let builds: Vec<(&str, u64)> = figures["builds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|build| (build["configuration"].as_str().unwrap(), build["generated_types"].as_u64().unwrap()))
        .collect();
    assert_eq!(builds, [("classic", 8), ("runtime", 0)]);
    let functions = figures["functions"].as_array().unwrap();
    let paths: Vec<&str> = functions.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            "add",
            "Counter::bump",
            "Source::twice",
            "<Counter as Source>::get",
            "Sender::send",
            "send_last",
            "store::Store::load_twice",
            "store::<Memory as Store>::load",
        ]
    );
    for function in functions {
        assert_eq!(function["classic"]["lowering"], "classic", "{function}");
        assert_eq!(function["runtime"]["lowering"], "runtime", "{function}");
        assert!(function["classic"]["generated_type"].as_str().unwrap().ends_with("StateMachine"), "{function}");
        assert_eq!(function["runtime"]["generated_type"], serde_json::Value::Null, "{function}");
    }
    // A free fn and a method, non-generic: compiled in the library, so measured on both sides
    // (a trait's default method is generic over `Self`: no code, no sizes).
    for at in [0, 1, 4] {
        let function = &functions[at];
        for side in ["classic", "runtime"] {
            assert!(function[side]["state_bytes"].as_u64().is_some_and(|bytes| bytes > 0), "{function}");
            assert!(function[side]["native_bytes"].as_u64().is_some_and(|bytes| bytes > 0), "{function}");
        }
        assert!(function["classic"]["task_bytes"].as_u64().is_some(), "{function}");
    }
    assert_eq!(functions[2]["runtime"]["state_bytes"], serde_json::Value::Null);
    assert!(
        stdout.contains("\nfigures (the library's release build, classic / runtime):\n  crate: rustc "),
        "{stdout}"
    );
}

/// The last line and the tests section of a run on the fixture `name` with `args`.
fn untested_run(name: &str, args: &[&str]) -> (Output, Vec<String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let mut all = vec![dir.to_str().unwrap(), "--no-figures"];
    all.extend(args);
    let output = inspect(&format!("{name}{}", args.join("")), &all);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
    (output, lines)
}

fn tests_section(lines: &[String]) -> Vec<String> {
    let start = lines.iter().position(|line| line == "tests passed:").expect("a tests section");
    lines[start + 1..].iter().take_while(|line| !line.is_empty()).cloned().collect()
}

/// A crate whose test module imports a crate it was not published with: the command still
/// says which fns the classic lowering accepts, with the tests marked not run and why.
#[test]
fn a_crate_whose_tests_do_not_build_gets_its_acceptance_result() {
    let (output, lines) = untested_run("untestable", &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        lines.last().map(String::as_str),
        Some(
            "crate untestable: 2/2 async fns lowered classic (0 with hints); tests not run with classic (the crate's tests do not \
             build: E0432 src/lib.rs:14: unresolved import `test_support_not_published`) (runtime baseline 0/0)"
        ),
        "{stderr}"
    );
    let section = tests_section(&lines);
    assert!(section.iter().all(|line| line.contains("not run: the crate's tests do not build")), "{section:?}");
    assert_eq!(output.status.code(), Some(1), "the tests could not be measured");
}

/// A crate whose development dependencies the registry does not offer cannot even be resolved
/// as published; without them its library builds, and its acceptance is still measured.
#[test]
fn a_crate_whose_dev_dependencies_do_not_resolve_gets_its_acceptance_result() {
    let (output, lines) = untested_run("stale-dev-dependency", &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        lines.last().map(String::as_str),
        Some(
            "crate stale-dev-dependency: 2/2 async fns lowered classic (0 with hints); tests not run with classic (its \
             dev-dependencies do not resolve: failed to select a version for the requirement `futures = \">=99\"`) (runtime \
             baseline 0/0)"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("built without them, tests not run"), "{stderr}");
    assert_eq!(output.status.code(), Some(1), "the tests could not be measured");
}

/// A crate whose tests fail without a server: acceptance still measured, tests not run.
#[test]
fn a_crate_whose_tests_fail_unchanged_gets_its_acceptance_result() {
    let (output, lines) = untested_run("needs-server", &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = lines.last().cloned().unwrap_or_default();
    assert!(
        last.starts_with(
            "crate needs-server: 2/2 async fns lowered classic (0 with hints); tests not run with classic (1 of the crate's own 1 \
             tests fail unchanged, first lib: tests::pings_the_server)"
        ),
        "{last}\n{stderr}"
    );
    assert_eq!(output.status.code(), Some(1), "the tests could not be measured");
    // Asked for directly: no test built or run, and the acceptance alone decides.
    let (output, lines) = untested_run("needs-server", &["--no-tests"]);
    assert_eq!(
        lines.last().map(String::as_str),
        Some(
            "crate needs-server: 2/2 async fns lowered classic (0 with hints); tests not run with classic (--no-tests) (runtime baseline 0/0)"
        )
    );
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
}

/// The hints: `run` builds classic only with `moves(cmd)` (E0507 without), `forward` only with
/// `keeps(tx)` (E0597 without), `connect` only with `returns(fail)` (E0308 in `fail!`'s body,
/// which rustc reports at the macro's definition, outside every function: the command follows
/// the expansion to the invocation in `connect`); the command finds all three in rustc's
/// errors, and the tests pass with them classic. `--no-hints` leaves them refused with those
/// errors, each at its line in the function.
#[test]
fn hints_are_given_where_rustc_errors_call_for_them() {
    let (output, lines) = untested_run("hints", &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        lines.last().map(String::as_str),
        Some(
            "crate hints: 7/7 async fns lowered classic (3 with hints); tests 3/3 pass with them (runtime baseline 3/3)"
        ),
        "{stderr}"
    );
    assert!(lines.contains(&"  accepted  run src/lib.rs:24 (with moves(cmd))".to_owned()), "{lines:?}");
    assert!(lines.contains(&"  accepted  forward src/lib.rs:31 (with keeps(tx))".to_owned()), "{lines:?}");
    assert!(lines.contains(&"  accepted  connect src/lib.rs:45 (with returns(fail))".to_owned()), "{lines:?}");
    assert!(lines.contains(&"  accepted  plain src/lib.rs:55".to_owned()), "{lines:?}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("crate-command/hints");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(work.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["hints_enabled"], true);
    let hints: Vec<(&str, &serde_json::Value)> = results["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), &f["hints"]))
        .filter(|(_, hints)| !hints.as_array().unwrap().is_empty())
        .collect();
    assert_eq!(
        hints,
        [
            ("run", &serde_json::json!(["moves(cmd)"])),
            ("forward", &serde_json::json!(["keeps(tx)"])),
            ("connect", &serde_json::json!(["returns(fail)"])),
        ]
    );

    let (output, lines) = untested_run("hints", &["--no-hints"]);
    let section = |title: &str| -> Vec<String> {
        let start = lines.iter().position(|line| line == title).unwrap_or_else(|| panic!("no {title:?}: {lines:?}"));
        lines[start + 1..].iter().take_while(|line| !line.is_empty()).cloned().collect()
    };
    assert_eq!(
        section("async fns (7):")[3..6],
        [
            "  refused   run src/lib.rs:24: E0507 at src/lib.rs:27: cannot move out of a raw pointer",
            "  refused   forward src/lib.rs:31: E0597 at src/lib.rs:33: `tx` does not live long enough",
            "  refused   connect src/lib.rs:45: E0308 at src/lib.rs:49: mismatched types",
        ]
    );
    assert_eq!(
        section("refusals by error code:"),
        ["  E0308: 1 (connect)", "  E0507: 1 (run)", "  E0597: 1 (forward)"]
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("crate hints: 4/7 async fns lowered classic (hints off); tests 3/3 pass with them (runtime baseline 3/3)")
    );
    assert_eq!(output.status.code(), Some(1), "three refusals");
}

//! Reading what a libtest harness printed: `test NAME ... ok|FAILED|ignored` per test (doc
//! tests included, whose names hold spaces), and `NAME: test` lines of `--list`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One test binary's (or the doc tests') outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub passed: Vec<String>,
    pub failed: Vec<String>,
    /// Listed but never reported before the timeout.
    pub hung: Vec<String>,
    /// Listed but never reported because the binary died (its exit status or signal).
    pub crashed: Option<String>,
    pub not_run: Vec<String>,
    /// Why each failed test failed: where it panicked and the message's first line.
    #[serde(default)]
    pub reasons: BTreeMap<String, String>,
}

impl Outcome {
    /// The tests counted: a binary that died before reporting any test (before it listed
    /// them, say) counts as one test that did not pass, never as 0 of 0.
    pub fn total(&self) -> usize {
        let counted = self.passed.len() + self.failed.len() + self.hung.len() + self.not_run.len();
        counted + usize::from(counted == 0 && self.crashed.is_some())
    }
}

/// Per-test results in `output`.
pub fn results(output: &str) -> (Vec<String>, Vec<String>) {
    let (mut passed, mut failed) = (Vec::new(), Vec::new());
    for line in output.lines() {
        let Some(rest) = line.strip_prefix("test ") else { continue };
        let Some((name, result)) = rest.rsplit_once(" ... ") else { continue };
        let name = doc_test_name(name);
        match result.trim() {
            "ok" => passed.push(name.to_owned()),
            "FAILED" => failed.push(name.to_owned()),
            _ => {}
        }
    }
    (passed, failed)
}

/// A doc test's name as `--list` gives it: its result line adds the kind of test after the
/// line number (`src/lib.rs - f (line 3) - compile fail`), its listing does not.
fn doc_test_name(name: &str) -> &str {
    let Some(at) = name.rfind(" (line ") else { return name };
    match name[at..].find(')') {
        Some(close) => &name[..at + close + 1],
        None => name,
    }
}

/// The tests `--list` names, without the ignored ones (`ignored` lists those).
pub fn listed(list: &str, ignored: &str) -> Vec<String> {
    let names = |text: &str| -> Vec<String> {
        text.lines().filter_map(|line| line.strip_suffix(": test")).map(str::to_owned).collect()
    };
    let ignored = names(ignored);
    names(list).into_iter().filter(|name| !ignored.contains(name)).collect()
}

/// The outcome of a run of `expected` tests that printed `output`: those it never reported
/// were `hung` when it was stopped at the timeout, else not run (a crash says why).
pub fn outcome(expected: &[String], output: &str, timed_out: bool, crashed: Option<String>) -> Outcome {
    let (passed, failed) = results(output);
    let missing: Vec<String> =
        expected.iter().filter(|name| !passed.contains(name) && !failed.contains(name)).cloned().collect();
    let (hung, not_run) = if timed_out { (missing, Vec::new()) } else { (Vec::new(), missing) };
    Outcome { reasons: reasons(output), passed, failed, hung, crashed, not_run }
}

/// From the `---- NAME stdout ----` sections: `panicked at FILE:LINE:COL: MESSAGE` per test.
pub fn reasons(output: &str) -> BTreeMap<String, String> {
    let mut reasons = BTreeMap::new();
    let mut current: Option<&str> = None;
    let mut lines = output.lines();
    while let Some(line) = lines.next() {
        if let Some(name) = line.strip_prefix("---- ").and_then(|rest| rest.strip_suffix(" stdout ----")) {
            current = Some(name);
        } else if let (Some(name), Some(at)) = (current, line.split_once("panicked at ").map(|(_, at)| at)) {
            let message = lines.next().unwrap_or_default().trim();
            reasons.insert(name.to_owned(), format!("panicked at {} {message}", at.trim_end_matches(':')));
            current = None;
        }
    }
    reasons
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN: &str = "\
running 4 tests
test a::one ... ok
test a::two ... FAILED
test slow ... ignored, needs a network
test src/lib.rs - Client::get (line 12) ... ok
test src/lib.rs - Client::get (line 20) - should panic ... ok
test src/lib.rs - Client (line 3) - compile fail ... FAILED
test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out
";

    #[test]
    fn reads_each_tests_result() {
        let (passed, failed) = results(RUN);
        assert_eq!(passed, ["a::one", "src/lib.rs - Client::get (line 12)", "src/lib.rs - Client::get (line 20)"]);
        assert_eq!(failed, ["a::two", "src/lib.rs - Client (line 3)"]);
    }

    #[test]
    fn failures_keep_where_and_why_they_panicked() {
        let output = "failures:\n\n---- a::two stdout ----\nsome print\n\nthread 'a::two' (12) panicked at src/lib.rs:9:5:\nassertion failed: ready\nnote: run with `RUST_BACKTRACE=1`\n";
        let reasons = reasons(output);
        assert_eq!(
            reasons.get("a::two").map(String::as_str),
            Some("panicked at src/lib.rs:9:5 assertion failed: ready")
        );
        assert_eq!(reasons.len(), 1);
    }

    #[test]
    fn unreported_tests_are_hung_at_a_timeout_else_not_run() {
        let list = "a::one: test\na::two: test\nslow: test\nstuck: test\n\n4 tests, 0 benchmarks\n";
        let expected = listed(list, "slow: test\n");
        assert_eq!(expected, ["a::one", "a::two", "stuck"]);
        let hung = outcome(&expected, RUN, true, None);
        assert_eq!((hung.passed.len(), hung.failed.len(), hung.hung.clone()), (3, 2, vec!["stuck".to_owned()]));
        let crashed = outcome(&expected, RUN, false, Some("signal 11".to_owned()));
        assert_eq!(crashed.not_run, ["stuck"]);
        assert_eq!(crashed.total(), 6);
        // Died before it reported anything: one failure, not 0 of 0.
        let early = outcome(&[], "", false, Some("signal 6".to_owned()));
        assert_eq!((early.passed.len(), early.total()), (0, 1));
    }
}

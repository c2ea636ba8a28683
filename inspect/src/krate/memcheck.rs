//! `inspect crate --memcheck`: the test binaries of the classic build (the accepted fns classic,
//! the rest runtime; the binaries the classic test run ran: unit and integration tests, not the
//! doc tests, which rustdoc builds and runs itself) each run again under valgrind's memcheck,
//! with the flags `scripts/memcheck.sh` uses and `--test-threads=1`, under a timeout of its own.
//!
//! The error count is valgrind's own: its XML output (`--xml=yes`, a file per binary), the sum
//! of `<errorcounts>`, which is the count of its `ERROR SUMMARY` (leaks are not errors here,
//! `--errors-for-leak-kinds=none`). A run valgrind did not finish (stopped at the timeout,
//! killed by a signal, an exit status that is neither the harness's nor valgrind's) is reported
//! as such, never as clean; the tests that failed under it are counted apart from the errors.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::cargo::Package;
use super::libtest::{self, Outcome};
use crate::error::{Context, Result};

/// valgrind's flags, as `scripts/memcheck.sh` has them (its XML output is added per binary).
pub const FLAGS: [&str; 3] = ["--quiet", "--error-exitcode=99", "--errors-for-leak-kinds=none"];
/// valgrind's exit status when it found errors (`--error-exitcode`).
const ERROR_EXIT: i32 = 99;
/// libtest's exit status when a test failed.
const TESTS_FAILED_EXIT: i32 = 101;
pub const DOC_TESTS: &str = "not run under memcheck (out of scope: rustdoc builds and runs each doc test itself)";
pub const VALGRIND_MISSING: &str = "not run: valgrind missing";
pub const TESTS_NOT_RUN: &str = "not run: the crate's tests did not run";

/// The memcheck run of one `inspect crate`, or why there was none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memcheck {
    /// `run`, or why not (`not run: valgrind missing`).
    pub status: String,
    /// What stood in the way, when it was not run.
    pub detail: Option<String>,
    /// `valgrind --version`.
    pub valgrind: Option<String>,
    /// valgrind's flags; every binary also gets `--test-threads=1`.
    pub flags: Vec<String>,
    pub timeout_s: u64,
    /// Whose binaries: `classic` (the accepted fns classic, the rest runtime), or `runtime`
    /// when the crate has no async fn to lower (the classic build is then the runtime build).
    pub configuration: String,
    pub doc_tests: String,
    pub binaries: Vec<Binary>,
    /// Every binary's errors (`null`: not run).
    pub errors: Option<u64>,
    /// Run, and every binary clean (no error, each run finished): what the exit status asks.
    pub clean: bool,
}

/// One test binary under memcheck.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Binary {
    /// `lib`, `bin NAME`, `test NAME`, as in the tests' results.
    pub name: String,
    /// Tests that reported a result (passed or failed); the ignored ones are not run.
    pub tests_run: usize,
    /// Tests that failed, hung or were not run under memcheck (a slow or timing-dependent test
    /// may fail there alone): not memory errors.
    pub tests_failed: usize,
    /// valgrind's error count; for a run it did not finish, the errors it reported before.
    pub errors: u64,
    pub verdict: Verdict,
    /// Why a run that did not finish did not (the timeout, the signal, the exit status).
    pub detail: Option<String>,
    /// The first error valgrind reported: its kind, what it said, where.
    pub first_error: Option<String>,
    pub seconds: f64,
    /// valgrind's XML output, left in the work directory.
    pub xml: PathBuf,
    pub tests: Outcome,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// valgrind finished and counted no error (tests may have failed: `tests_failed`).
    Clean,
    /// valgrind counted errors.
    Errors,
    /// Stopped at `--memcheck-timeout`.
    Timeout,
    /// Killed by a signal, or ended in a way neither libtest nor valgrind ends.
    Crashed,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Clean => "clean",
            Verdict::Errors => "errors",
            Verdict::Timeout => "timeout",
            Verdict::Crashed => "crashed",
        }
    }
}

impl Memcheck {
    /// Not run because valgrind is missing (and could not be installed): `why`.
    pub fn not_run(why: String, timeout: Duration) -> Memcheck {
        Memcheck::not_run_because(VALGRIND_MISSING, why, timeout)
    }

    /// Not run because the crate's tests did not run (they did not build, or failed unchanged):
    /// there is no test binary to run under it. Not "valgrind missing": it may well be there.
    pub fn tests_not_run(why: String, timeout: Duration) -> Memcheck {
        Memcheck::not_run_because(TESTS_NOT_RUN, why, timeout)
    }

    fn not_run_because(status: &str, why: String, timeout: Duration) -> Memcheck {
        Memcheck {
            status: status.to_owned(),
            detail: Some(why),
            valgrind: None,
            flags: FLAGS.map(str::to_owned).to_vec(),
            timeout_s: timeout.as_secs(),
            configuration: "classic".to_owned(),
            doc_tests: DOC_TESTS.to_owned(),
            binaries: Vec::new(),
            errors: None,
            clean: false,
        }
    }

    pub fn ran(&self) -> bool {
        self.status == "run"
    }

    /// The total and the verdict, once every binary has run.
    fn sum_up(&mut self) {
        self.errors = Some(self.binaries.iter().map(|binary| binary.errors).sum());
        self.clean = self.ran() && self.binaries.iter().all(|binary| binary.verdict == Verdict::Clean);
    }

    /// `memcheck: 4 test binaries, 0 errors`, with the runs that did not finish and the tests
    /// that failed under it; or why it was not run.
    pub fn line(&self) -> String {
        if !self.ran() {
            return format!("memcheck: {}", self.status);
        }
        let count = |verdict: Verdict| self.binaries.iter().filter(|binary| binary.verdict == verdict).count();
        let errors = self.errors.unwrap_or_default();
        let mut line = format!(
            "memcheck: {} test binar{}, {errors} error{}",
            self.binaries.len(),
            if self.binaries.len() == 1 { "y" } else { "ies" },
            if errors == 1 { "" } else { "s" }
        );
        for (verdict, said) in [(Verdict::Timeout, "timed out"), (Verdict::Crashed, "crashed")] {
            if count(verdict) > 0 {
                line.push_str(&format!(", {} {said}", count(verdict)));
            }
        }
        let failed: usize = self.binaries.iter().map(|binary| binary.tests_failed).sum();
        if failed > 0 {
            line.push_str(&format!("; {failed} test(s) did not pass under memcheck"));
        }
        line
    }
}

/// valgrind's version, installed with apt-get (as root) when it is missing, as
/// `scripts/memcheck.sh` does; or why there is none.
pub fn valgrind() -> std::result::Result<String, String> {
    if let Some(version) = version() {
        return Ok(version);
    }
    let apt = Command::new("apt-get")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !(apt && root) {
        return Err("valgrind is not installed, and apt-get as root is not available to install it".to_owned());
    }
    eprintln!("crate: [memcheck] installing valgrind (apt-get)");
    let installed = Command::new("sh")
        .args(["-c", "apt-get update -qq && apt-get install -y -qq valgrind"])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output();
    let said = match installed {
        Ok(output) => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let last = stderr.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or_default().trim().to_owned();
            format!("{}{}", output.status, if last.is_empty() { String::new() } else { format!(": {last}") })
        }
        Err(error) => error.to_string(),
    };
    version()
        .ok_or_else(|| format!("valgrind is not installed, and `apt-get install valgrind` did not install it ({said})"))
}

fn version() -> Option<String> {
    let output = Command::new("valgrind").arg("--version").stdin(Stdio::null()).output().ok()?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    (output.status.success() && !version.is_empty()).then_some(version)
}

/// Each of `binaries` under memcheck, its XML output in `dir`; in the order of their names.
pub fn run(
    package: &Package,
    binaries: &[(String, PathBuf)],
    dir: &Path,
    timeout: Duration,
    valgrind: String,
    configuration: &str,
) -> Result<Memcheck> {
    std::fs::create_dir_all(dir).context(|| format!("creating {}", dir.display()))?;
    let mut sorted: Vec<&(String, PathBuf)> = binaries.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut memcheck = Memcheck {
        status: "run".to_owned(),
        detail: None,
        valgrind: Some(valgrind),
        configuration: configuration.to_owned(),
        binaries: Vec::new(),
        ..Memcheck::not_run(String::new(), timeout)
    };
    // DWARF names the crate's files by their absolute directory.
    let package_dir = package.dir.canonicalize().unwrap_or_else(|_| package.dir.clone());
    for (name, binary) in sorted {
        eprintln!("crate: [memcheck] {name}");
        let xml = dir.join(format!("{}.xml", name.replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "_")));
        let _ = std::fs::remove_file(&xml);
        let expected = package.listed(binary)?;
        let mut command = package.test_command("valgrind");
        command.args(FLAGS).arg("--xml=yes").arg(format!("--xml-file={}", xml.display()));
        command.arg(binary).arg("--test-threads=1");
        let started = Instant::now();
        let ran =
            package.run_bounded(command, timeout, &format!("{} under valgrind", binary.display()), |elapsed| {
                if elapsed.as_secs() % 60 < 10 {
                    eprintln!("crate:   still under memcheck ({name}, {}s)", elapsed.as_secs());
                }
            })?;
        let seconds = started.elapsed().as_secs_f64();
        let report = std::fs::read_to_string(&xml).map(|text| read_xml(&text, &package_dir)).unwrap_or_default();
        let (verdict, detail) = judge(ran.status, &report, &ran.stdout, &ran.stderr, timeout);
        let crashed = (verdict == Verdict::Crashed).then(|| detail.clone().unwrap_or_default());
        let tests = libtest::outcome(&expected, &ran.stdout, ran.status.is_none(), crashed);
        let binary = Binary {
            name: name.clone(),
            tests_run: tests.passed.len() + tests.failed.len(),
            tests_failed: tests.failed.len() + tests.hung.len() + tests.not_run.len(),
            errors: report.errors.unwrap_or(report.reported),
            verdict,
            detail,
            first_error: report.first_error,
            seconds,
            xml,
            tests,
        };
        eprintln!(
            "crate: [memcheck] {name}: {} error(s), {} ({:.1} s)",
            binary.errors,
            binary.verdict.as_str(),
            binary.seconds
        );
        memcheck.binaries.push(binary);
    }
    memcheck.sum_up();
    Ok(memcheck)
}

/// What valgrind's XML output says.
#[derive(Debug, Clone, Default, PartialEq)]
struct Report {
    /// `<state>FINISHED</state>`: valgrind saw the program end.
    finished: bool,
    /// The sum of `<errorcounts>`: the count of valgrind's `ERROR SUMMARY` (`None`: not
    /// written, the run did not end).
    errors: Option<u64>,
    /// `<error>` records that are not leaks (a leak is an error only for the leak kinds asked
    /// for, none here): the errors' distinct contexts, as reported so far.
    reported: u64,
    /// `<fatal_signal>`'s name.
    fatal_signal: Option<String>,
    first_error: Option<String>,
}

/// valgrind's XML output; `package_dir` is where the crate's own sources are.
fn read_xml(text: &str, package_dir: &Path) -> Report {
    let mut report = Report { finished: text.contains("<state>FINISHED</state>"), ..Report::default() };
    if let Some(counts) = element(text, "errorcounts") {
        report.errors = Some(elements(counts, "count").filter_map(|count| count.trim().parse::<u64>().ok()).sum());
    }
    for error in elements(text, "error") {
        let kind = element(error, "kind").unwrap_or_default();
        if kind.starts_with("Leak_") {
            continue;
        }
        report.reported += 1;
        if report.first_error.is_none() {
            let what = element(error, "what").or_else(|| element(error, "xwhat").and_then(|x| element(x, "text")));
            let frames: Vec<&str> =
                element(error, "stack").map(|stack| elements(stack, "frame").collect()).unwrap_or_default();
            // Where: the first frame with a source file, and the first in the crate's own.
            let place = |frame: &str| -> Option<(String, bool)> {
                let function = unescape(element(frame, "fn").unwrap_or("?"));
                let file = Path::new(element(frame, "dir").unwrap_or_default()).join(element(frame, "file")?);
                let line = element(frame, "line").unwrap_or("?");
                let own = file.strip_prefix(package_dir).ok().map(|relative| relative.display().to_string());
                let shown = own.clone().unwrap_or_else(|| unescape(element(frame, "file").unwrap_or_default()));
                Some((format!("{function} ({shown}:{line})"), own.is_some()))
            };
            let places: Vec<(String, bool)> = frames.iter().filter_map(|frame| place(frame)).collect();
            let mut at = String::new();
            if let Some((first, own)) = places.first() {
                at = format!(" in {first}");
                if !own && let Some((crate_frame, _)) = places.iter().find(|(_, own)| *own) {
                    at.push_str(&format!(", from {crate_frame}"));
                }
            }
            report.first_error = Some(format!("{kind}: {}{at}", unescape(what.unwrap_or_default())));
        }
    }
    if let Some(signal) = element(text, "fatal_signal") {
        report.fatal_signal = element(signal, "signame").map(str::to_owned);
    }
    report
}

/// The verdict on one run, and why one that did not finish did not.
fn judge(
    status: Option<ExitStatus>,
    report: &Report,
    stdout: &str,
    stderr: &str,
    timeout: Duration,
) -> (Verdict, Option<String>) {
    // The last line the run printed to stderr, to say why it ended.
    let last = match stderr.lines().rev().find(|line| !line.trim().is_empty()) {
        Some(line) => format!(": {}", line.trim()),
        None => String::new(),
    };
    let status = match status {
        None => return (Verdict::Timeout, Some(format!("stopped at the timeout ({} s)", timeout.as_secs()))),
        Some(status) => status,
    };
    if let Some(signal) = status.signal() {
        let name = report.fatal_signal.as_deref().map(|name| format!(" ({name})")).unwrap_or_default();
        return (Verdict::Crashed, Some(format!("killed by signal {signal}{name}{last}")));
    }
    let code = status.code().unwrap_or(-1);
    let ended =
        code == 0 || code == ERROR_EXIT || (code == TESTS_FAILED_EXIT && stdout.contains("test result: FAILED"));
    if !ended {
        return (Verdict::Crashed, Some(format!("exit status {code}{last}")));
    }
    match report.errors {
        None => (Verdict::Crashed, Some(format!("exit status {code}, and valgrind wrote no error count"))),
        Some(0) if code == ERROR_EXIT => {
            (Verdict::Crashed, Some(format!("exit status {code} (valgrind's for errors), and its count is 0")))
        }
        Some(0) => (Verdict::Clean, None),
        Some(_) => (Verdict::Errors, None),
    }
}

/// The contents of the first `<name>..</name>` in `text`.
fn element<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    elements(text, name).next()
}

/// The contents of each `<name>..</name>` in `text` (not nested in one of its own name);
/// an element left open (a run stopped while valgrind wrote it) runs to the end.
fn elements<'t>(text: &'t str, name: &str) -> impl Iterator<Item = &'t str> {
    let (open, close) = (format!("<{name}>"), format!("</{name}>"));
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find(&open)? + open.len();
        let end = rest[start..].find(&close).map_or(rest.len(), |at| start + at);
        let found = &rest[start..end];
        rest = &rest[(end + close.len()).min(rest.len())..];
        Some(found)
    })
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// valgrind 3.19's XML for a read after free (3 times, one context) and a leak.
    const ERRORS: &str = "<valgrindoutput>
<status>
  <state>RUNNING</state>
</status>
<error>
  <unique>0x0</unique>
  <tid>1</tid>
  <kind>InvalidRead</kind>
  <what>Invalid read of size 4</what>
  <stack>
    <frame>
      <ip>0x1</ip>
      <obj>/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so</obj>
      <fn>core::ptr::read&lt;u32&gt;</fn>
      <dir>/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860</dir>
      <file>library/core/src/ptr/mod.rs</file>
      <line>1</line>
    </frame>
    <frame>
      <ip>0x2</ip>
      <fn>krate::f</fn>
      <dir>/crate/src</dir>
      <file>lib.rs</file>
      <line>3</line>
    </frame>
  </stack>
</error>
<status>
  <state>FINISHED</state>
</status>
<error>
  <unique>0x3</unique>
  <kind>Leak_DefinitelyLost</kind>
  <xwhat>
    <text>10 bytes in 1 blocks are definitely lost in loss record 1 of 1</text>
  </xwhat>
</error>
<errorcounts>
  <pair>
    <count>3</count>
    <unique>0x0</unique>
  </pair>
</errorcounts>
<suppcounts>
  <pair>
    <count>7</count>
    <name>x</name>
  </pair>
</suppcounts>
</valgrindoutput>
";

    fn exit(code: i32) -> Option<ExitStatus> {
        Some(ExitStatus::from_raw(code << 8))
    }

    const TIMEOUT: Duration = Duration::from_secs(1800);

    #[test]
    fn the_count_is_valgrinds_error_summary_and_leaks_are_not_errors() {
        let report = read_xml(ERRORS, Path::new("/crate"));
        assert!(report.finished);
        assert_eq!(report.errors, Some(3));
        assert_eq!(report.reported, 1);
        assert_eq!(
            report.first_error.as_deref(),
            Some(
                "InvalidRead: Invalid read of size 4 in core::ptr::read<u32> (library/core/src/ptr/mod.rs:1), from krate::f \
                 (src/lib.rs:3)"
            )
        );
        assert_eq!(judge(exit(ERROR_EXIT), &report, "", "", TIMEOUT), (Verdict::Errors, None));
        let clean =
            read_xml("<status><state>FINISHED</state></status>\n<errorcounts>\n</errorcounts>\n", Path::new("/"));
        assert_eq!(clean.errors, Some(0));
        assert_eq!(judge(exit(0), &clean, "test result: ok.", "", TIMEOUT), (Verdict::Clean, None));
        // A test that failed under memcheck alone: clean, its failure counted apart.
        assert_eq!(judge(exit(101), &clean, "test result: FAILED. 1 passed; 1 failed", "", TIMEOUT).0, Verdict::Clean);
    }

    #[test]
    fn a_run_that_did_not_finish_is_never_clean() {
        // Stopped while valgrind was writing: the errors so far are counted, the run timed out.
        let cut = &ERRORS[..ERRORS.find("<errorcounts>").unwrap()];
        let report = read_xml(cut, Path::new("/crate"));
        assert_eq!((report.errors, report.reported), (None, 1));
        let (verdict, detail) = judge(None, &report, "", "", TIMEOUT);
        assert_eq!((verdict, detail.as_deref()), (Verdict::Timeout, Some("stopped at the timeout (1800 s)")));
        let signalled =
            read_xml("<fatal_signal>\n<signo>11</signo>\n<signame>SIGSEGV</signame>\n</fatal_signal>", Path::new("/"));
        let (verdict, detail) = judge(Some(ExitStatus::from_raw(11)), &signalled, "", "Segmentation fault\n", TIMEOUT);
        assert_eq!(
            (verdict, detail.as_deref()),
            (Verdict::Crashed, Some("killed by signal 11 (SIGSEGV): Segmentation fault"))
        );
        // An exit status neither the harness's nor valgrind's, or no count at all.
        assert_eq!(
            judge(exit(1), &read_xml("<errorcounts></errorcounts>", Path::new("/")), "", "", TIMEOUT).0,
            Verdict::Crashed
        );
        assert_eq!(judge(exit(0), &Report::default(), "", "", TIMEOUT).0, Verdict::Crashed);
        assert_eq!(
            judge(exit(101), &read_xml("<errorcounts></errorcounts>", Path::new("/")), "", "", TIMEOUT).0,
            Verdict::Crashed
        );
    }

    #[test]
    fn the_total_line_says_what_ran_and_what_did_not() {
        let missing = Memcheck::not_run("valgrind is not installed".to_owned(), TIMEOUT);
        assert_eq!(missing.line(), "memcheck: not run: valgrind missing");
        let untested = Memcheck::tests_not_run("the tests did not build within 900s".to_owned(), TIMEOUT);
        assert_eq!(untested.line(), "memcheck: not run: the crate's tests did not run");
        assert!(!untested.clean && !untested.ran());
        assert!(!missing.clean && missing.errors.is_none());
        let binary = |name: &str, errors: u64, verdict: Verdict, tests_failed: usize| Binary {
            name: name.to_owned(),
            tests_run: 2,
            tests_failed,
            errors,
            verdict,
            detail: None,
            first_error: None,
            seconds: 1.0,
            xml: PathBuf::new(),
            tests: Outcome::default(),
        };
        let mut run = Memcheck { status: "run".to_owned(), ..missing };
        run.binaries = vec![binary("lib", 0, Verdict::Clean, 0), binary("test a", 0, Verdict::Clean, 1)];
        run.sum_up();
        assert_eq!(run.line(), "memcheck: 2 test binaries, 0 errors; 1 test(s) did not pass under memcheck");
        assert!(run.clean);
        run.binaries.push(binary("test b", 2, Verdict::Errors, 0));
        run.binaries.push(binary("test c", 0, Verdict::Timeout, 0));
        run.sum_up();
        assert_eq!(
            run.line(),
            "memcheck: 4 test binaries, 2 errors, 1 timed out; 1 test(s) did not pass under memcheck"
        );
        assert!(!run.clean && run.errors == Some(2));
    }
}

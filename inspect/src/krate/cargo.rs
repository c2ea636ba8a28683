//! The copy's builds and test runs, each bounded: `cargo test --no-run` (library, binaries,
//! unit and integration tests, in one target directory for every phase, so dependencies build
//! once), rustc's errors read from `--message-format=json`; each test binary run alone under a
//! timeout; the doc tests through `cargo test --doc`; a test binary under another program
//! (`memcheck`: valgrind) as it is run here.

use std::ffi::OsStr;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

use cargo_metadata::Message;
use cargo_metadata::diagnostic::{Diagnostic, DiagnosticLevel, DiagnosticSpan};
use serde::{Deserialize, Serialize};

use super::hints::{self, Hint};
use super::libtest::{self, Outcome};
use crate::error::{Context, Result};
use crate::process::{read_tail, wait_bounded};

/// What one build is of: the copy's package and where its builds go.
pub struct Package {
    pub name: String,
    /// `-p NAME@VERSION`: a dependency may be another version of the same package.
    pub version: String,
    pub manifest: PathBuf,
    /// The package's directory; rustc names files relative to the workspace root.
    pub dir: PathBuf,
    pub workspace_root: PathBuf,
    pub target_dir: PathBuf,
    /// `--features ..`, `--no-default-features`, as given.
    pub feature_args: Vec<String>,
    pub has_lib: bool,
}

/// rustc's error, located in the package's sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompileError {
    /// `E0597`, or `error` for one without a code.
    pub code: String,
    pub message: String,
    /// Relative to the package directory (outside it: as rustc named it).
    pub file: String,
    pub line: usize,
    /// The hint this error calls for (E0507 on a local or a field of one, E0382 by a method call:
    /// `moves`; E0597: `keeps`),
    /// if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<Hint>,
}

pub enum Built {
    /// The test binaries, by target name and kind (`lib`, `bin NAME`, `test NAME`).
    Ok(Vec<(String, PathBuf)>),
    /// The errors in the order rustc reported them (none: cargo's own failure, in `other`).
    Failed {
        errors: Vec<CompileError>,
        other: String,
    },
    Timeout,
}

impl Package {
    fn cargo(&self, subcommand: &str) -> Command {
        let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        command
            .arg(subcommand)
            .arg("--manifest-path")
            .arg(&self.manifest)
            .args(["-p", &format!("{}@{}", self.name, self.version)]);
        command.args(&self.feature_args).env("CARGO_TARGET_DIR", &self.target_dir).env("CARGO_TERM_COLOR", "never");
        // The lab's own cfg would leak into the copy from the workspace's environment.
        command.env_remove("RUSTFLAGS").env_remove("CARGO_ENCODED_RUSTFLAGS").env_remove("RUSTC_WRAPPER");
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        command
    }

    /// `cargo test --no-run`: everything the tests need, with the test binaries; without
    /// `tests`, `cargo build --lib --bins`: the library and the binaries alone (for a crate
    /// whose tests cannot run here).
    pub fn build(&self, timeout: Duration, what: &str, tests: bool) -> Result<Built> {
        let mut command = if tests {
            let mut command = self.cargo("test");
            command.args(["--no-run", "--message-format=json"]);
            command
        } else {
            let mut command = self.cargo("build");
            command.args(["--lib", "--bins", "--message-format=json"]);
            command
        };
        let mut child = command.spawn().context(|| format!("running cargo to build {}", self.name))?;
        let stdout = child.stdout.take().context(|| "cargo's stdout")?;
        let stderr = child.stderr.take().context(|| "cargo's stderr")?;
        let (dir, root) = (self.dir.clone(), self.workspace_root.clone());
        let messages = std::thread::spawn(move || read_messages(stdout, &dir, &root));
        let stderr = std::thread::spawn(move || read_tail(stderr, 16 * 1024));
        let status = wait_bounded(&mut child, timeout, |elapsed| {
            eprintln!("crate:   still building ({what}, {}s)", elapsed.as_secs());
        })?;
        let (binaries, errors) = messages.join().unwrap_or_default();
        let stderr = stderr.join().unwrap_or_default();
        Ok(match status {
            None => Built::Timeout,
            Some(status) if status.success() => Built::Ok(binaries),
            Some(status) => {
                let tail: Vec<&str> = stderr.lines().filter(|line| line.starts_with("error")).collect();
                let other = if tail.is_empty() { format!("cargo exited with {status}") } else { tail.join("\n") };
                Built::Failed { errors, other }
            }
        })
    }

    /// Run one test binary as cargo would (from the package directory), at most `timeout`.
    pub fn run_binary(&self, binary: &Path, timeout: Duration) -> Result<Outcome> {
        let expected = self.listed(binary)?;
        self.run(self.test_command(binary), timeout, &expected, &binary.display().to_string())
    }

    /// The tests a test binary would run (`--list`, without the ignored ones).
    pub fn listed(&self, binary: &Path) -> Result<Vec<String>> {
        let list = |args: &[&str]| -> Result<String> {
            let output = Command::new(binary)
                .args(args)
                .current_dir(&self.dir)
                .stdin(Stdio::null())
                .output()
                .context(|| format!("listing the tests of {}", binary.display()))?;
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        };
        Ok(libtest::listed(&list(&["--list"])?, &list(&["--list", "--ignored"])?))
    }

    /// `program` run as cargo runs a test binary: from the package directory, with
    /// `CARGO_MANIFEST_DIR`, its output piped.
    pub fn test_command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new(program);
        command.current_dir(&self.dir).env("CARGO_MANIFEST_DIR", &self.dir);
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        command
    }

    /// `cargo test --doc`: the doc tests are listed first (rustdoc lists them without building
    /// them), so that a run stopped at its timeout counts each one it never reported as hung.
    /// The run builds every doc test, so it is bounded by a build's time and a test's.
    pub fn run_doc_tests(&self, build_timeout: Duration, test_timeout: Duration) -> Result<Option<Outcome>> {
        if !self.has_lib {
            return Ok(None);
        }
        let list = |args: &[&str]| -> Result<String> {
            let mut command = self.cargo("test");
            command.args(["--doc", "--"]).args(args);
            let mut child = command.spawn().context(|| "listing the doc tests")?;
            let stdout = child.stdout.take().context(|| "cargo's stdout")?;
            let stdout = std::thread::spawn(move || read_all(stdout));
            let status = wait_bounded(&mut child, build_timeout, |_| {})?;
            let listed = stdout.join().unwrap_or_default();
            // A listing that failed or never ended leaves nothing to expect; the run says why.
            Ok(if status.is_some_and(|status| status.success()) { listed } else { String::new() })
        };
        let expected = libtest::listed(&list(&["--list"])?, &list(&["--list", "--ignored"])?);
        let mut command = self.cargo("test");
        command.arg("--doc");
        self.run(command, build_timeout + test_timeout, &expected, "the doc tests").map(Some)
    }

    fn run(&self, command: Command, timeout: Duration, expected: &[String], what: &str) -> Result<Outcome> {
        let Ran { status, stdout: output, stderr } = self.run_bounded(command, timeout, what, |_| {})?;
        let crashed = match status {
            Some(status) if !status.success() && !output.contains("test result: FAILED") => {
                let last = stderr.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or_default();
                Some(format!("{status}: {}", last.trim()))
            }
            _ => None,
        };
        let mut outcome = libtest::outcome(expected, &output, status.is_none(), crashed);
        if status.is_none() && expected.is_empty() {
            // Nothing was listed beforehand: the run itself is the hung test.
            outcome.hung.push(what.to_owned());
        }
        Ok(outcome)
    }

    /// Run `command` (its output piped) for at most `timeout`, `tick` every 10 s meanwhile:
    /// its exit status (`None`: stopped at the timeout, with every process it started), its
    /// output, the tail of its error output.
    pub fn run_bounded(
        &self,
        mut command: Command,
        timeout: Duration,
        what: &str,
        tick: impl FnMut(Duration),
    ) -> Result<Ran> {
        let mut child = command.spawn().context(|| format!("running {what}"))?;
        let stdout = child.stdout.take().context(|| "the tests' stdout")?;
        let stderr = child.stderr.take().context(|| "the tests' stderr")?;
        let stdout = std::thread::spawn(move || read_all(stdout));
        let stderr = std::thread::spawn(move || read_tail(stderr, 4096));
        let status = wait_bounded(&mut child, timeout, tick)?;
        Ok(Ran { status, stdout: stdout.join().unwrap_or_default(), stderr: stderr.join().unwrap_or_default() })
    }
}

/// How a bounded run ended, and what it printed.
pub struct Ran {
    /// `None`: stopped at the timeout.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    /// The last 4 KiB or so.
    pub stderr: String,
}

fn read_all(stream: impl Read) -> String {
    let mut bytes = Vec::new();
    let _ = BufReader::new(stream).read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The test binaries and the errors, from cargo's JSON messages.
fn read_messages(stdout: impl Read, dir: &Path, root: &Path) -> (Vec<(String, PathBuf)>, Vec<CompileError>) {
    let mut binaries = Vec::new();
    let mut errors = Vec::new();
    for message in Message::parse_stream(BufReader::new(stdout)) {
        match message {
            Ok(Message::CompilerArtifact(artifact)) if artifact.profile.test => {
                if let Some(executable) = artifact.executable {
                    let kind = artifact.target.kind.first().map(|kind| kind.to_string()).unwrap_or_default();
                    let name = if kind == "lib" { kind } else { format!("{kind} {}", artifact.target.name) };
                    binaries.push((name, executable.into_std_path_buf()));
                }
            }
            Ok(Message::CompilerMessage(message)) if message.message.level == DiagnosticLevel::Error => {
                if let Some(error) = located(&message.message, dir, root) {
                    errors.push(error);
                }
            }
            _ => {}
        }
    }
    (binaries, errors)
}

/// The error at its primary span, followed out of macro expansions into the package's files.
///
/// An error in the body of a `macro_rules!` macro is placed at the macro's invocation (the
/// outermost one in the package's files), not at the definition: the function that invokes
/// the macro is the one the error is about, and the one a hint goes to, though the macro may
/// be defined outside every function. An attribute's or a derive's expansion (the lowering's
/// own among them) is the item itself, and is not followed out of.
fn located(diagnostic: &Diagnostic, dir: &Path, root: &Path) -> Option<CompileError> {
    let code = diagnostic.code.as_ref().map_or_else(|| "error".to_owned(), |code| code.code.clone());
    // "aborting due to 2 previous errors" and the like say nothing of their own.
    if code == "error" && diagnostic.spans.is_empty() {
        return None;
    }
    let mut span: Option<&DiagnosticSpan> = diagnostic.spans.iter().find(|span| span.is_primary);
    let mut place = None;
    let mut in_package = false;
    while let Some(at) = span {
        let file = root.join(&at.file_name);
        if let Ok(relative) = file.strip_prefix(dir) {
            place = Some((relative.to_string_lossy().replace('\\', "/"), at.line_start));
            in_package = true;
        } else if !in_package {
            place = place.or_else(|| Some((at.file_name.clone(), at.line_start)));
        }
        span = at
            .expansion
            .as_ref()
            .filter(|expansion| !in_package || expansion.macro_decl_name.ends_with('!'))
            .map(|expansion| &expansion.span);
    }
    let (file, line) = place.unwrap_or_default();
    // (The source of the primary span, for a hint naming a call written over several lines.)
    let source = diagnostic
        .spans
        .iter()
        .find(|span| span.is_primary)
        .and_then(|primary| std::fs::read_to_string(root.join(&primary.file_name)).ok());
    let hint = hints::called_for_in(diagnostic, source.as_deref());
    Some(CompileError { code, message: diagnostic.message.clone(), file, line, hint })
}

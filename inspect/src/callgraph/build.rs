//! One bounded `cargo build` of a generated package: a wall-clock timeout on the whole cargo
//! command, and an address-space limit (`setrlimit(RLIMIT_AS)`, what `ulimit -v` sets) on cargo
//! and everything it starts (rustc, the linker). A build past its timeout is stopped with every
//! process it started (found through `/proc`, stopped first so that none starts another, then
//! killed); a build past its memory limit fails its allocation and is reported as such.
//!
//! What is timed: the package's own rustc (the crate, not its dependencies, which are built
//! before), by `inspect` itself as cargo's `RUSTC_WORKSPACE_WRAPPER` (the wrapper `builds`
//! describes), which records rustc's wall time, its CPU time (user and system, its threads and
//! the linker it runs) and its peak memory. Cargo's own wall time, freshness checks included,
//! is kept beside them.

use std::io::{BufReader, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use cargo_metadata::Message;

use crate::builds::{self, Times};
use crate::error::{Context, Error, Result};
use crate::process::{read_tail, wait_bounded};

/// The bounds of every build.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    /// The address-space limit of each process of a build, in MiB.
    pub memory_limit_mib: u64,
    /// `cargo build --jobs`; `None`: cargo's default (one per core).
    pub jobs: Option<u32>,
}

/// The generated workspace and where its builds go.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub manifest: PathBuf,
    pub target_dir: PathBuf,
    /// Where the wrapper's times files go.
    pub scratch: PathBuf,
}

/// How a build ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// Built; the executable cargo reported (none for a library).
    Built(Option<PathBuf>),
    /// rustc (or cargo) reported an error: the first one.
    Failed(String),
    /// Stopped at the timeout.
    Timeout,
    /// An allocation failed at the memory limit: what said so.
    OutOfMemory(String),
    /// A process of the build was killed by a signal it did not ask for (the kernel's
    /// out-of-memory killer, most often).
    Killed(String),
}

/// One build: how it ended, cargo's wall time, and what the wrapper measured of rustc (`None`
/// when rustc did not finish: stopped at the timeout, or never started).
#[derive(Debug, Clone)]
pub struct Run {
    pub ended: Ended,
    pub cargo_wall: Duration,
    pub rustc: Option<Times>,
}

/// `cargo build -p PACKAGE --profile PROFILE` in the generated workspace, bounded by `limits`
/// (with `timeout` for this build). Errors are failures to run cargo at all; a build that fails
/// is a [`Run`] that says how.
pub fn build(workspace: &Workspace, package: &str, profile: &str, limits: &Limits, timeout: Duration) -> Result<Run> {
    std::fs::create_dir_all(&workspace.scratch).context(|| format!("creating {}", workspace.scratch.display()))?;
    let times = workspace.scratch.join(format!("{package}.{profile}.times.json"));
    let _ = std::fs::remove_file(&times);
    let mut command = cargo(workspace, "build", limits.memory_limit_mib);
    command.args(["-p", package, "--profile", profile, "--message-format=json"]);
    if let Some(jobs) = limits.jobs {
        command.arg(format!("--jobs={jobs}"));
    }
    command.envs(builds::timing_wrapper_env(&times)?);
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().context(|| format!("running cargo to build {package}"))?;
    let stdout = child.stdout.take().context(|| "cargo's stdout")?;
    let stderr = child.stderr.take().context(|| "cargo's stderr")?;
    let wanted = package.to_owned();
    let messages = std::thread::spawn(move || read_messages(stdout, &wanted));
    let stderr = std::thread::spawn(move || read_tail(stderr, 64 * 1024));
    let status = wait_bounded(&mut child, timeout, |elapsed| {
        eprintln!("callgraph:   still building {package} ({}s)", elapsed.as_secs());
    })
    .context(|| format!("waiting for cargo ({package})"))?;
    let cargo_wall = started.elapsed();
    let (executable, errors) = messages.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let rustc = builds::read_times(&times).ok();
    let ended = match status {
        None => Ended::Timeout,
        Some(status) if status.success() => Ended::Built(executable),
        Some(status) => classify(status, &errors, &stderr),
    };
    Ok(Run { ended, cargo_wall, rustc })
}

/// `cargo clean -p PACKAGE --profile PROFILE`: the package's outputs (a classic binary can
/// weigh a gigabyte), leaving the dependencies.
pub fn clean(workspace: &Workspace, package: &str, profile: &str, limits: &Limits) -> Result<()> {
    let mut command = cargo(workspace, "clean", limits.memory_limit_mib);
    command.args(["-p", package, "--profile", profile, "--quiet"]);
    let output = command.stdin(Stdio::null()).output().context(|| format!("running cargo clean -p {package}"))?;
    if !output.status.success() {
        return Err(Error::new(format!(
            "cargo clean -p {package} --profile {profile} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(())
}

/// A cargo command in the generated workspace: its target dir, incremental compilation off,
/// the memory limit set, and none of the variables that would tie it to a cargo that runs
/// `inspect` (its jobserver) or give the wrapper another role.
fn cargo(workspace: &Workspace, subcommand: &str, memory_limit_mib: u64) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.arg(subcommand).arg("--manifest-path").arg(&workspace.manifest);
    command
        .env("CARGO_TARGET_DIR", &workspace.target_dir)
        .env("CARGO_INCREMENTAL", "0")
        .env("CARGO_TERM_COLOR", "never")
        .env("CARGO_TERM_PROGRESS_WHEN", "never");
    for variable in
        ["CARGO_MAKEFLAGS", "MAKEFLAGS", "MFLAGS", "CARGO_BUILD_TARGET_DIR"].into_iter().chain(builds::WRAPPER_ROLE_ENV)
    {
        command.env_remove(variable);
    }
    let bytes = memory_limit_mib.saturating_mul(1 << 20) as libc::rlim_t;
    // SAFETY: the closure runs in the child between fork and exec, and only calls
    // `setrlimit`, which is async-signal-safe, on a value it owns.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

/// Cargo's messages: the executable of `package`, and the rendered compiler errors.
fn read_messages(stdout: impl Read, package: &str) -> (Option<PathBuf>, Vec<String>) {
    let mut executable = None;
    let mut errors = Vec::new();
    for message in Message::parse_stream(BufReader::new(stdout)) {
        match message {
            Ok(Message::CompilerArtifact(artifact)) if artifact.target.name == package => {
                executable = artifact.executable.map(|path| path.into_std_path_buf()).or(executable);
            }
            Ok(Message::CompilerMessage(message))
                if message.message.level == cargo_metadata::diagnostic::DiagnosticLevel::Error =>
            {
                errors.push(message.message.rendered.unwrap_or(message.message.message));
            }
            _ => {}
        }
    }
    (executable, errors)
}

/// What a failed build's messages say it was.
pub fn classify(status: ExitStatus, errors: &[String], stderr: &str) -> Ended {
    const OUT_OF_MEMORY: [&str; 7] = [
        "memory allocation of",
        // The loader, when the limit leaves no room for rustc's own libraries.
        "failed to map segment",
        "out of memory",
        "cannot allocate memory",
        "failed to allocate",
        "std::bad_alloc",
        "memory exhausted",
    ];
    let text = format!("{}\n{stderr}", errors.join("\n"));
    let lowered = text.to_lowercase();
    if let Some(line) = lowered.lines().position(|line| OUT_OF_MEMORY.iter().any(|needle| line.contains(needle))) {
        let said = text.lines().nth(line).unwrap_or_default().trim();
        return Ended::OutOfMemory(said.to_owned());
    }
    let killed = stderr.lines().find_map(|line| line.split("rustc was killed by signal ").nth(1));
    if let Some(signal) = killed.map(str::trim).or(status.signal().map(|_| "")) {
        let signal = if signal.is_empty() { status.signal().unwrap_or(0).to_string() } else { signal.to_owned() };
        let who = if killed.is_some() { "rustc" } else { "cargo" };
        let why = if signal == "9" { " (SIGKILL: the kernel's out-of-memory killer, or a person)" } else { "" };
        return Ended::Killed(format!("{who} was killed by signal {signal}{why}"));
    }
    let first_error = errors.first().map(|error| first_lines(error, 6)).unwrap_or_else(|| {
        let lines: Vec<&str> = stderr.lines().filter(|line| !line.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(6)..].join("\n")
    });
    Ended::Failed(if first_error.is_empty() { format!("cargo exited with {status}") } else { first_error })
}

fn first_lines(text: &str, count: usize) -> String {
    text.lines().take(count).collect::<Vec<_>>().join("\n").trim_end().to_owned()
}

/// Run a built executable with one argument, at most `timeout`: its stdout, or why not.
pub fn run_executable(executable: &Path, argument: &str, timeout: Duration) -> Result<String> {
    let mut child = Command::new(executable)
        .arg(argument)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context(|| format!("running {}", executable.display()))?;
    let stdout = child.stdout.take().context(|| "the executable's stdout")?;
    let stderr = child.stderr.take().context(|| "the executable's stderr")?;
    let stdout = std::thread::spawn(move || read_tail(stdout, 1 << 20));
    let stderr = std::thread::spawn(move || read_tail(stderr, 4096));
    let status = wait_bounded(&mut child, timeout, |_| {})?;
    let (stdout, stderr) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
    match status {
        Some(status) if status.success() => Ok(stdout),
        Some(status) => {
            Err(Error::new(format!("{} {argument} exited with {status}: {}", executable.display(), stderr.trim())))
        }
        None => Err(Error::new(format!("{} {argument} did not end within {timeout:?}", executable.display()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exit(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    #[test]
    fn failures_say_what_they_were() {
        let oom = classify(exit(101), &[], "memory allocation of 1073741824 bytes failed\nerror: could not compile");
        assert_eq!(oom, Ended::OutOfMemory("memory allocation of 1073741824 bytes failed".to_owned()));
        let llvm = classify(exit(101), &[], "LLVM ERROR: out of memory\n");
        assert_eq!(llvm, Ended::OutOfMemory("LLVM ERROR: out of memory".to_owned()));
        let killed = classify(exit(101), &[], "inspect (as rustc wrapper): rustc was killed by signal 9\n");
        assert_eq!(
            killed,
            Ended::Killed(
                "rustc was killed by signal 9 (SIGKILL: the kernel's out-of-memory killer, or a person)".into()
            )
        );
        assert_eq!(classify(ExitStatus::from_raw(15), &[], ""), Ended::Killed("cargo was killed by signal 15".into()));
        let error = "error[E0275]: overflow evaluating the requirement\n  --> src/main.rs:3:1\n";
        assert_eq!(
            classify(exit(101), &[error.to_owned()], "error: could not compile"),
            Ended::Failed("error[E0275]: overflow evaluating the requirement\n  --> src/main.rs:3:1".to_owned())
        );
        assert_eq!(
            classify(exit(101), &[], "\nerror: no such package\n"),
            Ended::Failed("error: no such package".into())
        );
    }

    #[test]
    fn the_tail_of_a_stream_keeps_its_end() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let tail = read_tail(text.as_bytes(), 100);
        assert!(tail.ends_with("line 999\n") && tail.len() <= 300, "{tail}");
    }
}

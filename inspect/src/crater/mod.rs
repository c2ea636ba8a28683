//! `inspect crater LIST`: `inspect crate` over a list of crates, one after another, each as a
//! child process of this same binary (a crate that crashes, errs or runs past its timeout is
//! a row of the table, never the end of the run), resumable: each crate's row is saved as
//! soon as it is done, and a rerun skips the crates already done. The table is written as
//! JSON (`crater.json`, which `inspect --html` shows), and printed.
//!
//! `list` reads the list, `lab` fixes the lowering every crate is built against, `results`
//! holds the rows and totals, `table` prints them.

pub mod lab;
mod list;
pub mod results;
mod table;

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use list::Entry;
use results::{Crater, Row, Status, Totals};

use crate::error::{Context, Error, Result};
use crate::krate;
use crate::process::wait_bounded;

pub const USAGE: &str = "\
usage: inspect crater LIST [--dir DIR] [--again NAME]... [--crate-timeout SECS] [--lab REV]
                     [--no-run] [--json | --markdown] [CRATE OPTIONS...]

Runs `inspect crate` on each crate of LIST, one after another, and writes one table: a row per
crate (its result line: A/N async fns lowered classic, H with hints, its tests classic and
their runtime baseline, or why they were not run; its refusals by rustc's error code; the
tests that pass runtime and not classic), and the totals (the share of async fns lowered
classic, the share of tests passing classic). LIST holds one crate a line, NAME@VERSION or a
path relative to the list, optionally followed by options for that crate alone; # starts a
comment. Each crate's row is saved in DIR as soon as it is done; a rerun skips those (the run
is resumable after an interruption). A crate that fails, crashes or times out is a row that
says so, and the run goes on. A row built against another lab commit than the run's is run
again (give --lab COMMIT to resume a run after HEAD moved on).

  --dir DIR             rows, logs, the crates' shared work directory and crater.json
                        (default <target>/lowering-crater, which `inspect --html` reads)
  --again NAME          run this crate again though it is done (NAME, NAME-VERSION or the
                        list's entry); may be given several times
  --crate-timeout SECS  stop one crate's whole run after this long (default 7200)
  --lab REV             the lab commit whose lowering the crates are built against,
                        extracted once under DIR (default HEAD); `worktree`: this
                        checkout as it is
  --no-run              run no crate: the table of the rows saved so far (while a run
                        goes on in DIR, say)
  --json                print crater.json rather than the table
  --markdown            print the table as Markdown (for docs/real-crates.md)
  CRATE OPTIONS         passed to every `inspect crate` (--build-timeout, --test-timeout,
                        --no-figures, --no-hints, --memcheck, ...; not --dir, --json,
                        --lowering or --list, which the crater sets)";

/// `inspect crate` options that take a value (the list's per-crate options, and the ones
/// passed through, are read with them).
pub const TAKES_A_VALUE: [&str; 8] = [
    "--only",
    "--features",
    "--placement",
    "--build-timeout",
    "--test-timeout",
    "--dir",
    "--memcheck-timeout",
    "--lowering",
];

#[derive(Debug, Default)]
struct Options {
    list: Option<PathBuf>,
    dir: Option<PathBuf>,
    again: Vec<String>,
    crate_timeout: Option<Duration>,
    lab: Option<String>,
    no_run: bool,
    json: bool,
    markdown: bool,
    crate_options: Vec<String>,
    help: bool,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = || {
            inline.clone().or_else(|| args.next()).ok_or_else(|| Error::new(format!("{flag} needs a value\n\n{USAGE}")))
        };
        match flag.as_str() {
            "--dir" => options.dir = Some(PathBuf::from(value()?)),
            "--again" => options.again.push(value()?),
            "--crate-timeout" => {
                let text = value()?;
                match text.parse::<u64>() {
                    Ok(secs) if secs > 0 => options.crate_timeout = Some(Duration::from_secs(secs)),
                    _ => {
                        return Err(Error::new(format!(
                            "--crate-timeout takes a positive number of seconds, not {text:?}"
                        )));
                    }
                }
            }
            "--lab" => options.lab = Some(value()?),
            "--json" => options.json = true,
            "--markdown" => options.markdown = true,
            "--no-run" => options.no_run = true,
            "-h" | "--help" => options.help = true,
            // The crater gives each crate its own (`--dir` and `--json` are the crater's).
            "--lowering" | "--list" => {
                return Err(Error::new(format!("{flag} is set by the crater for each crate\n\n{USAGE}")));
            }
            other if other.starts_with('-') => {
                options.crate_options.push(arg.clone());
                if inline.is_none() && TAKES_A_VALUE.contains(&other) {
                    options.crate_options.push(value()?);
                }
            }
            _ if options.list.is_none() => options.list = Some(PathBuf::from(arg)),
            _ => return Err(Error::new(format!("one LIST only, and {arg:?} is a second\n\n{USAGE}"))),
        }
    }
    if !options.help && options.list.is_none() {
        return Err(Error::new(format!("inspect crater needs a LIST\n\n{USAGE}")));
    }
    if options.json && options.markdown {
        return Err(Error::new(format!("--json and --markdown: one of them\n\n{USAGE}")));
    }
    krate::check_options(&options.crate_options).map_err(|error| Error::new(format!("crate options: {error}")))?;
    Ok(options)
}

pub fn main(args: impl IntoIterator<Item = String>) -> Result<ExitCode> {
    let options = parse(args)?;
    if options.help {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let list_path = options.list.clone().unwrap_or_default();
    let entries = list::read(&list_path)?;
    for entry in &entries {
        krate::check_options(&entry.options)
            .map_err(|error| Error::new(format!("{} line {}: {error}", list_path.display(), entry.line)))?;
    }
    for again in &options.again {
        if !entries.iter().any(|entry| entry.named(again)) {
            return Err(Error::new(format!("--again {again}: no such crate in {}", list_path.display())));
        }
    }
    let dir = match &options.dir {
        Some(dir) => dir.clone(),
        None => krate::lab_target_dir()?.join(results::DIR),
    };
    std::fs::create_dir_all(&dir).context(|| format!("creating {}", dir.display()))?;
    let dir = dir.canonicalize().context(|| format!("resolving {}", dir.display()))?;
    if options.no_run {
        // The lowering and options the rows were made with, as the table last said them.
        let previous = results::load(&dir.join("crater.json")).ok();
        let lab = previous.as_ref().map_or_else(
            || lab::Lab { commit: "unknown (no run yet)".to_owned(), runtime: PathBuf::new() },
            |previous| previous.lab.clone(),
        );
        let crate_options = previous.map_or_else(|| options.crate_options.clone(), |previous| previous.crate_options);
        let crater = table(&entries, &dir, &list_path, &lab, &crate_options)?;
        return print_table(&crater, &options);
    }
    let _lock = RunLock::take(&dir)?;
    let lab = lab::prepare(options.lab.as_deref().unwrap_or("HEAD"), &dir)?;
    let exe = std::env::current_exe().context(|| "finding this inspect's own executable")?;
    let timeout = options.crate_timeout.unwrap_or(Duration::from_secs(7200));
    eprintln!(
        "crater: {} crates from {}, lowering of {}, in {}",
        entries.len(),
        list_path.display(),
        lab.commit,
        dir.display()
    );
    // The table first, every crate pending or done: a run interrupted before its first row
    // is written whole still leaves one that says where it stands.
    table(&entries, &dir, &list_path, &lab, &options.crate_options)?;
    for (at, entry) in entries.iter().enumerate() {
        let row_path = row_path(&dir, entry);
        let again = options.again.iter().any(|again| entry.named(again));
        // A row counts as done for the lowering it was built against: another commit's is
        // run again, so that every row of the table measures one lowering.
        let saved = results::read_row(&row_path);
        let done = saved.as_ref().is_some_and(|row| row.lab_commit == lab.commit);
        if !again && done {
            eprintln!("crater: [{}/{}] {}: already done", at + 1, entries.len(), entry.source);
            continue;
        }
        let other = saved.filter(|_| !done).map_or_else(String::new, |row| {
            let commit = if row.lab_commit.is_empty() { "an unrecorded commit" } else { row.lab_commit.as_str() };
            format!(" (its row was built against {commit})")
        });
        eprintln!("crater: [{}/{}] {}: running{other}", at + 1, entries.len(), entry.source);
        let mut row = run_one(&exe, entry, &dir, &lab, &options.crate_options, timeout)?;
        row.lab_commit = lab.commit.clone();
        let said = row
            .last_line
            .clone()
            .unwrap_or_else(|| format!("{}: {}", row.status.as_str(), row.detail.as_deref().unwrap_or_default()));
        eprintln!("crater: [{}/{}] {} ({:.0} s): {said}", at + 1, entries.len(), entry.source, row.seconds);
        results::write_json(&row_path, &row)?;
        table(&entries, &dir, &list_path, &lab, &options.crate_options)?;
        trim_shared_target(&dir.join("work").join("target"));
    }
    let crater = table(&entries, &dir, &list_path, &lab, &options.crate_options)?;
    print_table(&crater, &options)
}

fn print_table(crater: &Crater, options: &Options) -> Result<ExitCode> {
    if options.json {
        println!("{}", serde_json::to_string_pretty(crater).context(|| "serialising the crater's table")?);
    } else if options.markdown {
        print!("{}", table::markdown(crater));
    } else {
        print!("{}", table::terminal(crater));
    }
    Ok(if crater.pending.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// One run at a time in a directory: two would run the same pending crates in one work
/// directory. The lock file holds the running crater's process id; one whose process is gone
/// (a run killed) is taken over.
struct RunLock(PathBuf);

impl RunLock {
    fn take(dir: &Path) -> Result<RunLock> {
        let path = dir.join("run.lock");
        if let Ok(text) = std::fs::read_to_string(&path) {
            let pid = text.trim();
            if !pid.is_empty() && Path::new("/proc").join(pid).exists() && pid != std::process::id().to_string() {
                return Err(Error::new(format!(
                    "another inspect crater (process {pid}) is running in {}; --no-run prints its table so far",
                    dir.display()
                )));
            }
        }
        std::fs::write(&path, std::process::id().to_string()).context(|| format!("writing {}", path.display()))?;
        Ok(RunLock(path))
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn row_path(dir: &Path, entry: &Entry) -> PathBuf {
    dir.join("rows").join(format!("{}.json", entry.key))
}

/// Gather the saved rows of the list's crates into `crater.json`.
fn table(entries: &[Entry], dir: &Path, list: &Path, lab: &lab::Lab, crate_options: &[String]) -> Result<Crater> {
    let mut rows = Vec::new();
    let mut pending = Vec::new();
    for entry in entries {
        match results::read_row(&row_path(dir, entry)) {
            Some(row) => rows.push(row),
            None => pending.push(entry.source.clone()),
        }
    }
    let crater = Crater {
        schema: results::SCHEMA,
        list: list.display().to_string(),
        lab: lab.clone(),
        crate_options: crate_options.to_vec(),
        totals: Totals::over(&rows),
        rows,
        pending,
    };
    results::write_json(&dir.join("crater.json"), &crater)?;
    Ok(crater)
}

/// One crate's `inspect crate`, as a child process bounded by `timeout`, its error output in
/// `<dir>/logs/KEY.log`.
/// How large the crates' shared target directory may grow before it is removed between two
/// crates: it keeps the dependencies crates share built once, but over a long list it grew to
/// 17 GB and filled a disk.
const SHARED_TARGET_BUDGET: u64 = 8 << 30;

/// Removes the shared target directory when it is over `SHARED_TARGET_BUDGET` (the next crate
/// builds its dependencies again), saying so.
fn trim_shared_target(target: &Path) {
    let size = size_of_tree(target);
    if size > SHARED_TARGET_BUDGET {
        eprintln!("crater: the shared target directory is {:.1} GB: removed before the next crate", size as f64 / 1e9);
        if let Err(error) = std::fs::remove_dir_all(target) {
            eprintln!("crater: could not remove {}: {error}", target.display());
        }
    }
}

/// The bytes of the files under `path` (symbolic links not followed).
fn size_of_tree(path: &Path) -> u64 {
    let Ok(metadata) = std::fs::symlink_metadata(path) else { return 0 };
    if !metadata.is_dir() {
        return metadata.len();
    }
    std::fs::read_dir(path).map(|entries| entries.flatten().map(|entry| size_of_tree(&entry.path())).sum()).unwrap_or(0)
}

fn run_one(
    exe: &Path,
    entry: &Entry,
    dir: &Path,
    lab: &lab::Lab,
    crate_options: &[String],
    timeout: Duration,
) -> Result<Row> {
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).context(|| format!("creating {}", logs.display()))?;
    let log = logs.join(format!("{}.log", entry.key));
    let log_file = File::create(&log).context(|| format!("creating {}", log.display()))?;
    let mut command = Command::new(exe);
    command
        .arg("crate")
        .arg(&entry.source)
        .arg("--dir")
        .arg(dir.join("work"))
        .arg("--json")
        .arg("--lowering")
        .arg(&lab.runtime)
        .args(crate_options)
        .args(&entry.options)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log_file);
    let started = Instant::now();
    let mut child = command.spawn().context(|| format!("running inspect crate on {}", entry.source))?;
    let stdout = child.stdout.take().context(|| "inspect crate's output")?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::BufReader::new(stdout).read_to_string(&mut text);
        text
    });
    let status = wait_bounded(&mut child, timeout, |_| {})?;
    let stdout = reader.join().unwrap_or_default();
    let seconds = started.elapsed().as_secs_f64();
    let failed =
        |status: Status, detail: String| Row::failed(&entry.source, &entry.key, status, detail, seconds, log.clone());
    let Some(status) = status else {
        return Ok(failed(Status::Timeout, format!("stopped after {} s (--crate-timeout)", timeout.as_secs())));
    };
    if let Ok(results) = serde_json::from_str::<krate::results::Results>(&stdout) {
        return Ok(Row::done(&entry.source, &entry.key, &results, seconds, log));
    }
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    Ok(match said.rfind("inspect: error: ") {
        Some(at) if status.code().is_some() => {
            let error: String = said[at + "inspect: error: ".len()..].trim().chars().take(2000).collect();
            failed(Status::Error, error)
        }
        _ => failed(Status::Crashed, format!("inspect crate ended with {status} and no results")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Result<Options> {
        parse(text.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn the_shared_target_is_measured_and_kept_under_its_budget() {
        let dir = std::env::temp_dir().join(format!("lowering-crater-trim-{}", std::process::id()));
        let target = dir.join("target");
        std::fs::create_dir_all(target.join("debug/deps")).unwrap();
        std::fs::write(target.join("debug/deps/a.rlib"), vec![0u8; 3000]).unwrap();
        std::fs::write(target.join("debug/b"), vec![0u8; 1000]).unwrap();
        assert_eq!(size_of_tree(&target), 4000);
        trim_shared_target(&target);
        assert!(target.exists(), "under the budget, kept");
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(size_of_tree(&target), 0, "a missing directory is empty");
    }

    #[test]
    fn options_are_the_crater_s_or_passed_to_each_crate() {
        let options =
            args("list.txt --dir d --again a --again=b --build-timeout 900 --no-figures --features x,y --lab worktree")
                .unwrap();
        assert_eq!(options.list.as_deref(), Some(Path::new("list.txt")));
        assert_eq!(options.again, ["a", "b"]);
        assert_eq!(options.lab.as_deref(), Some("worktree"));
        assert_eq!(options.crate_options, ["--build-timeout", "900", "--no-figures", "--features", "x,y"]);
        for (bad, said) in [
            ("", "needs a LIST"),
            ("a b", "one LIST only"),
            ("a --lowering x", "set by the crater"),
            ("a --bogus", "unknown option --bogus"),
            ("a --build-timeout 0", "positive number"),
            ("a --crate-timeout x", "--crate-timeout takes"),
            ("a --again", "--again needs a value"),
        ] {
            let error = args(bad).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(error.contains(said), "{bad:?}: {error}");
        }
    }
}

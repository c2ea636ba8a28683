//! The crater's table (`<dir>/crater.json`, schema 1): a row per crate of the list, saved alone
//! as soon as the crate is done (`<dir>/rows/KEY.json`, what a rerun skips), and the totals
//! over the rows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::lab::Lab;
use crate::error::{Context, Result};
use crate::krate::results::Results;

pub const SCHEMA: u64 = 1;
/// The crater's directory under the lab's target directory, when `--dir` is not given.
pub const DIR: &str = "lowering-crater";

pub fn default_path(target_dir: &Path) -> PathBuf {
    target_dir.join(DIR).join("crater.json")
}

/// How a crate's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// `inspect crate` ended with its results (whatever they say).
    Done,
    /// It stopped with an error and no results (the crate could not be fetched, its
    /// reference build fails, ...).
    Error,
    /// It ran past `--crate-timeout` and was stopped.
    Timeout,
    /// It died (a signal, or an exit without results or an error).
    Crashed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::Error => "error",
            Status::Timeout => "timeout",
            Status::Crashed => "crashed",
        }
    }
}

/// A function refused classic, in a row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refused {
    pub path: String,
    /// The function's `file:line`, and the error's.
    pub at: String,
    pub error_at: String,
    pub message: String,
}

/// What `--memcheck` found in a crate's test binaries (the classic build's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemcheckSummary {
    /// `run`, or why not (`not run: valgrind missing`).
    pub status: String,
    pub binaries: usize,
    /// valgrind's errors over every binary (`None`: not run).
    pub errors: Option<u64>,
    /// Run, and every binary finished with no error.
    pub clean: bool,
    /// Each binary that was not clean: `name: verdict (first error or why)`.
    pub not_clean: Vec<String>,
}

impl MemcheckSummary {
    fn of(memcheck: &crate::krate::memcheck::Memcheck) -> MemcheckSummary {
        use crate::krate::memcheck::Verdict;
        let not_clean = memcheck
            .binaries
            .iter()
            .filter(|binary| binary.verdict != Verdict::Clean)
            .map(|binary| {
                let why = binary.first_error.as_deref().or(binary.detail.as_deref()).unwrap_or("");
                format!("{}: {} ({why})", binary.name, binary.verdict.as_str())
            })
            .collect();
        MemcheckSummary {
            status: memcheck.status.clone(),
            binaries: memcheck.binaries.len(),
            errors: memcheck.errors,
            clean: memcheck.clean,
            not_clean,
        }
    }

    /// `memcheck clean (4 binaries)`, `memcheck: 3 errors`, `memcheck not run: ...`.
    pub fn said(&self) -> String {
        match self.errors {
            _ if self.clean => format!("memcheck clean ({} binaries)", self.binaries),
            Some(errors) if self.status == "run" => {
                format!("memcheck: {errors} errors, {} of {} binaries not clean", self.not_clean.len(), self.binaries)
            }
            _ => format!("memcheck {}", self.status),
        }
    }
}

/// Passed and total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    pub passed: usize,
    pub total: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The list's entry: `NAME@VERSION` or a path, and its key.
    pub source: String,
    pub key: String,
    pub status: Status,
    /// Why it is not `done`: inspect's error, the timeout, the crash.
    pub detail: Option<String>,
    pub seconds: f64,
    /// `inspect crate`'s log of this crate.
    pub log: PathBuf,
    /// The lab commit whose lowering this crate was built against (a rerun with another
    /// `--lab` leaves the rows it did not redo on theirs: the table says so).
    #[serde(default)]
    pub lab_commit: String,
    pub name: Option<String>,
    pub version: Option<String>,
    pub edition: Option<String>,
    /// The result line, as `inspect crate` ends with it.
    pub last_line: Option<String>,
    pub functions: usize,
    pub accepted: usize,
    pub hinted: usize,
    /// The crate's tests with the accepted fns classic, and with every fn runtime (`None`: not
    /// run, `tests_not_run` says why).
    pub classic: Option<Count>,
    pub baseline: Option<Count>,
    pub tests_not_run: Option<String>,
    /// Refusals by rustc's error code.
    pub refusals: BTreeMap<String, Vec<Refused>>,
    /// Tests that pass with every fn runtime and not with the accepted fns classic:
    /// `binary: test (why)`.
    pub classic_only_failures: Vec<String>,
    /// `--memcheck`: what valgrind found in the classic build's tests.
    #[serde(default)]
    pub memcheck: Option<MemcheckSummary>,
}

impl Row {
    /// A row for a crate that ended without results.
    pub fn failed(source: &str, key: &str, status: Status, detail: String, seconds: f64, log: PathBuf) -> Row {
        Row {
            source: source.to_owned(),
            key: key.to_owned(),
            status,
            detail: Some(detail),
            seconds,
            log,
            lab_commit: String::new(),
            name: None,
            version: None,
            edition: None,
            last_line: None,
            functions: 0,
            accepted: 0,
            hinted: 0,
            classic: None,
            baseline: None,
            tests_not_run: None,
            refusals: BTreeMap::new(),
            classic_only_failures: Vec::new(),
            memcheck: None,
        }
    }

    /// The row of a crate `inspect crate` ended with `results` for.
    pub fn done(source: &str, key: &str, results: &Results, seconds: f64, log: PathBuf) -> Row {
        let count = |name: &str| {
            results
                .configuration(name)
                .filter(|tests| tests.not_run.is_none())
                .map(|tests| Count { passed: tests.passed(), total: tests.total() })
        };
        let mut refusals: BTreeMap<String, Vec<Refused>> = BTreeMap::new();
        for verdict in &results.functions {
            let Some(refusal) = &verdict.refused else { continue };
            let f = &verdict.function;
            refusals.entry(refusal.error.code.clone()).or_default().push(Refused {
                path: f.path.clone(),
                at: format!("{}:{}", f.file, f.line),
                error_at: format!("{}:{}", refusal.error.file, refusal.error.line),
                message: refusal.error.message.clone(),
            });
        }
        let tests_not_run = results.configuration("classic").and_then(|tests| tests.not_run.clone());
        Row {
            source: source.to_owned(),
            key: key.to_owned(),
            status: Status::Done,
            detail: None,
            seconds,
            log,
            lab_commit: String::new(),
            name: Some(results.name.clone()),
            version: Some(results.version.clone()),
            edition: Some(results.edition.clone()),
            last_line: Some(results.last_line()),
            functions: results.functions.len(),
            accepted: results.accepted(),
            hinted: results.hinted(),
            classic: count("classic"),
            baseline: count("runtime"),
            tests_not_run,
            refusals,
            classic_only_failures: classic_only_failures(results),
            memcheck: results.memcheck.as_ref().map(MemcheckSummary::of),
        }
    }

    /// The crate's name for tables: the name it reported, else the list's key.
    pub fn label(&self) -> String {
        match (&self.name, &self.version) {
            (Some(name), Some(version)) => format!("{name}@{version}"),
            _ => self.source.clone(),
        }
    }
}

/// The tests that pass in the runtime configuration but not in the classic one.
fn classic_only_failures(results: &Results) -> Vec<String> {
    let (Some(runtime), Some(classic)) = (results.configuration("runtime"), results.configuration("classic")) else {
        return Vec::new();
    };
    if classic.not_run.is_some() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (binary, outcome) in &runtime.binaries {
        let classic_outcome = classic.binaries.iter().find(|(name, _)| name == binary).map(|(_, outcome)| outcome);
        for test in &outcome.passed {
            let why = match classic_outcome {
                None => Some("its binary did not run".to_owned()),
                Some(o) if o.passed.contains(test) => None,
                Some(o) if o.failed.contains(test) => {
                    Some(o.reasons.get(test).cloned().unwrap_or_else(|| "failed".to_owned()))
                }
                Some(o) if o.hung.contains(test) => Some("hung".to_owned()),
                Some(o) => Some(o.crashed.clone().map_or_else(|| "not run".to_owned(), |c| format!("crashed: {c}"))),
            };
            if let Some(why) = why {
                found.push(format!("{binary}: {test} ({why})"));
            }
        }
    }
    found
}

/// The whole table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Crater {
    pub schema: u64,
    /// The list file, as given.
    pub list: String,
    /// The lowering every crate was built against.
    pub lab: Lab,
    /// The options every crate was run with.
    pub crate_options: Vec<String>,
    /// In the list's order; the list's crates not done yet are `pending`.
    pub rows: Vec<Row>,
    pub pending: Vec<String>,
    pub totals: Totals,
}

/// Over every row that ended with results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub crates: usize,
    /// Rows with results, and those without (error, timeout, crash).
    pub measured: usize,
    pub not_measured: usize,
    pub functions: usize,
    pub accepted: usize,
    pub hinted: usize,
    /// Over the crates whose classic tests ran: passed/total classic, and the same crates'
    /// runtime baseline.
    pub tested_crates: usize,
    pub classic: Count,
    pub baseline: Count,
    /// Crates with a test that passes runtime and not classic, and how many such tests.
    pub crates_with_classic_only_failures: usize,
    pub classic_only_failures: usize,
    /// Refusals by code, over every crate.
    pub refusals: BTreeMap<String, usize>,
    /// `--memcheck`: the crates whose tests ran under it, those clean, and valgrind's errors.
    #[serde(default)]
    pub memcheck_crates: usize,
    #[serde(default)]
    pub memcheck_clean: usize,
    #[serde(default)]
    pub memcheck_errors: u64,
}

impl Totals {
    pub fn over(rows: &[Row]) -> Totals {
        let mut totals = Totals { crates: rows.len(), ..Totals::default() };
        for row in rows {
            if row.status != Status::Done {
                totals.not_measured += 1;
                continue;
            }
            totals.measured += 1;
            totals.functions += row.functions;
            totals.accepted += row.accepted;
            totals.hinted += row.hinted;
            if let (Some(classic), Some(baseline)) = (row.classic, row.baseline) {
                totals.tested_crates += 1;
                totals.classic.passed += classic.passed;
                totals.classic.total += classic.total;
                totals.baseline.passed += baseline.passed;
                totals.baseline.total += baseline.total;
            }
            if !row.classic_only_failures.is_empty() {
                totals.crates_with_classic_only_failures += 1;
                totals.classic_only_failures += row.classic_only_failures.len();
            }
            for (code, refused) in &row.refusals {
                *totals.refusals.entry(code.clone()).or_default() += refused.len();
            }
            if let Some(memcheck) = &row.memcheck {
                totals.memcheck_crates += 1;
                totals.memcheck_clean += usize::from(memcheck.clean);
                totals.memcheck_errors += memcheck.errors.unwrap_or(0);
            }
        }
        totals
    }

    /// `412/430 async fns lowered classic (95.8 %), 12 with hints; tests 2900/2910 pass
    /// classic (99.7 %) in 35 crates (runtime baseline 2910/2910)`.
    pub fn line(&self) -> String {
        let share = |part: usize, whole: usize| {
            if whole == 0 { "-".to_owned() } else { format!("{:.1} %", 100.0 * part as f64 / whole as f64) }
        };
        // (`--memcheck`: how many crates' tests ran clean under it.)
        let memcheck = if self.memcheck_crates == 0 {
            String::new()
        } else {
            format!(
                "; memcheck: {} of {} crates clean, {} errors",
                self.memcheck_clean, self.memcheck_crates, self.memcheck_errors
            )
        };
        format!(
            "{}/{} async fns lowered classic ({}), {} with hints; tests {}/{} pass classic ({}) in {} crates \
             (runtime baseline {}/{}); {} of {} crates measured{memcheck}",
            self.accepted,
            self.functions,
            share(self.accepted, self.functions),
            self.hinted,
            self.classic.passed,
            self.classic.total,
            share(self.classic.passed, self.classic.total),
            self.tested_crates,
            self.baseline.passed,
            self.baseline.total,
            self.measured,
            self.crates
        )
    }

    /// The codes, most refusals first.
    pub fn refusals_by_count(&self) -> Vec<(&str, usize)> {
        let mut codes: Vec<(&str, usize)> = self.refusals.iter().map(|(code, n)| (code.as_str(), *n)).collect();
        codes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        codes
    }
}

pub fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).context(|| format!("creating {}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(value).context(|| "serialising the crater's results")?;
    // Written aside and renamed: an interruption never leaves half a file to be read back.
    let partial = path.with_extension("json.partial");
    std::fs::write(&partial, text).context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, path).context(|| format!("writing {}", path.display()))
}

/// A saved row, if the crate is done; a row that cannot be read is redone.
pub fn read_row(path: &Path) -> Option<Row> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// The table for the page: absent or unreadable ones are said so, not an error.
pub fn load(path: &Path) -> std::result::Result<Crater, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|_| format!("no crater results at {} (run `cargo run -p inspect -- crater LIST`)", path.display()))?;
    let crater: Crater = serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))?;
    if crater.schema != SCHEMA {
        return Err(format!("{}: schema {}, this inspect reads {SCHEMA}", path.display(), crater.schema));
    }
    Ok(crater)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(key: &str, memcheck: Option<MemcheckSummary>) -> Row {
        let mut row = Row::failed(key, key, Status::Done, String::new(), 1.0, PathBuf::from("log"));
        row.detail = None;
        row.functions = 2;
        row.accepted = 2;
        row.memcheck = memcheck;
        row
    }

    #[test]
    fn memcheck_is_counted_per_crate_and_said_in_the_line() {
        let clean =
            MemcheckSummary { status: "run".into(), binaries: 3, errors: Some(0), clean: true, not_clean: Vec::new() };
        let dirty = MemcheckSummary {
            status: "run".into(),
            binaries: 2,
            errors: Some(4),
            clean: false,
            not_clean: vec!["test t: errors (InvalidRead)".into()],
        };
        let rows = [measured("a", Some(clean.clone())), measured("b", Some(dirty.clone())), measured("c", None)];
        let totals = Totals::over(&rows);
        assert_eq!((totals.memcheck_crates, totals.memcheck_clean, totals.memcheck_errors), (2, 1, 4));
        assert!(totals.line().ends_with("; memcheck: 1 of 2 crates clean, 4 errors"), "{}", totals.line());
        assert_eq!(clean.said(), "memcheck clean (3 binaries)");
        assert_eq!(dirty.said(), "memcheck: 4 errors, 1 of 2 binaries not clean");
        // Without `--memcheck`, the line says nothing of it.
        assert!(!Totals::over(&rows[2..]).line().contains("memcheck"));
    }
}

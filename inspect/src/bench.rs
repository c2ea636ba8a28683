//! The benchmark's summary (written by `cargo bench -p lowering` to `<target>/lowering-bench/`,
//! schema 1), read for the page and the opening summary, and whether it measured the source
//! being inspected.
//!
//! A full run writes `summary.json`; a quick or partial run writes beside it under its own
//! name (`summary-quick.json`, `summary-rows-B3-B6.json`). Of the summaries there, inspect
//! reads the most complete one of the inspected commit ([`choose`]) and says which.
//! A summary is never trusted blindly: one that is missing or unreadable is said so, and one
//! measured at another commit (or on a working tree with changes) is marked stale with its
//! date and commit, since its figures may describe other code.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::error::{Context, Error, Result};

/// Where `cargo bench -p lowering` leaves its summary, under a target directory.
pub const SUMMARY_DIR: &str = "lowering-bench";
const SCHEMA: u64 = 1;

/// One row of the summary: one scenario measured for one subject.
#[derive(Debug, Clone)]
pub struct Row {
    pub id: String,
    pub name: String,
    pub unit: String,
    /// `classic`, `runtime` or `control`.
    pub variant: String,
    pub ns: Spread,
    pub bytes_per_op: Option<f64>,
    pub allocs_per_op: Option<f64>,
    /// `None` when not counted (a quick run, or no valgrind).
    pub instructions_per_op: Option<f64>,
}

impl Row {
    /// The scenario this row belongs to: id and name (B8 has two scenarios).
    pub fn scenario(&self) -> String {
        format!("{} {}", self.id, self.name)
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

#[derive(Debug, Clone)]
pub struct Summary {
    pub path: PathBuf,
    pub rows: Vec<Row>,
    pub quick: bool,
    /// The rows a `--rows` run was limited to; empty for a run of every row.
    pub rows_requested: Vec<String>,
    pub commit: Option<String>,
    pub dirty: Option<bool>,
    pub written_unix: Option<u64>,
}

impl Summary {
    /// The scenarios in table order, each with its rows.
    pub fn scenarios(&self) -> Vec<(String, Vec<&Row>)> {
        let mut scenarios: Vec<(String, Vec<&Row>)> = Vec::new();
        for row in &self.rows {
            let key = row.scenario();
            match scenarios.iter_mut().find(|(name, _)| *name == key) {
                Some((_, rows)) => rows.push(row),
                None => scenarios.push((key, vec![row])),
            }
        }
        scenarios
    }

    pub fn row(&self, scenario: &str, variant: &str) -> Option<&Row> {
        self.rows.iter().find(|row| row.scenario() == scenario && row.variant == variant)
    }

    /// What kind of run wrote it: `a full run`, `a --quick run`, `a partial run (--rows B3,B6)`.
    pub fn kind(&self) -> String {
        let rows = self.rows_requested.join(",");
        match (self.quick, self.rows_requested.is_empty()) {
            (false, true) => "a full run".to_owned(),
            (true, true) => "a --quick run".to_owned(),
            (false, false) => format!("a partial run (--rows {rows})"),
            (true, false) => format!("a --quick partial run (--rows {rows})"),
        }
    }

    /// Ranks runs by how complete they are, best first: every row before some rows, the full
    /// protocol before `--quick`, then more rows, then the newer.
    fn completeness(&self) -> (bool, bool, usize, u64) {
        (self.rows_requested.is_empty(), !self.quick, self.rows.len(), self.written_unix.unwrap_or(0))
    }

    /// `2026-12-01 14:03 UTC, commit b4ad585` (with what is known).
    pub fn provenance(&self) -> String {
        let date = self.written_unix.map_or_else(|| "date unknown".to_owned(), utc_date);
        let commit = self.commit.as_deref().map_or_else(
            || "no commit recorded".to_owned(),
            |commit| format!("commit {}", &commit[..commit.len().min(10)]),
        );
        let dirty = if self.dirty == Some(true) { " with uncommitted changes" } else { "" };
        format!("{date}, {commit}{dirty}")
    }
}

/// What the page and the opening summary know about the benchmark.
#[derive(Debug, Clone)]
pub enum Bench {
    Missing(PathBuf),
    Unreadable(PathBuf, String),
    /// `others`: the other summaries there were to choose from.
    Found {
        summary: Summary,
        stale: Option<String>,
        others: usize,
    },
}

impl Bench {
    pub fn summary(&self) -> Option<&Summary> {
        match self {
            Bench::Found { summary, .. } => Some(summary),
            _ => None,
        }
    }

    /// One line saying where the figures come from, or why there are none.
    pub fn status(&self) -> String {
        match self {
            Bench::Missing(path) => format!(
                "no benchmark summary at {}: run `cargo bench -p lowering` for timings and allocations",
                path.display()
            ),
            Bench::Unreadable(path, reason) => {
                format!("the benchmark summary {} cannot be read: {reason}", path.display())
            }
            Bench::Found { summary, stale, others } => {
                let chosen = match (others, stale) {
                    (0, _) => String::new(),
                    (n, None) => format!("; the most complete of this commit, of {} summaries", n + 1),
                    (n, Some(_)) => format!("; the most complete of {} summaries, none of this commit", n + 1),
                };
                let stale = stale.as_ref().map_or_else(String::new, |why| format!(": {why}"));
                format!(
                    "{}benchmark summary {} ({}, {}{chosen}){stale}",
                    if stale.is_empty() { "" } else { "STALE " },
                    summary.path.display(),
                    summary.kind(),
                    summary.provenance(),
                )
            }
        }
    }
}

/// The directory the benchmark writes its summaries to, under a target directory.
pub fn default_dir(target_dir: &Path) -> PathBuf {
    target_dir.join(SUMMARY_DIR)
}

/// Read the summary at `path` and compare it with the source at `source_root`.
pub fn load(path: &Path, source_root: &Path) -> Bench {
    if !path.exists() {
        return Bench::Missing(path.to_owned());
    }
    match read(path) {
        Ok(summary) => {
            let stale = staleness(&summary, &current_source(source_root));
            Bench::Found { summary, stale, others: 0 }
        }
        Err(error) => Bench::Unreadable(path.to_owned(), error.to_string()),
    }
}

/// Of the summaries in `dir` (`summary*.json`), the most complete one that measured the
/// source at `source_root`, or failing that the most complete one of any commit (stale).
pub fn choose(dir: &Path, source_root: &Path) -> Bench {
    pick(summaries_in(dir), dir, &current_source(source_root))
}

fn summaries_in(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("summary") && name.ends_with(".json"))
        })
        .collect();
    paths.sort();
    paths
}

fn pick(paths: Vec<PathBuf>, dir: &Path, source: &Source) -> Bench {
    let others = paths.len().saturating_sub(1);
    let mut unreadable = None;
    let mut readable = Vec::new();
    for path in paths {
        match read(&path) {
            Ok(summary) => readable.push((staleness(&summary, source), summary)),
            Err(error) => unreadable = unreadable.or(Some((path, error.to_string()))),
        }
    }
    // Current before stale, then the most complete.
    let best = readable.into_iter().max_by(|(a_stale, a), (b_stale, b)| {
        (a_stale.is_none(), a.completeness()).cmp(&(b_stale.is_none(), b.completeness()))
    });
    match (best, unreadable) {
        (Some((stale, summary)), _) => Bench::Found { summary, stale, others },
        (None, Some((path, reason))) => Bench::Unreadable(path, reason),
        (None, None) => Bench::Missing(dir.join("summary.json")),
    }
}

fn read(path: &Path) -> Result<Summary> {
    let text = std::fs::read_to_string(path).context(|| format!("reading {}", path.display()))?;
    parse(path, &text)
}

pub fn parse(path: &Path, text: &str) -> Result<Summary> {
    let json: Value = serde_json::from_str(text).context(|| "not JSON")?;
    if json["schema"].as_u64() != Some(SCHEMA) {
        return Err(Error::new(format!("schema {} (this inspect reads schema {SCHEMA})", json["schema"])));
    }
    let rows = json["rows"].as_array().context(|| "no `rows` array")?;
    let rows = rows
        .iter()
        .enumerate()
        .map(|(index, row)| read_row(row).context(|| format!("row {index}")))
        .collect::<Result<Vec<_>>>()?;
    let source = &json["source"];
    Ok(Summary {
        path: path.to_owned(),
        rows,
        quick: json["quick"].as_bool().unwrap_or(false),
        rows_requested: json["rows_requested"]
            .as_array()
            .map(|rows| rows.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default(),
        commit: source["commit"].as_str().map(str::to_owned),
        dirty: source["dirty"].as_bool(),
        written_unix: source["written_unix"].as_u64(),
    })
}

fn read_row(row: &Value) -> Result<Row> {
    let text = |field: &str| row[field].as_str().map(str::to_owned).context(|| format!("no `{field}`"));
    let ns = &row["ns_per_op"];
    let number = |field: &str| ns[field].as_f64().context(|| format!("no `ns_per_op.{field}`"));
    Ok(Row {
        id: text("id")?,
        name: text("name")?,
        unit: text("unit")?,
        variant: text("variant")?,
        ns: Spread { median: number("median")?, min: number("min")?, max: number("max")? },
        bytes_per_op: row["bytes_per_op"].as_f64(),
        allocs_per_op: row["allocs_per_op"].as_f64(),
        instructions_per_op: row["instructions_per_op"].as_f64(),
    })
}

/// The commit of the inspected source, and whether its working tree has changes; `None`
/// outside a git checkout.
#[derive(Debug, Clone, Default)]
pub struct Source {
    pub commit: Option<String>,
    pub dirty: Option<bool>,
}

pub fn current_source(root: &Path) -> Source {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    Source { commit: git(&["rev-parse", "HEAD"]), dirty: git(&["status", "--porcelain"]).map(|s| !s.is_empty()) }
}

/// Why the summary may not describe the inspected source, if it may not.
pub fn staleness(summary: &Summary, source: &Source) -> Option<String> {
    let short = |commit: &str| commit[..commit.len().min(10)].to_owned();
    match (&summary.commit, &source.commit) {
        (None, _) => Some("it records no commit, so it cannot be matched to this source".to_owned()),
        (Some(_), None) => Some("the inspected source is not a git checkout, so it cannot be matched".to_owned()),
        (Some(measured), Some(current)) if measured != current => {
            Some(format!("measured at commit {}, the inspected source is at {}", short(measured), short(current)))
        }
        _ if summary.dirty == Some(true) => {
            Some("measured on a working tree with uncommitted changes, which may differ from this one".to_owned())
        }
        _ if source.dirty == Some(true) => Some(
            "the inspected working tree has uncommitted changes made after or apart from the measurement".to_owned(),
        ),
        _ => None,
    }
}

/// Seconds since 1970 as `YYYY-MM-DD HH:MM UTC` (days to a civil date, proleptic Gregorian).
pub fn utc_date(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let (hour, minute) = ((seconds % 86_400) / 3600, (seconds % 3600) / 60);
    // Shift the epoch to 0000-03-01 so that leap days fall at the end of each 400-year era.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02} UTC")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil_utc() {
        assert_eq!(utc_date(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_date(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc_date(1_796_135_580), "2026-12-01 14:33 UTC");
    }

    fn summary(commit: Option<&str>, dirty: Option<bool>) -> Summary {
        Summary {
            path: PathBuf::from("summary.json"),
            rows: Vec::new(),
            quick: false,
            rows_requested: Vec::new(),
            commit: commit.map(str::to_owned),
            dirty,
            written_unix: Some(0),
        }
    }

    #[test]
    fn a_summary_of_another_commit_is_stale() {
        let here = Source { commit: Some("aaaa".to_owned()), dirty: Some(false) };
        assert_eq!(staleness(&summary(Some("aaaa"), Some(false)), &here), None);
        assert!(staleness(&summary(Some("bbbb"), Some(false)), &here).is_some_and(|why| why.contains("bbbb")));
        assert!(staleness(&summary(None, None), &here).is_some());
        assert!(staleness(&summary(Some("aaaa"), Some(true)), &here).is_some());
    }

    #[test]
    fn a_malformed_summary_is_an_error_not_a_guess() {
        let path = Path::new("summary.json");
        assert!(parse(path, "{").is_err());
        assert!(parse(path, r#"{"schema": 2, "rows": []}"#).is_err());
        let error = parse(path, r#"{"schema": 1, "rows": [{"id": "B1"}]}"#).err().map(|e| e.to_string());
        assert_eq!(error.as_deref(), Some("row 0: no `name`"));
    }

    /// A summary file of `commit`, `quick` or not, limited to `rows` when there are any.
    fn write_summary(dir: &Path, name: &str, commit: &str, quick: bool, rows: &[&str]) {
        let text = serde_json::json!({
            "schema": 1, "quick": quick, "rows_requested": rows, "rows": [],
            "source": { "commit": commit, "dirty": false, "written_unix": 0 },
        });
        std::fs::write(dir.join(name), text.to_string()).expect("a temporary file");
    }

    #[test]
    fn the_most_complete_summary_of_this_commit_is_read_and_named() {
        let dir = std::env::temp_dir().join(format!("inspect-bench-choose-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let here = Source { commit: Some("aaaa".to_owned()), dirty: Some(false) };
        let chosen = |dir: &Path| match pick(summaries_in(dir), dir, &here) {
            Bench::Found { summary, stale, .. } => {
                (summary.path.file_name().and_then(|n| n.to_str()).map(str::to_owned), stale.is_none())
            }
            _ => (None, false),
        };
        write_summary(&dir, "summary-quick.json", "aaaa", true, &[]);
        write_summary(&dir, "summary-rows-B3.json", "aaaa", false, &["B3"]);
        assert_eq!(chosen(&dir), (Some("summary-quick.json".to_owned()), true), "every row beats some rows");
        // A full run of another commit does not displace this commit's quick run.
        write_summary(&dir, "summary.json", "bbbb", false, &[]);
        assert_eq!(chosen(&dir), (Some("summary-quick.json".to_owned()), true));
        write_summary(&dir, "summary.json", "aaaa", false, &[]);
        assert_eq!(chosen(&dir), (Some("summary.json".to_owned()), true));
        let status = pick(summaries_in(&dir), &dir, &here).status();
        assert!(
            status.contains("summary.json (a full run, ")
                && status.contains("most complete of this commit, of 3 summaries"),
            "{status}"
        );
        // Nothing of this commit: the most complete of another, said to be stale.
        let elsewhere = Source { commit: Some("cccc".to_owned()), dirty: Some(false) };
        let status = pick(summaries_in(&dir), &dir, &elsewhere).status();
        assert!(status.starts_with("STALE") && status.contains("none of this commit"), "{status}");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(matches!(pick(Vec::new(), &dir, &here), Bench::Missing(_)));
    }
}

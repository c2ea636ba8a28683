//! The results of a call-graph run (`<target>/lowering-callgraph/results.json`, schema 1):
//! written after every build, so that an interrupted run leaves what it measured (`complete`
//! false), printed by `--json`, and read by the page, which says when they are missing or were
//! measured on other code (like the benchmark's summary).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::binary::{Records, Symbols};
use crate::bench;
use crate::error::{Context, Error, Result};

pub const SCHEMA: u64 = 1;
/// Where the results go, under the target directory.
pub const DIR: &str = "lowering-callgraph";

pub fn default_path(target_dir: &Path) -> PathBuf {
    target_dir.join(DIR).join("results.json")
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub schema: u64,
    /// False while the run is going on (or when it was interrupted).
    pub complete: bool,
    pub source: Source,
    pub machine: Machine,
    pub settings: Settings,
    /// The dependencies' build, before the measured ones (its time is in no figure).
    pub dependencies: Dependencies,
    pub builds: Vec<Build>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Source {
    pub commit: Option<String>,
    pub dirty: Option<bool>,
    pub written_unix: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub rustc: String,
    pub cores: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub depths: Vec<u32>,
    pub shapes: Vec<String>,
    pub variants: Vec<String>,
    pub timeout_s: f64,
    pub memory_limit_mib: u64,
    /// `cargo build --jobs`; `None`: cargo's default.
    pub jobs: Option<u32>,
    /// The generated crates' `#![recursion_limit]`.
    pub recursion_limit: u32,
    /// Per shape, the profile and what it means.
    pub profiles: BTreeMap<String, String>,
    pub incremental: bool,
    /// What the times are.
    pub timed: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dependencies {
    /// Per profile, cargo's wall time for the dependencies (`null`: already built).
    pub wall_ms: BTreeMap<String, u64>,
}

/// How one build ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Built,
    /// rustc reported an error.
    Failed,
    /// Stopped at the timeout.
    Timeout,
    /// An allocation failed at the memory limit.
    OutOfMemory,
    /// Killed by a signal (the kernel's out-of-memory killer, most often).
    Killed,
    /// Not built: a shallower depth of the same shape and lowering did not build.
    Skipped,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Built => "built",
            Outcome::Failed => "failed",
            Outcome::Timeout => "timeout",
            Outcome::OutOfMemory => "out of memory",
            Outcome::Killed => "killed",
            Outcome::Skipped => "skipped",
        }
    }
}

/// One generated crate, built once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Build {
    pub shape: String,
    pub depth: u32,
    pub variant: String,
    pub package: String,
    /// Async fns in the crate (`depth + 1`).
    pub functions: u32,
    /// Paths through the call graph from `main_0` to `main_depth` (saturating).
    pub paths: u64,
    pub outcome: Outcome,
    /// Why it did not build (rustc's first error, the allocation that failed, the signal, or the
    /// build that made it skipped).
    pub detail: Option<String>,
    /// Cargo's wall time for the build (freshness checks included; at the timeout for one that
    /// timed out).
    pub cargo_wall_ms: Option<u64>,
    /// The crate's own rustc, as the wrapper measured it (`None`: rustc did not finish).
    pub rustc: Option<Rustc>,
    /// The executable (a built one only).
    pub binary: Option<Binary>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rustc {
    pub wall_ms: u64,
    pub cpu_ms: Option<u64>,
    pub max_rss_kib: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binary {
    pub path: String,
    pub bytes: u64,
    /// `None` when the symbol table could not be read (and `symbols_error` says why).
    pub symbols: Option<Symbols>,
    pub symbols_error: Option<String>,
    /// The records the binary prints (`None`: it could not be run, `records_error` says why).
    pub records: Option<Records>,
    pub records_error: Option<String>,
    /// Whether the executable is still there (`--keep-binaries`) or was cleaned after measuring.
    pub kept: bool,
}

impl Build {
    /// Build seconds: rustc's CPU time; none where this system gives no CPU time (the wall
    /// column has rustc's wall time: one is never shown as the other).
    pub fn cpu_seconds(&self) -> Option<f64> {
        self.rustc.and_then(|rustc| rustc.cpu_ms).map(|ms| ms as f64 / 1000.0)
    }

    pub fn wall_seconds(&self) -> Option<f64> {
        self.rustc.map(|rustc| rustc.wall_ms as f64 / 1000.0)
    }

    pub fn binary_bytes(&self) -> Option<u64> {
        self.binary.as_ref().map(|binary| binary.bytes)
    }

    pub fn symbols(&self) -> Option<&Symbols> {
        self.binary.as_ref().and_then(|binary| binary.symbols.as_ref())
    }

    pub fn longest_symbol_bytes(&self) -> Option<u64> {
        self.symbols().map(|symbols| symbols.longest_bytes)
    }
}

impl Results {
    /// The build of a shape, depth and lowering, if this run has it.
    pub fn build(&self, shape: &str, depth: u32, variant: &str) -> Option<&Build> {
        self.builds.iter().find(|build| build.shape == shape && build.depth == depth && build.variant == variant)
    }

    /// `2026-12-02 10:03 UTC, commit c500ca2…` (with what is known).
    pub fn provenance(&self) -> String {
        let date = self.source.written_unix.map_or_else(|| "date unknown".to_owned(), bench::utc_date);
        let commit = self.source.commit.as_deref().map_or_else(
            || "no commit recorded".to_owned(),
            |commit| format!("commit {}", &commit[..commit.len().min(10)]),
        );
        let dirty = if self.source.dirty == Some(true) { " with uncommitted changes" } else { "" };
        let partial = if self.complete { "" } else { ", an unfinished run" };
        format!("{date}, {commit}{dirty}{partial}")
    }

    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).context(|| "writing the call-graph results as JSON")
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).context(|| format!("creating {}", dir.display()))?;
        }
        // Written aside and renamed: a reader never sees half a file.
        let partial = path.with_extension("json.part");
        std::fs::write(&partial, self.to_json()?).context(|| format!("writing {}", partial.display()))?;
        std::fs::rename(&partial, path).context(|| format!("renaming {} to {}", partial.display(), path.display()))
    }
}

pub fn parse(text: &str) -> Result<Results> {
    let json: serde_json::Value = serde_json::from_str(text).context(|| "not JSON")?;
    if json["schema"].as_u64() != Some(SCHEMA) {
        return Err(Error::new(format!("schema {} (this inspect reads schema {SCHEMA})", json["schema"])));
    }
    serde_json::from_value(json).context(|| "not call-graph results")
}

/// What the page knows about the call-graph results.
// One is made per page: a boxed `Results` would save nothing worth the indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Loaded {
    Missing(PathBuf),
    Unreadable(PathBuf, String),
    Found { path: PathBuf, results: Results, stale: Option<String> },
}

impl Loaded {
    pub fn results(&self) -> Option<&Results> {
        match self {
            Loaded::Found { results, .. } => Some(results),
            _ => None,
        }
    }

    /// One line saying where the figures come from, or why there are none.
    pub fn status(&self) -> String {
        match self {
            Loaded::Missing(path) => format!(
                "no call-graph results at {}: run `cargo run -p inspect -- callgraph` to measure them",
                path.display()
            ),
            Loaded::Unreadable(path, why) => format!("the call-graph results {} cannot be read: {why}", path.display()),
            Loaded::Found { path, results, stale: None } => {
                format!("call-graph results {} ({})", path.display(), results.provenance())
            }
            Loaded::Found { path, results, stale: Some(why) } => {
                format!("STALE call-graph results {} ({}): {why}", path.display(), results.provenance())
            }
        }
    }
}

/// Read the results at `path`, and compare them with the source at `source_root`.
pub fn load(path: &Path, source_root: &Path) -> Loaded {
    if !path.exists() {
        return Loaded::Missing(path.to_owned());
    }
    let read =
        std::fs::read_to_string(path).context(|| format!("reading {}", path.display())).and_then(|text| parse(&text));
    match read {
        Ok(results) => {
            let stale = staleness(&results.source, &bench::current_source(source_root));
            Loaded::Found { path: path.to_owned(), results, stale }
        }
        Err(error) => Loaded::Unreadable(path.to_owned(), error.to_string()),
    }
}

/// Why results measured on `measured` may not describe the source `current`, if they may not.
pub fn staleness(measured: &Source, current: &bench::Source) -> Option<String> {
    let short = |commit: &str| commit[..commit.len().min(10)].to_owned();
    match (&measured.commit, &current.commit) {
        (None, _) => Some("they record no commit, so they cannot be matched to this source".to_owned()),
        (Some(_), None) => Some("the inspected source is not a git checkout, so they cannot be matched".to_owned()),
        (Some(then), Some(now)) if then != now => {
            Some(format!("measured at commit {}, the source is at {}", short(then), short(now)))
        }
        _ if measured.dirty == Some(true) => {
            Some("measured on a working tree with uncommitted changes, which may differ from this one".to_owned())
        }
        _ if current.dirty == Some(true) => {
            Some("the working tree has uncommitted changes made after or apart from the measurement".to_owned())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_of_another_commit_are_stale_and_a_bad_file_is_an_error() {
        let here = bench::Source { commit: Some("aaaa".to_owned()), dirty: Some(false) };
        let measured =
            |commit: &str, dirty| Source { commit: Some(commit.to_owned()), dirty: Some(dirty), written_unix: None };
        assert_eq!(staleness(&measured("aaaa", false), &here), None);
        assert!(staleness(&measured("bbbb", false), &here).is_some_and(|why| why.contains("bbbb")));
        assert!(staleness(&measured("aaaa", true), &here).is_some());
        let changed = bench::Source { commit: Some("aaaa".to_owned()), dirty: Some(true) };
        assert!(staleness(&measured("aaaa", false), &changed).is_some());
        assert!(parse("{").is_err());
        assert!(parse(r#"{"schema": 2}"#).is_err_and(|error| error.to_string().starts_with("schema 2")));
        assert!(parse(r#"{"schema": 1}"#).is_err());
    }
}

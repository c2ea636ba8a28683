//! What `inspect crate` found (`--json`, and `<dir>/results.json` for the page, schema 1;
//! fields are added within a schema, as `figures` and `memcheck` were, and read as absent).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::cargo::CompileError;
use super::figures::Figures;
use super::functions::Function;
use super::hints::Hint;
use super::libtest::Outcome;
use super::memcheck::Memcheck;
use crate::error::{Context, Result};

pub const SCHEMA: u64 = 1;
/// Where the work (copies, target dir, results) goes, under the lab's target directory.
pub const DIR: &str = "lowering-crate";

pub fn default_path(target_dir: &Path) -> PathBuf {
    target_dir.join(DIR).join("results.json")
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub schema: u64,
    pub name: String,
    pub version: String,
    pub edition: String,
    /// As given on the command line.
    pub source: String,
    pub feature_args: Vec<String>,
    pub functions: Vec<Verdict>,
    /// `reference`, `runtime` and `classic` (the accepted functions classic, the rest runtime).
    pub tests: Vec<Tests>,
    pub phases: Vec<Phase>,
    /// What `inspect` reports of each accepted library fn, in both lowerings.
    #[serde(default)]
    pub figures: Figures,
    /// `--memcheck`: the classic build's test binaries under valgrind (`null` without it).
    #[serde(default)]
    pub memcheck: Option<Memcheck>,
    /// `--no-tests`: no test was asked for, and none counts against the run.
    #[serde(default)]
    pub no_tests: bool,
    /// Hints were given where rustc's errors called for them (off: `--no-hints`, and every
    /// run before hints existed).
    #[serde(default)]
    pub hints_enabled: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    #[serde(flatten)]
    pub function: Function,
    /// `None`: accepted.
    pub refused: Option<Refusal>,
    /// The hints in the function's attribute when it was last built (`moves(cmd)`): an
    /// accepted fn with hints is accepted thanks to them.
    #[serde(default)]
    pub hints: Vec<Hint>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    #[serde(flatten)]
    pub error: CompileError,
    /// The function builds classic alone, but not with the other accepted ones.
    pub in_company: bool,
    /// Where hints were given and it is still refused: its first error without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_hints: Option<CompileError>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tests {
    pub configuration: String,
    /// Per test binary (`lib`, `test NAME`, `doc`).
    pub binaries: Vec<(String, Outcome)>,
    /// Why these tests were not run (no fn lowered classic: the build would be the runtime
    /// build); never counted as passing.
    #[serde(default)]
    pub not_run: Option<String>,
}

impl Tests {
    pub fn passed(&self) -> usize {
        self.binaries.iter().map(|(_, outcome)| outcome.passed.len()).sum()
    }

    pub fn total(&self) -> usize {
        self.binaries.iter().map(|(_, outcome)| outcome.total()).sum()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    pub name: String,
    pub seconds: f64,
    pub builds: usize,
}

impl Results {
    pub fn accepted(&self) -> usize {
        self.functions.iter().filter(|verdict| verdict.refused.is_none()).count()
    }

    /// The accepted functions that needed hints.
    pub fn hinted(&self) -> usize {
        self.functions.iter().filter(|verdict| verdict.refused.is_none() && !verdict.hints.is_empty()).count()
    }

    /// `(H with hints)`, or `(hints off)`.
    pub fn hints_note(&self) -> String {
        if self.hints_enabled { format!("({} with hints)", self.hinted()) } else { "(hints off)".to_owned() }
    }

    pub fn configuration(&self, name: &str) -> Option<&Tests> {
        self.tests.iter().find(|tests| tests.configuration == name)
    }

    /// The refusals by error code.
    pub fn by_code(&self) -> BTreeMap<&str, Vec<&Verdict>> {
        let mut groups: BTreeMap<&str, Vec<&Verdict>> = BTreeMap::new();
        for verdict in &self.functions {
            if let Some(refusal) = &verdict.refused {
                groups.entry(refusal.error.code.as_str()).or_default().push(verdict);
            }
        }
        groups
    }

    /// `crate NAME: A/N async fns lowered classic (H with hints); tests P/T pass with them
    /// (runtime baseline P0/T0)`.
    pub fn last_line(&self) -> String {
        let counts = |name: &str| self.configuration(name).map_or((0, 0), |tests| (tests.passed(), tests.total()));
        let ((p, t), (p0, t0)) = (counts("classic"), counts("runtime"));
        let tests = match self.configuration("classic").and_then(|tests| tests.not_run.as_deref()) {
            Some(why) => format!("tests not run with classic ({why})"),
            None => format!("tests {p}/{t} pass with them"),
        };
        format!(
            "crate {}: {}/{} async fns lowered classic {}; {tests} (runtime baseline {p0}/{t0})",
            self.name,
            self.accepted(),
            self.functions.len(),
            self.hints_note()
        )
    }

    /// Exit 0 only when every function was accepted and every test passes with them, and
    /// (`--memcheck`) every test binary ran clean under memcheck: no error, none that did not
    /// finish, and not left unrun for want of valgrind.
    pub fn success(&self) -> bool {
        let classic = self.configuration("classic");
        // (With no async fn at all, the classic tests are the runtime ones: nothing to measure.)
        self.accepted() == self.functions.len()
            && classic.is_some_and(|tests| {
                (tests.not_run.is_none() || self.functions.is_empty() || self.no_tests)
                    && tests.passed() == tests.total()
            })
            && self.memcheck.as_ref().is_none_or(|memcheck| memcheck.clean)
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).context(|| format!("creating {}", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(self).context(|| "serialising the results")?;
        std::fs::write(path, text).context(|| format!("writing {}", path.display()))
    }
}

/// The results for the page: absent or unreadable ones are said so, not an error.
pub fn load(path: &Path) -> std::result::Result<Results, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|_| format!("no results at {} (run `cargo run -p inspect -- crate SOURCE`)", path.display()))?;
    let results: Results = serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))?;
    if results.schema != SCHEMA {
        return Err(format!("{}: schema {}, this inspect reads {SCHEMA}", path.display(), results.schema));
    }
    Ok(results)
}

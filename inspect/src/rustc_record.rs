//! How cargo ran rustc for the inspected crate, as `inspect`'s rustc wrapper records it: a leaf
//! that the build (`builds`), the expansion (`expansion`) and the replays (`replays`) read, so
//! that none of them imports another for it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How cargo ran rustc for the inspected crate, as the wrapper recorded it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RustcInvocation {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    /// The variables cargo sets for rustc (`CARGO_*`, `OUT_DIR`), which `env!` may read.
    pub env: BTreeMap<String, String>,
    /// Wall time of this one rustc (the crate alone, not its dependencies).
    pub build_ms: u64,
    /// CPU time (user and system, rustc's threads and the linker it runs) of this one rustc:
    /// unlike wall time, it does not grow when other builds share the cores.
    #[serde(default)]
    pub cpu_ms: Option<u64>,
    /// The flags the wrapper added (the tail of `args`), to tell a build with other flags.
    #[serde(default)]
    pub added: Vec<String>,
}

impl RustcInvocation {
    /// The recorded arguments without those that name outputs (`--emit`, `-o`, `--out-dir`,
    /// incremental dirs), for replaying the same compilation into another directory.
    pub fn replay_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        let mut skip_next = false;
        for (index, arg) in self.args.iter().enumerate() {
            if skip_next {
                skip_next = false;
                continue;
            }
            let next = self.args.get(index + 1).map(String::as_str).unwrap_or("");
            match arg.as_str() {
                "--emit" | "-o" | "--out-dir" => skip_next = true,
                "-C" if next.starts_with("incremental=") => skip_next = true,
                other
                    if other.starts_with("--emit=")
                        || other.starts_with("--out-dir=")
                        || other.starts_with("-Cincremental=") => {}
                other => args.push(other.to_owned()),
            }
        }
        args
    }
}

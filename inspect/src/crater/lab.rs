//! Which lowering the crater measures. A run over forty crates takes hours while the lab's
//! `macros/` and `runtime/` keep changing in the working tree, so by default every crate is
//! built against one commit's sources, extracted once (`git archive`) under the crater's
//! directory: every row of the table measures the same lowering, and the table names it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::error::{Context, Error, Result};

/// The lowering the crates are built against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lab {
    /// The commit's full hash, or `worktree` (the checkout as it is, changes and all).
    pub commit: String,
    /// The `runtime/` directory the crates depend on.
    pub runtime: PathBuf,
}

/// The lab's checkout: `inspect/..`.
fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `worktree`: this checkout's `runtime/` as it is; else `rev` (a commit, a branch, `HEAD`)
/// extracted under `<dir>/lab/<hash>` unless it already is.
pub fn prepare(rev: &str, dir: &Path) -> Result<Lab> {
    if rev == "worktree" {
        return Ok(Lab { commit: "worktree".to_owned(), runtime: checkout().join("runtime") });
    }
    let output = Command::new("git")
        .arg("-C")
        .arg(checkout())
        .args(["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")])
        .stderr(Stdio::null())
        .output()
        .context(|| "running git to find the lab's commit")?;
    let commit = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() || commit.is_empty() {
        return Err(Error::new(format!(
            "--lab {rev}: no such commit in {} (give a commit, a branch, HEAD, or `worktree`)",
            checkout().display()
        )));
    }
    let root = dir.join("lab").join(&commit);
    let runtime = root.join("runtime");
    if !runtime.join("Cargo.toml").is_file() {
        let partial = dir.join("lab").join(format!("{commit}.partial"));
        let _ = std::fs::remove_dir_all(&partial);
        std::fs::create_dir_all(&partial).context(|| format!("creating {}", partial.display()))?;
        let archive = Command::new("git")
            .arg("-C")
            .arg(checkout())
            .args(["archive", "--format=tar", &commit])
            .stdout(Stdio::piped())
            .spawn()
            .context(|| "running git archive")?;
        let stdout = archive.stdout.context(|| "git archive's output")?;
        let status = Command::new("tar")
            .arg("-x")
            .arg("-C")
            .arg(&partial)
            .stdin(stdout)
            .status()
            .context(|| "running tar to extract the lab's commit")?;
        if !status.success() || !partial.join("runtime/Cargo.toml").is_file() {
            return Err(Error::new(format!("extracting commit {commit} into {} failed", partial.display())));
        }
        // Renamed only once complete, so that an interrupted extraction is never taken for one.
        let _ = std::fs::remove_dir_all(&root);
        std::fs::rename(&partial, &root).context(|| format!("moving the extracted lab to {}", root.display()))?;
    }
    Ok(Lab { commit, runtime })
}

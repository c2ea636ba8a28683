//! The replays of the inspected crate's recorded rustc command: the one-variant builds, timed
//! (I8), and the expansion (I8). They need the command and the crate's dependencies, not the
//! crate's own build, so they start as soon as the wrapper records the command, while cargo
//! still compiles the crate (on the other core), and not after it. Each build's figure is
//! rustc's CPU time, which sharing the cores with the other builds does not inflate.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use crate::builds;
use crate::error::{Error, Result};
use crate::expansion::{self, Expansion};
use crate::rustc_record::RustcInvocation;

/// What the replays found.
pub struct Replays {
    /// Per variant: its build's CPU ms and object, or why it could not be built.
    pub variants: Vec<(String, Result<std::result::Result<builds::VariantBuild, String>>)>,
    /// Every function's expansion (filter by name).
    pub expansions: Result<Vec<Expansion>>,
}

/// Run the one-variant builds (when the crate has several variants) and the expansion, side
/// by side.
pub fn run(invocation: &RustcInvocation, inspect_dir: &Path, several_variants: bool) -> Replays {
    let variant_dir = inspect_dir.join("variants");
    std::thread::scope(|scope| {
        let builds: Vec<_> = builds::VARIANTS
            .iter()
            .filter(|_| several_variants)
            .map(|variant| {
                let dir = &variant_dir;
                (*variant, scope.spawn(move || builds::time_variant(invocation, variant, dir)))
            })
            .collect();
        if several_variants {
            eprintln!("inspect: building the crate once per variant (--cfg lowering_only), timed");
        }
        let expansions = expansion::measure(invocation, &inspect_dir.join("expansion"));
        let variants = builds
            .into_iter()
            .map(|(variant, handle)| {
                let outcome = handle.join().unwrap_or_else(|_| Err(Error::new("a one-variant build panicked")));
                (variant.to_owned(), outcome)
            })
            .collect();
        Replays { variants, expansions }
    })
}

/// Replays started by the command the wrapper records as the inspected crate's rustc starts.
pub struct Early {
    done: Arc<AtomicBool>,
    handle: JoinHandle<Option<Replays>>,
}

impl Early {
    /// Watch for the command of a compilation that starts from now on (`record` is the
    /// wrapper's record file, `flags` what it adds), and replay it as soon as it appears.
    /// The crate may have several variants: a crate with one skips its builds later.
    pub fn watch(record: &Path, flags: Vec<String>, inspect_dir: PathBuf) -> Early {
        let started = builds::started_record(record);
        let since = SystemTime::now();
        let done = Arc::new(AtomicBool::new(false));
        let finished = Arc::clone(&done);
        let handle = std::thread::spawn(move || {
            loop {
                if let Some(invocation) = fresh_record(&started, since, &flags) {
                    return Some(run(&invocation, &inspect_dir, true));
                }
                if finished.load(Ordering::Acquire) {
                    // One last look: the compilation may have started just before cargo ended.
                    return fresh_record(&started, since, &flags)
                        .map(|invocation| run(&invocation, &inspect_dir, true));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Early { done, handle }
    }

    /// Cargo is done: the replays, if the crate was compiled (otherwise nothing was started).
    pub fn finish(self) -> Option<Replays> {
        self.done.store(true, Ordering::Release);
        self.handle.join().ok().flatten()
    }
}

/// The command in `path`, if it was written after `since` with these flags.
fn fresh_record(path: &Path, since: SystemTime, flags: &[String]) -> Option<RustcInvocation> {
    let written = std::fs::metadata(path).and_then(|metadata| metadata.modified()).ok()?;
    if written < since {
        return None;
    }
    let invocation: RustcInvocation = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    (invocation.added == flags).then_some(invocation)
}

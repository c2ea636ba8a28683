//! The generated crates: one binary package per shape, depth and lowering, all members of one
//! generated workspace (its own `[workspace]`, outside the project's), which depend on the
//! lowering runtime by path and share one target directory, so that the dependencies are built
//! once.
//!
//! A crate of depth `N` has `N + 1` async fns, `main_0` to `main_N`, and `main_N` awaits nothing:
//!
//! - **chain**: `main_i` awaits `main_{i+1}`; one path through the call graph.
//! - **dag**: `main_i` awaits `main_{i+1}`, then `main_{i+2}` (where they exist): functions grow
//!   linearly, paths from `main_0` to `main_N` as the Fibonacci numbers (the shape of rustc's
//!   `tests/ui/async-await/deep-futures-are-freeze.rs`).
//! - **freeze**: the dag, entered the way that rustc test enters it: a generic function is
//!   handed a closure that makes `main_0`'s future and drops it unpolled; the crate builds in a
//!   profile with the test's flags (opt-level `s`, fat LTO, no debug info).
//!
//! Every crate sets `#![recursion_limit]` (256 unless told otherwise, as rustc's test does):
//! with rustc's default of 128, a plain async chain of depth 36 does not build ("queries
//! overflow the depth limit" computing the layout of `main_0`'s future), whichever the shape,
//! and rustc's message suggests 256.
//!
//! Every crate's `main` takes one argument: `records` prints the lowering records linked into
//! the binary (what the attribute generated, read from the artifact), `run` runs `main_0` to
//! completion (the freeze crate: makes the root future and prints its size).

use std::fmt::Write as _;
use std::path::Path;

use crate::error::{Context, Error, Result};

/// The shape of a generated call graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    Chain,
    Dag,
    Freeze,
}

impl Shape {
    pub const ALL: [Shape; 3] = [Shape::Chain, Shape::Dag, Shape::Freeze];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Chain => "chain",
            Shape::Dag => "dag",
            Shape::Freeze => "freeze",
        }
    }

    pub fn parse(name: &str) -> Result<Shape> {
        Shape::ALL
            .into_iter()
            .find(|shape| shape.name() == name)
            .context(|| format!("unknown shape `{name}` (shapes: {})", Shape::ALL.map(Shape::name).join(", ")))
    }

    /// The cargo profile the shape builds in.
    pub fn profile(self) -> &'static str {
        match self {
            Shape::Chain | Shape::Dag => "dev",
            Shape::Freeze => FREEZE_PROFILE,
        }
    }

    fn edition(self) -> &'static str {
        match self {
            Shape::Chain | Shape::Dag => "2024",
            // The edition of rustc's test.
            Shape::Freeze => "2021",
        }
    }

    /// The fns `main_i` awaits, in order.
    pub fn callees(self, depth: u32, i: u32) -> Vec<u32> {
        let steps: &[u32] = match self {
            Shape::Chain => &[1],
            Shape::Dag | Shape::Freeze => &[1, 2],
        };
        steps.iter().map(|step| i + step).filter(|callee| *callee <= depth).collect()
    }

    /// Paths through the call graph from `main_0` to `main_depth` (every path ends there),
    /// saturating at `u64::MAX`.
    pub fn paths(self, depth: u32) -> u64 {
        let mut paths = vec![0_u64; depth as usize + 1];
        for i in (0..=depth).rev() {
            let callees = self.callees(depth, i);
            paths[i as usize] = if callees.is_empty() {
                1
            } else {
                callees.iter().fold(0_u64, |sum, callee| sum.saturating_add(paths[*callee as usize]))
            };
        }
        paths[0]
    }
}

/// The profile of the freeze shape: rustc's test flags.
pub const FREEZE_PROFILE: &str = "freeze";

/// The two lowerings, as the attribute spells them.
pub const VARIANTS: [&str; 2] = ["classic", "runtime"];

/// One crate to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub shape: Shape,
    pub depth: u32,
    /// `classic` or `runtime`.
    pub variant: &'static str,
    /// The crate's `#![recursion_limit]`.
    pub recursion_limit: u32,
}

impl Spec {
    /// The package name: `cg-dag-16-classic`.
    pub fn package(&self) -> String {
        format!("cg-{}-{}-{}", self.shape.name(), self.depth, self.variant)
    }

    /// The async fns in the crate.
    pub fn functions(&self) -> u32 {
        self.depth + 1
    }
}

/// The recursion limit of rustc's test, which rustc's message suggests.
pub const RECURSION_LIMIT: u32 = 256;

/// The package that only depends on what every generated crate depends on: built first, so
/// that no measured build compiles a dependency.
pub const DEPS_PACKAGE: &str = "cg-deps";

/// The source of a generated crate (`src/main.rs`).
pub fn source(spec: &Spec) -> String {
    let Spec { shape, depth, variant, recursion_limit } = *spec;
    let mut out = String::new();
    let edges = match shape {
        Shape::Chain => "`main_i` awaits `main_{i+1}`",
        Shape::Dag | Shape::Freeze => "`main_i` awaits `main_{i+1}`, then `main_{i+2}`",
    };
    let _ = writeln!(
        out,
        "//! Generated by `inspect callgraph`: the {} shape of depth {depth} ({} async fns; {edges}),",
        shape.name(),
        spec.functions()
    );
    let _ = writeln!(out, "//! every fn lowered `{variant}`.");
    let _ = writeln!(out, "\n#![recursion_limit = \"{recursion_limit}\"]");
    let _ = writeln!(out, "\nuse std::future::Future;\n\nuse lowering::lowering;");
    for i in 0..=depth {
        let _ = writeln!(out, "\n#[lowering({variant})]");
        let callees = shape.callees(depth, i);
        if callees.is_empty() {
            let _ = writeln!(out, "async fn main_{i}() {{}}");
            continue;
        }
        let _ = writeln!(out, "async fn main_{i}() {{");
        for callee in callees {
            let _ = writeln!(out, "    main_{callee}().await;");
        }
        out.push_str("}\n");
    }
    out.push_str(
        "
/// `records`: the lowering records linked into this binary, one a line; `run`: see below.
fn main() {
    match std::env::args().nth(1).as_deref() {
        Some(\"records\") => {
            for record in lowering::records() {
                let generated = record.generated_type.unwrap_or(\"-\");
                println!(\"{} {} {generated}\", record.lowering, record.function);
            }
        }
",
    );
    match shape {
        Shape::Chain | Shape::Dag => out.push_str(
            "        Some(\"run\") => {
            // Every await completes at once: nothing is ever woken, so a no-op waker will do.
            let mut root = std::pin::pin!(main_0());
            let mut context = std::task::Context::from_waker(std::task::Waker::noop());
            while root.as_mut().poll(&mut context).is_pending() {}
            println!(\"done\");
        }
",
        ),
        Shape::Freeze => out.push_str(
            "        Some(\"run\") => println!(\"root future: {} bytes\", make_and_drop(|| main_0())),
",
        ),
    }
    out.push_str(
        "        _ => eprintln!(\"usage: {} records|run\", env!(\"CARGO_PKG_NAME\")),
    }
}
",
    );
    if shape == Shape::Freeze {
        out.push_str(
            "
/// Makes the root future through `make` and drops it without polling it: its type must be
/// built, nothing has to run (the classic lowering still starts each call eagerly).
fn make_and_drop<F: Future>(make: impl FnOnce() -> F) -> usize {
    let root = make();
    std::mem::size_of_val(&root)
}
",
        );
    }
    out
}

/// The manifest of a generated crate.
pub fn manifest(spec: &Spec, runtime_dir: &Path) -> String {
    format!(
        "[package]
name = \"{}\"
version = \"0.1.0\"
edition = \"{}\"
publish = false

[dependencies]
lowering = {{ path = {} }}
",
        spec.package(),
        spec.shape.edition(),
        toml_string(&runtime_dir.display().to_string())
    )
}

/// The generated workspace's manifest: its members, and the freeze shape's profile.
pub fn workspace_manifest(members: &[String]) -> String {
    let mut out = String::from(
        "# Generated by `inspect callgraph`, rewritten by every run: a workspace of its own, outside
# the project's, whose members share one target directory (the dependencies build once).
[workspace]
resolver = \"3\"
members = [\n",
    );
    for member in members {
        let _ = writeln!(out, "    {},", toml_string(member));
    }
    let _ = write!(
        out,
        "]

# The flags of rustc's tests/ui/async-await/deep-futures-are-freeze.rs (-Copt-level=s -Clto=fat,
# no debug info).
[profile.{FREEZE_PROFILE}]
inherits = \"release\"
opt-level = \"s\"
lto = \"fat\"
"
    );
    out
}

/// The manifest of the dependencies-only package.
pub fn deps_manifest(runtime_dir: &Path) -> String {
    format!(
        "[package]
name = \"{DEPS_PACKAGE}\"
version = \"0.1.0\"
edition = \"2024\"
publish = false

[dependencies]
lowering = {{ path = {} }}
",
        toml_string(&runtime_dir.display().to_string())
    )
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Write the workspace under `dir` (`Cargo.toml`, `Cargo.lock` seeded from the project's, so
/// that the generated crates use the project's dependency versions, `deps/`, `crates/<package>/`),
/// removing crates of earlier runs that this one does not build.
pub fn write_workspace(dir: &Path, specs: &[Spec], runtime_dir: &Path, project_lock: Option<&Path>) -> Result<()> {
    let crates = dir.join("crates");
    std::fs::create_dir_all(&crates).context(|| format!("creating {}", crates.display()))?;
    let wanted: Vec<String> = specs.iter().map(Spec::package).collect();
    for entry in std::fs::read_dir(&crates).context(|| format!("reading {}", crates.display()))? {
        let entry = entry.context(|| format!("reading {}", crates.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("cg-") && !wanted.contains(&name) {
            std::fs::remove_dir_all(entry.path()).context(|| format!("removing {}", entry.path().display()))?;
        }
    }
    let mut members = vec!["deps".to_owned()];
    members.extend(wanted.iter().map(|package| format!("crates/{package}")));
    write(&dir.join("Cargo.toml"), &workspace_manifest(&members))?;
    let lock = dir.join("Cargo.lock");
    if let Some(project_lock) = project_lock
        && !lock.exists()
    {
        std::fs::copy(project_lock, &lock)
            .context(|| format!("copying {} to {}", project_lock.display(), lock.display()))?;
    }
    write(&dir.join("deps/Cargo.toml"), &deps_manifest(runtime_dir))?;
    write(&dir.join("deps/src/lib.rs"), "//! Depends on what every generated crate depends on.\n")?;
    for spec in specs {
        let root = crates.join(spec.package());
        write(&root.join("Cargo.toml"), &manifest(spec, runtime_dir))?;
        // Written by every run, so that cargo sees a change and compiles the crate again.
        write(&root.join("src/main.rs"), &source(spec))?;
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().ok_or_else(|| Error::new(format!("{} has no directory", path.display())))?;
    std::fs::create_dir_all(dir).context(|| format!("creating {}", dir.display()))?;
    std::fs::write(path, text).context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dag_of_depth_4_is_five_fns_each_awaiting_the_next_two() {
        let spec = Spec { shape: Shape::Dag, depth: 4, variant: "classic", recursion_limit: 256 };
        assert_eq!(spec.package(), "cg-dag-4-classic");
        assert_eq!(
            source(&spec),
            r#"//! Generated by `inspect callgraph`: the dag shape of depth 4 (5 async fns; `main_i` awaits `main_{i+1}`, then `main_{i+2}`),
//! every fn lowered `classic`.

#![recursion_limit = "256"]

use std::future::Future;

use lowering::lowering;

#[lowering(classic)]
async fn main_0() {
    main_1().await;
    main_2().await;
}

#[lowering(classic)]
async fn main_1() {
    main_2().await;
    main_3().await;
}

#[lowering(classic)]
async fn main_2() {
    main_3().await;
    main_4().await;
}

#[lowering(classic)]
async fn main_3() {
    main_4().await;
}

#[lowering(classic)]
async fn main_4() {}

/// `records`: the lowering records linked into this binary, one a line; `run`: see below.
fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("records") => {
            for record in lowering::records() {
                let generated = record.generated_type.unwrap_or("-");
                println!("{} {} {generated}", record.lowering, record.function);
            }
        }
        Some("run") => {
            // Every await completes at once: nothing is ever woken, so a no-op waker will do.
            let mut root = std::pin::pin!(main_0());
            let mut context = std::task::Context::from_waker(std::task::Waker::noop());
            while root.as_mut().poll(&mut context).is_pending() {}
            println!("done");
        }
        _ => eprintln!("usage: {} records|run", env!("CARGO_PKG_NAME")),
    }
}
"#
        );
    }

    #[test]
    fn a_chain_awaits_one_callee_and_the_runtime_variant_differs_only_in_the_attribute() {
        let spec = Spec { shape: Shape::Chain, depth: 2, variant: "runtime", recursion_limit: 300 };
        let source = source(&spec);
        let fns = "#[lowering(runtime)]
async fn main_0() {
    main_1().await;
}

#[lowering(runtime)]
async fn main_1() {
    main_2().await;
}

#[lowering(runtime)]
async fn main_2() {}
";
        assert!(source.contains(fns), "{source}");
        assert!(source.starts_with("//! Generated by `inspect callgraph`: the chain shape of depth 2 (3 async fns; `main_i` awaits `main_{i+1}`),\n//! every fn lowered `runtime`.\n\n#![recursion_limit = \"300\"]\n"));
        let classic = super::source(&Spec { variant: "classic", ..spec });
        assert_eq!(classic.replace("classic", "runtime"), source);
    }

    #[test]
    fn the_freeze_shape_is_the_dag_made_and_dropped_unpolled() {
        let spec = Spec { shape: Shape::Freeze, depth: 3, variant: "classic", recursion_limit: 256 };
        let source = source(&spec);
        let dag = super::source(&Spec { shape: Shape::Dag, ..spec });
        let fns = |text: &str| {
            let start = text.find("#[lowering").unwrap_or(0);
            let end = text.find("\n/// `records`").unwrap_or(text.len());
            text[start..end].to_owned()
        };
        assert_eq!(fns(&source), fns(&dag), "the same fns as the dag");
        assert_eq!(source.matches("async fn ").count(), 4);
        assert!(
            source.contains(
                "        Some(\"run\") => println!(\"root future: {} bytes\", make_and_drop(|| main_0())),\n"
            )
        );
        assert!(source.ends_with(
            "
fn make_and_drop<F: Future>(make: impl FnOnce() -> F) -> usize {
    let root = make();
    std::mem::size_of_val(&root)
}
"
        ));
        assert!(!source.contains("poll("), "the freeze crate never polls the root");
        assert_eq!(Shape::Freeze.profile(), "freeze");
        assert!(manifest(&spec, Path::new("/r")).contains("edition = \"2021\""));
    }

    #[test]
    fn manifests_depend_on_the_runtime_by_path() {
        let spec = Spec { shape: Shape::Dag, depth: 16, variant: "runtime", recursion_limit: 256 };
        assert_eq!(
            manifest(&spec, Path::new("/work/x \"y\"/runtime")),
            "[package]
name = \"cg-dag-16-runtime\"
version = \"0.1.0\"
edition = \"2024\"
publish = false

[dependencies]
lowering = { path = \"/work/x \\\"y\\\"/runtime\" }
"
        );
        let workspace = workspace_manifest(&["deps".to_owned(), "crates/cg-dag-16-runtime".to_owned()]);
        assert!(workspace.contains(
            "[workspace]\nresolver = \"3\"\nmembers = [\n    \"deps\",\n    \"crates/cg-dag-16-runtime\",\n]\n"
        ));
        assert!(workspace.contains("[profile.freeze]\ninherits = \"release\"\nopt-level = \"s\"\nlto = \"fat\"\n"));
    }

    #[test]
    fn paths_grow_as_fibonacci_numbers_in_the_dag_and_stay_one_in_the_chain() {
        let dag: Vec<u64> = (0..=10).map(|depth| Shape::Dag.paths(depth)).collect();
        assert_eq!(dag, [1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89]);
        assert_eq!(Shape::Dag.paths(40), 165_580_141);
        assert_eq!(Shape::Freeze.paths(42), 433_494_437);
        assert_eq!(Shape::Chain.paths(40), 1);
        assert_eq!(Shape::Dag.paths(200), u64::MAX, "saturates");
        assert_eq!(Shape::Dag.callees(4, 3), [4]);
        assert_eq!(Shape::Dag.callees(4, 4), Vec::<u32>::new());
    }
}

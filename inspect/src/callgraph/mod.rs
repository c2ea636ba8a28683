//! `inspect callgraph`: compile cost against the call graph (I9). Generates crates of growing
//! depth in three shapes (`generate`), builds each under both lowerings, bounded by a timeout
//! and a memory limit (`build`), reads what each executable holds (`binary`), and reports it
//! (`results` as JSON, `report` as a table, `page` on the HTML page).
//!
//! Builds run in order of depth; once a shape and lowering fails to build (timeout, memory,
//! error, signal), its deeper depths are skipped and reported as skipped, with the reason.

mod binary;
pub(crate) mod build;
mod generate;
pub(crate) mod report;
pub mod results;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use build::{Ended, Limits, Workspace};
use generate::{Shape, Spec};
use results::{Binary, Build, Outcome, Results, Rustc};

use crate::bench;
use crate::error::{Context, Error, Result};

pub const USAGE: &str = "\
usage: inspect callgraph [--depths 8,16,24,32,40] [--shapes chain,dag,freeze] [--variants classic,runtime]
                         [--timeout SECS] [--memory-limit MIB] [--jobs N] [--recursion-limit N]
                         [--dir DIR] [--keep-binaries] [--json]

Generates crates of depth + 1 async fns (chain: main_i awaits main_{i+1}; dag: main_i awaits
main_{i+1} then main_{i+2}; freeze: the dag made and dropped unpolled, with the flags of rustc's
deep-futures-are-freeze test), builds each under both lowerings (dependencies built first,
once, and not timed; incremental off) and reports per depth and lowering: whether it built,
rustc's wall and CPU time and peak memory, the executable's bytes, its longest symbol and the
state-machine types and records it holds. Deeper depths of a shape and lowering that did not
build are skipped.

  --depths LIST       depths to build, ascending (default 8,16,24,32,40)
  --shapes LIST       chain, dag, freeze (default all three)
  --variants LIST     classic, runtime (default both)
  --timeout SECS      per build, on the whole cargo command (default 60)
  --memory-limit MIB  address space of each process of a build (setrlimit RLIMIT_AS, as
                      `ulimit -v`; default 8192)
  --jobs N            cargo build --jobs (default: cargo's, one per core)
  --recursion-limit N the crates' #![recursion_limit] (default 256, as rustc's test and
                      rustc's message have it; with rustc's default, 128, the runtime
                      lowering does not build depth 36)
  --dir DIR           where the generated workspace, its target dir and results.json go
                      (default <target>/lowering-callgraph, which `inspect --html` reads)
  --keep-binaries     keep each executable (by default each build's outputs are cleaned
                      once measured: a classic one can weigh a gigabyte)
  --json              print the results as JSON (as written to results.json)";

const DEFAULT_DEPTHS: [u32; 5] = [8, 16, 24, 32, 40];
const MAX_DEPTH: u32 = 1000;
/// The dependencies' build is bounded too, more loosely.
const DEPENDENCIES_TIMEOUT: Duration = Duration::from_secs(1800);

#[derive(Debug, Clone, PartialEq)]
struct Options {
    depths: Vec<u32>,
    shapes: Vec<Shape>,
    variants: Vec<&'static str>,
    timeout: Duration,
    memory_limit_mib: u64,
    jobs: Option<u32>,
    recursion_limit: u32,
    dir: Option<PathBuf>,
    keep_binaries: bool,
    json: bool,
    help: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            depths: DEFAULT_DEPTHS.to_vec(),
            shapes: Shape::ALL.to_vec(),
            variants: generate::VARIANTS.to_vec(),
            timeout: Duration::from_secs(60),
            memory_limit_mib: 8192,
            jobs: None,
            recursion_limit: generate::RECURSION_LIMIT,
            dir: None,
            keep_binaries: false,
            json: false,
            help: false,
        }
    }
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    let usage = |message: String| Error::new(format!("{message}\n\n{USAGE}"));
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.to_owned())),
            _ => (arg.clone(), None),
        };
        let takes_value = [
            "--depths",
            "--shapes",
            "--variants",
            "--timeout",
            "--memory-limit",
            "--jobs",
            "--recursion-limit",
            "--dir",
        ]
        .contains(&flag.as_str());
        let value = if takes_value {
            match inline.or_else(|| args.next()) {
                Some(value) => value,
                None => return Err(usage(format!("{flag} needs a value"))),
            }
        } else if inline.is_some() {
            return Err(usage(format!("{flag} takes no value")));
        } else {
            String::new()
        };
        let number = |what: &str| -> Result<u64> {
            value.trim().parse::<u64>().map_err(|_| usage(format!("{flag} wants {what}, not `{value}`")))
        };
        match flag.as_str() {
            "--depths" => {
                let mut depths = Vec::new();
                for part in value.split(',').map(str::trim).filter(|part| !part.is_empty()) {
                    let depth: u32 = part.parse().map_err(|_| usage(format!("--depths: `{part}` is not a depth")))?;
                    if !(1..=MAX_DEPTH).contains(&depth) {
                        return Err(usage(format!("--depths: {depth} is not between 1 and {MAX_DEPTH}")));
                    }
                    depths.push(depth);
                }
                depths.sort_unstable();
                depths.dedup();
                if depths.is_empty() {
                    return Err(usage("--depths needs at least one depth".to_owned()));
                }
                options.depths = depths;
            }
            "--shapes" => {
                let mut shapes = value.split(',').map(str::trim).map(Shape::parse).collect::<Result<Vec<_>>>()?;
                shapes.sort_unstable();
                shapes.dedup();
                options.shapes = shapes;
            }
            "--variants" => {
                let mut variants = Vec::new();
                for part in value.split(',').map(str::trim) {
                    let variant = generate::VARIANTS.into_iter().find(|variant| *variant == part).context(|| {
                        format!("unknown variant `{part}` (variants: {})", generate::VARIANTS.join(", "))
                    })?;
                    if !variants.contains(&variant) {
                        variants.push(variant);
                    }
                }
                options.variants = variants;
            }
            "--timeout" => {
                let seconds: f64 =
                    value.trim().parse().map_err(|_| usage(format!("--timeout wants seconds, not `{value}`")))?;
                if !(seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0) {
                    return Err(usage(format!("--timeout: {value} is not between 0 and 86400 seconds")));
                }
                options.timeout = Duration::from_secs_f64(seconds);
            }
            "--memory-limit" => {
                let mib = number("MiB")?;
                if mib < 256 {
                    return Err(usage(format!("--memory-limit: {mib} MiB is too little to run rustc (at least 256)")));
                }
                options.memory_limit_mib = mib;
            }
            "--jobs" => {
                let jobs = number("a number of jobs")?;
                options.jobs =
                    Some(u32::try_from(jobs).ok().filter(|jobs| *jobs > 0).context(|| "--jobs wants 1 or more")?);
            }
            "--recursion-limit" => {
                let limit = number("a recursion limit")?;
                options.recursion_limit = u32::try_from(limit)
                    .ok()
                    .filter(|limit| *limit > 0)
                    .context(|| "--recursion-limit wants 1 or more")?;
            }
            "--dir" => {
                let dir = std::path::absolute(&value).context(|| format!("--dir: `{value}` is not a usable path"))?;
                options.dir = Some(dir);
            }
            "--keep-binaries" => options.keep_binaries = true,
            "--json" => options.json = true,
            "-h" | "--help" => options.help = true,
            other => return Err(usage(format!("unknown argument `{other}` for callgraph"))),
        }
    }
    Ok(options)
}

/// The crates to build, in order: by depth, then shape, then lowering.
fn specs(options: &Options) -> Vec<Spec> {
    let mut specs = Vec::new();
    for &depth in &options.depths {
        for &shape in &options.shapes {
            for &variant in &options.variants {
                specs.push(Spec { shape, depth, variant, recursion_limit: options.recursion_limit });
            }
        }
    }
    specs
}

/// The project this `inspect` belongs to: its target dir, the runtime crate's directory and
/// its lock file.
struct Project {
    workspace_root: PathBuf,
    target_dir: PathBuf,
    runtime_dir: PathBuf,
}

fn locate() -> Result<Project> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let metadata = cargo_metadata::MetadataCommand::new()
        .manifest_path(&manifest)
        .no_deps()
        .exec()
        .context(|| format!("cargo metadata for {}", manifest.display()))?;
    let runtime = metadata
        .packages
        .iter()
        .find(|package| package.name.as_str() == crate::records::RUNTIME_CRATE)
        .and_then(|package| package.manifest_path.parent())
        .context(|| format!("no package `{}` in {}", crate::records::RUNTIME_CRATE, manifest.display()))?;
    Ok(Project {
        workspace_root: metadata.workspace_root.clone().into_std_path_buf(),
        target_dir: metadata.target_directory.clone().into_std_path_buf(),
        runtime_dir: runtime.to_path_buf().into_std_path_buf(),
    })
}

/// `inspect callgraph ARGS`.
pub fn main(args: impl IntoIterator<Item = String>) -> Result<ExitCode> {
    let options = parse(args)?;
    if options.help {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let project = locate()?;
    let dir = options.dir.clone().unwrap_or_else(|| project.target_dir.join(results::DIR));
    let results_path = dir.join("results.json");
    let specs = specs(&options);
    let generated = dir.join("workspace");
    let lock = project.workspace_root.join("Cargo.lock");
    generate::write_workspace(&generated, &specs, &project.runtime_dir, lock.exists().then_some(lock.as_path()))?;
    let workspace = Workspace {
        manifest: generated.join("Cargo.toml"),
        target_dir: dir.join("target"),
        scratch: dir.join("times"),
    };
    let limits = Limits { timeout: options.timeout, memory_limit_mib: options.memory_limit_mib, jobs: options.jobs };
    let mut results = Results {
        schema: results::SCHEMA,
        complete: false,
        source: source(&project.workspace_root),
        machine: results::Machine {
            rustc: rustc_version(),
            cores: std::thread::available_parallelism().ok().map(|cores| cores.get() as u64),
        },
        settings: results::Settings {
            depths: options.depths.clone(),
            shapes: options.shapes.iter().map(|shape| shape.name().to_owned()).collect(),
            variants: options.variants.iter().map(|variant| (*variant).to_owned()).collect(),
            timeout_s: options.timeout.as_secs_f64(),
            memory_limit_mib: options.memory_limit_mib,
            jobs: options.jobs,
            recursion_limit: options.recursion_limit,
            profiles: options.shapes.iter().map(|shape| (shape.name().to_owned(), profile_text(*shape))).collect(),
            incremental: false,
            timed: report::TIMED.to_owned(),
        },
        dependencies: results::Dependencies::default(),
        builds: Vec::new(),
    };
    eprintln!(
        "callgraph: {} builds in {}, each limited to {} s and {} MiB",
        specs.len(),
        dir.display(),
        report::seconds_text(options.timeout.as_secs_f64()),
        options.memory_limit_mib
    );
    let mut profiles: Vec<&str> = options.shapes.iter().map(|shape| shape.profile()).collect();
    profiles.dedup();
    for profile in profiles {
        eprintln!("callgraph: building the dependencies ({profile} profile; not timed)");
        let run = build::build(&workspace, generate::DEPS_PACKAGE, profile, &limits, DEPENDENCIES_TIMEOUT)?;
        match run.ended {
            Ended::Built(_) => {
                results.dependencies.wall_ms.insert(profile.to_owned(), run.cargo_wall.as_millis() as u64);
            }
            other => {
                return Err(Error::new(format!(
                    "building the dependencies of the generated crates ({profile} profile) failed, nothing was measured: {}",
                    ended_text(&other, &limits)
                )));
            }
        }
    }
    results.write(&results_path)?;
    let measured = measure_all(
        &specs,
        |spec| measure(&workspace, spec, &limits, options.keep_binaries),
        |builds| {
            results.builds = builds.to_vec();
            results.write(&results_path)
        },
    )?;
    results.builds = measured;
    results.complete = true;
    results.source.written_unix = now_unix();
    results.write(&results_path)?;
    eprintln!("callgraph: wrote {}", results_path.display());
    if options.json {
        println!("{}", results.to_json()?);
    } else {
        print!("{}", report::table(&results));
    }
    Ok(ExitCode::SUCCESS)
}

/// Measure every spec in order, skipping the deeper depths of a shape and lowering once one
/// did not build; `after` sees the builds so far after each.
fn measure_all(
    specs: &[Spec],
    mut measure: impl FnMut(&Spec) -> Result<Build>,
    mut after: impl FnMut(&[Build]) -> Result<()>,
) -> Result<Vec<Build>> {
    let mut stopped: BTreeMap<(Shape, &str), String> = BTreeMap::new();
    let mut builds = Vec::new();
    for spec in specs {
        let build = match stopped.get(&(spec.shape, spec.variant)) {
            Some(why) => {
                eprintln!("callgraph: {} {} {}: skipped ({why})", spec.shape.name(), spec.depth, spec.variant);
                Build { outcome: Outcome::Skipped, detail: Some(format!("not built: {why}")), ..unbuilt(spec) }
            }
            None => measure(spec)?,
        };
        if !matches!(build.outcome, Outcome::Built | Outcome::Skipped) {
            stopped.insert(
                (spec.shape, spec.variant),
                format!("depth {} did not build ({})", spec.depth, build.outcome.name()),
            );
        }
        builds.push(build);
        after(&builds)?;
    }
    Ok(builds)
}

fn unbuilt(spec: &Spec) -> Build {
    Build {
        shape: spec.shape.name().to_owned(),
        depth: spec.depth,
        variant: spec.variant.to_owned(),
        package: spec.package(),
        functions: spec.functions(),
        paths: spec.shape.paths(spec.depth),
        outcome: Outcome::Skipped,
        detail: None,
        cargo_wall_ms: None,
        rustc: None,
        binary: None,
    }
}

/// Build one crate and read its executable.
fn measure(workspace: &Workspace, spec: &Spec, limits: &Limits, keep: bool) -> Result<Build> {
    let package = spec.package();
    let what = format!("{} {} {}", spec.shape.name(), spec.depth, spec.variant);
    eprintln!("callgraph: {what}: building {package}");
    let run = build::build(workspace, &package, spec.shape.profile(), limits, limits.timeout)?;
    let mut build = Build {
        cargo_wall_ms: Some(run.cargo_wall.as_millis() as u64),
        // A rustc stopped at the timeout did not finish: no figure of it.
        rustc: run.rustc.filter(|_| run.ended != Ended::Timeout).map(|times| Rustc {
            wall_ms: times.wall_ms,
            cpu_ms: times.cpu_ms,
            max_rss_kib: times.max_rss_kib,
        }),
        ..unbuilt(spec)
    };
    match &run.ended {
        Ended::Built(Some(executable)) => {
            build.outcome = Outcome::Built;
            build.binary = Some(read_binary(executable, keep)?);
        }
        Ended::Built(None) => {
            build.outcome = Outcome::Failed;
            build.detail = Some(format!("cargo built {package} but reported no executable"));
        }
        other => {
            build.outcome = match other {
                Ended::Timeout => Outcome::Timeout,
                Ended::OutOfMemory(_) => Outcome::OutOfMemory,
                Ended::Killed(_) => Outcome::Killed,
                _ => Outcome::Failed,
            };
            build.detail = Some(ended_text(other, limits));
        }
    }
    if !keep && let Err(error) = build::clean(workspace, &package, spec.shape.profile(), limits) {
        eprintln!("callgraph: warning: {error}");
    }
    eprintln!("callgraph: {what}: {}", summary(&build));
    Ok(build)
}

fn read_binary(executable: &Path, keep: bool) -> Result<Binary> {
    let bytes = std::fs::metadata(executable).context(|| format!("reading {}", executable.display()))?.len();
    let (symbols, symbols_error) = match binary::symbols(executable) {
        Ok(symbols) => (Some(symbols), None),
        Err(error) => (None, Some(error.to_string())),
    };
    let (records, records_error) = match binary::records(executable) {
        Ok(records) => (Some(records), None),
        Err(error) => (None, Some(error.to_string())),
    };
    Ok(Binary {
        path: executable.display().to_string(),
        bytes,
        symbols,
        symbols_error,
        records,
        records_error,
        kept: keep,
    })
}

/// A build's progress line.
fn summary(build: &Build) -> String {
    let mut text = build.outcome.name().to_owned();
    if let Some(rustc) = build.rustc {
        let cpu = rustc.cpu_ms.map_or_else(String::new, |ms| format!("{:.2} s CPU, ", ms as f64 / 1000.0));
        text.push_str(&format!(", rustc {cpu}{:.2} s wall", rustc.wall_ms as f64 / 1000.0));
        if let Some(kib) = rustc.max_rss_kib {
            text.push_str(&format!(", peak {} MiB", kib / 1024));
        }
    }
    if let Some(bytes) = build.binary_bytes() {
        text.push_str(&format!(", {} B", report::grouped(bytes)));
    }
    if let Some(longest) = build.longest_symbol_bytes() {
        text.push_str(&format!(", longest symbol {} B", report::grouped(longest)));
    }
    if let Some(detail) = &build.detail {
        text.push_str(&format!(": {}", detail.lines().next().unwrap_or("")));
    }
    text
}

fn ended_text(ended: &Ended, limits: &Limits) -> String {
    match ended {
        Ended::Built(_) => "built".to_owned(),
        Ended::Failed(error) => error.clone(),
        Ended::Timeout => {
            format!("stopped after {} s (the timeout)", report::seconds_text(limits.timeout.as_secs_f64()))
        }
        Ended::OutOfMemory(said) => {
            format!("{said} (limit: {} MiB of address space per process)", limits.memory_limit_mib)
        }
        Ended::Killed(why) => why.clone(),
    }
}

fn profile_text(shape: Shape) -> String {
    match shape {
        Shape::Chain | Shape::Dag => "dev profile, as a new crate has it (opt-level 0, full debug info)".to_owned(),
        Shape::Freeze => format!(
            "profile `{}`: release with opt-level \"s\" and fat LTO, no debug info (the flags of rustc's \
             deep-futures-are-freeze test)",
            generate::FREEZE_PROFILE
        ),
    }
}

fn source(root: &Path) -> results::Source {
    let current = bench::current_source(root);
    results::Source { commit: current.commit, dirty: current.dirty, written_unix: now_unix() }
}

fn now_unix() -> Option<u64> {
    SystemTime::now().duration_since(UNIX_EPOCH).ok().map(|elapsed| elapsed.as_secs())
}

fn rustc_version() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        .unwrap_or_else(|| "rustc (version unknown)".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn options_have_defaults_and_say_what_is_wrong() {
        let defaults = parse(Vec::new()).expect("parses");
        assert_eq!(defaults.depths, [8, 16, 24, 32, 40]);
        assert_eq!(defaults.shapes, Shape::ALL);
        assert_eq!((defaults.timeout, defaults.memory_limit_mib), (Duration::from_secs(60), 8192));
        let options =
            parse(args("--depths 16,4,8,8 --shapes dag,chain --variants runtime --timeout=2.5 --jobs 1 --json"))
                .expect("parses");
        assert_eq!(options.depths, [4, 8, 16]);
        assert_eq!(options.shapes, [Shape::Chain, Shape::Dag]);
        assert_eq!(options.variants, ["runtime"]);
        assert_eq!((options.timeout, options.jobs, options.json), (Duration::from_millis(2500), Some(1), true));
        let error =
            |text: &str| parse(args(text)).err().map(|error| error.to_string().lines().next().unwrap_or("").to_owned());
        assert_eq!(error("--depths 0").as_deref(), Some("--depths: 0 is not between 1 and 1000"));
        assert_eq!(error("--shapes tree").as_deref(), Some("unknown shape `tree` (shapes: chain, dag, freeze)"));
        assert_eq!(error("--timeout").as_deref(), Some("--timeout needs a value"));
        assert_eq!(error("--timeout -1").as_deref(), Some("--timeout: -1 is not between 0 and 86400 seconds"));
        assert_eq!(
            error("--memory-limit 10").as_deref(),
            Some("--memory-limit: 10 MiB is too little to run rustc (at least 256)")
        );
        assert_eq!(error("--json=1").as_deref(), Some("--json takes no value"));
        assert_eq!(error("--fast").as_deref(), Some("unknown argument `--fast` for callgraph"));
    }

    #[test]
    fn builds_go_by_depth_and_a_build_that_fails_skips_the_deeper_ones_of_its_shape_and_lowering() {
        let options = parse(args("--depths 8,16,24 --shapes chain,dag")).expect("parses");
        let specs = specs(&options);
        assert_eq!(specs.len(), 12);
        assert_eq!(
            specs[..3].iter().map(Spec::package).collect::<Vec<_>>(),
            ["cg-chain-8-classic", "cg-chain-8-runtime", "cg-dag-8-classic"]
        );
        let mut measured = Vec::new();
        let mut written = 0;
        let builds = measure_all(
            &specs,
            |spec| {
                measured.push(spec.package());
                let outcome = if spec.shape == Shape::Dag && spec.depth == 16 && spec.variant == "classic" {
                    Outcome::Timeout
                } else {
                    Outcome::Built
                };
                Ok(Build { outcome, ..unbuilt(spec) })
            },
            |builds| {
                written = builds.len();
                Ok(())
            },
        )
        .expect("measures");
        assert_eq!(written, 12, "the results are written after every build");
        assert_eq!(measured.len(), 11, "dag 24 classic is not built");
        let skipped: Vec<_> = builds.iter().filter(|build| build.outcome == Outcome::Skipped).collect();
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].package, "cg-dag-24-classic");
        assert_eq!(skipped[0].detail.as_deref(), Some("not built: depth 16 did not build (timeout)"));
        assert_eq!(skipped[0].paths, 75_025);
    }
}

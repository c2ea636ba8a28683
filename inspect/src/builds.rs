//! Cargo and builds: which package to inspect, where cargo puts things, and the builds
//! `inspect` runs. Every path comes from `cargo metadata` or from cargo's own messages.
//!
//! The release builds go to `<target dir>/lowering-inspect`, so that their flags never
//! invalidate the workspace's own builds:
//!
//! - the inspected build: the package's library in the release profile, compiled with `--emit`
//!   to explicit paths, v0 symbol names (generic arguments in every symbol, so that code
//!   instantiated for a function's state machine can be attributed to it), full debug info
//!   (type layouts) and one codegen unit (one file per kind; rustc forces it when the paths are
//!   explicit);
//! - the stacks example (if the package has one) in the release profile, built by the same
//!   cargo command and linked against that very library: one release compilation of the crate
//!   serves both, and the example is a linked executable of the inspected code (which
//!   `crosscheck` hands to cargo-bloat);
//! - the stacks example in the dev profile, built in the package's own target dir exactly as
//!   `cargo build --example` builds it, so that it reuses the debug build `cargo run -p
//!   inspect` has just made of the crate and its dependencies.
//!
//! The release builds run rustc through `inspect` itself (`RUSTC_WORKSPACE_WRAPPER`). The
//! wrapper adds the inspection flags to the inspected library's rustc command, and only to
//! it (cargo's `rustc` subcommand could not: its extra flags reach one target, and the
//! example would link a second, differently built copy), records that command line and how
//! long that one rustc took, so that the expansion and the one-variant builds can replay it.
//! Cargo does not see the added flags: the record keeps them, and a record that does not
//! match the current flags or is older than the library rebuilds the library.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cargo_metadata::{Message, MetadataCommand, TargetKind};
use serde::{Deserialize, Serialize};

use crate::error::{Context, Error, Result};
pub use crate::rustc_record::RustcInvocation;

/// The example a package provides for the diagnostics (D1-D4), by convention.
pub const STACKS_EXAMPLE: &str = "lowering_stacks";

/// Set for every build `inspect` runs: tells `inspect` it was started as rustc's wrapper.
const WRAPPER_ENV: &str = "LOWERING_INSPECT_WRAPPER";
/// Set for the rustc wrapper: the file to record the inspected crate's rustc invocation in.
const WRAPPER_RECORD_ENV: &str = "LOWERING_INSPECT_RECORD";
/// Set for the rustc wrapper: the package and crate whose library is the inspected crate
/// (`package crate`).
const WRAPPER_TARGET_ENV: &str = "LOWERING_INSPECT_TARGET";
/// Set for the rustc wrapper: the flags added to the inspected crate's rustc command, one
/// per line.
const WRAPPER_FLAGS_ENV: &str = "LOWERING_INSPECT_FLAGS";
/// Set for the rustc wrapper: the file to write its rustc's wall and CPU time in.
const WRAPPER_TIMES_ENV: &str = "LOWERING_INSPECT_TIMES";

/// The package being inspected, as cargo describes it.
#[derive(Debug, Clone)]
pub struct Package {
    pub name: String,
    /// What `-p` names it by: `NAME@VERSION`, since a dependency may be another version of it.
    pub spec: String,
    /// `--features ..`, `--no-default-features` for its builds (none: the default features).
    pub feature_args: Vec<String>,
    /// Build the library with `-C link-dead-code`, so that its non-generic fns (and their
    /// futures' polls) have code even when nothing in the crate calls them: a published
    /// library's async fns are called from other crates (`inspect crate`).
    pub code_for_every_fn: bool,
    /// The library target's crate name (`-` replaced by `_`): the first segment of every path.
    pub crate_name: String,
    pub manifest_path: PathBuf,
    /// Where relative source paths (`file!()` of a workspace member) start.
    pub workspace_root: PathBuf,
    /// The source directory of the runtime crate (`lowering`), whose frames are machinery.
    pub runtime_dir: Option<PathBuf>,
    /// `<target dir>/lowering-inspect`.
    pub inspect_dir: PathBuf,
    pub has_stacks_example: bool,
}

/// Find the package: `-p NAME` in the workspace of `manifest` (default: this workspace and
/// `workloads`), or the manifest's own package.
pub fn locate(manifest: Option<&Path>, package: Option<&str>) -> Result<Package> {
    let default_manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let (manifest, package) = match (manifest, package) {
        (None, None) => (default_manifest.as_path(), Some("workloads")),
        (None, Some(name)) => (default_manifest.as_path(), Some(name)),
        (Some(path), name) => (path, name),
    };
    let metadata = MetadataCommand::new()
        .manifest_path(manifest)
        .exec()
        .context(|| format!("cargo metadata for {}", manifest.display()))?;
    let found = match package {
        Some(name) => metadata
            .packages
            .iter()
            .find(|candidate| candidate.name.as_str() == name && metadata.workspace_members.contains(&candidate.id)),
        None => metadata.root_package(),
    };
    let found = found.context(|| match package {
        Some(name) => format!(
            "no package `{name}` in the workspace of {} (packages: {})",
            manifest.display(),
            metadata.workspace_packages().iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
        None => format!("{} is a virtual manifest: name a package with -p", manifest.display()),
    })?;
    let library = found
        .targets
        .iter()
        .find(|target| target.kind.iter().any(|kind| matches!(kind, TargetKind::Lib | TargetKind::RLib)))
        .context(|| format!("package `{}` has no library target to inspect", found.name))?;
    let has_stacks_example =
        found.targets.iter().any(|target| target.name == STACKS_EXAMPLE && target.kind.contains(&TargetKind::Example));
    let runtime_dir = metadata
        .packages
        .iter()
        .find(|candidate| candidate.name.as_str() == crate::records::RUNTIME_CRATE)
        .and_then(|runtime| runtime.manifest_path.parent())
        .map(|dir| dir.to_path_buf().into_std_path_buf());
    Ok(Package {
        name: found.name.to_string(),
        spec: format!("{}@{}", found.name, found.version),
        feature_args: Vec::new(),
        code_for_every_fn: false,
        workspace_root: metadata.workspace_root.clone().into_std_path_buf(),
        runtime_dir,
        crate_name: library.name.replace('-', "_"),
        manifest_path: found.manifest_path.clone().into_std_path_buf(),
        inspect_dir: metadata.target_directory.join("lowering-inspect").into_std_path_buf(),
        has_stacks_example,
    })
}

/// The variants a `lowering_only` build can keep (`lowering::both!` honours the cfg).
pub const VARIANTS: [&str; 2] = ["classic", "runtime"];

/// The inspected crate compiled again with only `variant` kept (`--cfg
/// lowering_only="variant"`): the recorded rustc command, same flags and the same kinds of
/// output, into `dir/variant`, run through `inspect` as the wrapper, which measures it. Returns
/// its CPU time in ms (see [`RustcInvocation::cpu_ms`]), or why it could not be built (a crate
/// whose host code names both variants does not compile with one).
/// What the crate's rustc produced with one variant kept.
#[derive(Debug, Clone, Copy)]
pub struct VariantBuild {
    /// CPU time of that rustc, or the clock's where `/proc` has none (`cpu` says which).
    pub ms: u64,
    /// `ms` is CPU time (false: wall time, this system gives no CPU time).
    pub cpu: bool,
    /// `.text` bytes of the object it emitted: every piece of code the variant made the crate
    /// hold, generic runtime code shared by several functions included.
    pub object_text_bytes: Option<u64>,
}

pub fn time_variant(
    invocation: &RustcInvocation,
    variant: &str,
    dir: &Path,
) -> Result<std::result::Result<VariantBuild, String>> {
    let out_dir = dir.join(variant);
    std::fs::create_dir_all(&out_dir).context(|| format!("creating {}", out_dir.display()))?;
    let times = out_dir.join("times.json");
    let _ = std::fs::remove_file(&times);
    let mut args = invocation.replay_args();
    args.extend([
        "--cfg".to_owned(),
        format!("lowering_only=\"{variant}\""),
        "--emit=dep-info,metadata,link,mir,llvm-ir,obj,asm".to_owned(),
        "--out-dir".to_owned(),
        out_dir.display().to_string(),
    ]);
    let me = std::env::current_exe().context(|| "finding inspect's own executable (the timing wrapper)")?;
    let output = Command::new(me)
        .arg(&invocation.program)
        .args(&args)
        .current_dir(&invocation.cwd)
        .envs(&invocation.env)
        .env(WRAPPER_ENV, "1")
        .env(WRAPPER_TIMES_ENV, &times)
        // Not the inspected build: nothing to add or record.
        .env_remove(WRAPPER_RECORD_ENV)
        // cargo's jobserver is not inherited by a replay.
        .env_remove("CARGO_MAKEFLAGS")
        .stdin(Stdio::null())
        .output()
        .context(|| format!("running {} for the {variant}-only build", invocation.program.display()))?;
    if output.status.success() {
        let text = std::fs::read_to_string(&times).context(|| format!("reading {}", times.display()))?;
        let measured: Times = serde_json::from_str(&text).context(|| format!("parsing {}", times.display()))?;
        if measured.cpu_ms.is_none() {
            eprintln!("inspect: no CPU time on this system (/proc): the {variant}-only build is timed by the clock");
        }
        let object_text_bytes = object_text_bytes(&out_dir);
        return Ok(Ok(VariantBuild {
            ms: measured.cpu_ms.unwrap_or(measured.wall_ms),
            cpu: measured.cpu_ms.is_some(),
            object_text_bytes,
        }));
    }
    let first_error = String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["level"] == "error")
        .find_map(|message| message["message"].as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("rustc exited with {}", output.status));
    Ok(Err(format!("the {variant}-only build (--cfg lowering_only=\"{variant}\") failed: {first_error}")))
}

/// `.text` bytes of the one object file (`--emit=obj`) in `dir`, if there is exactly one.
fn object_text_bytes(dir: &Path) -> Option<u64> {
    let mut objects = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "o"));
    let (Some(object), None) = (objects.next(), objects.next()) else { return None };
    let data = std::fs::read(object).ok()?;
    let file = object::File::parse(&*data).ok()?;
    Some(crate::symbols::read_object(&file).text_bytes)
}

/// What the wrapper measured of one rustc.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Times {
    pub wall_ms: u64,
    pub cpu_ms: Option<u64>,
    /// The peak resident memory of rustc (or of the linker it ran, whichever was larger), in
    /// KiB (`getrusage`'s `ru_maxrss` of the wrapper's children).
    #[serde(default)]
    pub max_rss_kib: Option<u64>,
}

/// The environment that makes `inspect` the rustc wrapper of a workspace's members (cargo's
/// `RUSTC_WORKSPACE_WRAPPER`), writing what it measures of each member's compilation (wall and
/// CPU time, peak memory; not of cargo's queries of rustc) to `times`, and adding nothing to the
/// command.
pub fn timing_wrapper_env(times: &Path) -> Result<Vec<(String, std::ffi::OsString)>> {
    let me = std::env::current_exe().context(|| "finding inspect's own executable (the timing wrapper)")?;
    Ok(vec![
        ("RUSTC_WORKSPACE_WRAPPER".to_owned(), me.into_os_string()),
        (WRAPPER_ENV.to_owned(), "1".into()),
        (WRAPPER_TIMES_ENV.to_owned(), times.as_os_str().to_owned()),
    ])
}

/// The variables of [`timing_wrapper_env`]'s wrapper that must not reach a build it times:
/// another role of the same wrapper.
pub const WRAPPER_ROLE_ENV: [&str; 3] = [WRAPPER_RECORD_ENV, WRAPPER_TARGET_ENV, WRAPPER_FLAGS_ENV];

/// What the wrapper wrote to `path` (see [`timing_wrapper_env`]).
pub fn read_times(path: &Path) -> Result<Times> {
    let text = std::fs::read_to_string(path).context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).context(|| format!("parsing {}", path.display()))
}

/// The files of the inspected build.
#[derive(Debug, Clone)]
pub struct Emitted {
    pub mir: PathBuf,
    pub llvm_ir: PathBuf,
    pub object: PathBuf,
    pub asm: PathBuf,
    pub rlib: PathBuf,
    pub rustc: RustcInvocation,
    /// The release stacks example, linked against this very library (`None` when the
    /// package has no stacks example).
    pub stacks_example: Option<PathBuf>,
}

impl Emitted {
    fn paths(dir: &Path, crate_name: &str) -> [PathBuf; 4] {
        ["mir", "ll", "o", "s"].map(|extension| dir.join(format!("{crate_name}.{extension}")))
    }
}

/// The inspected library and the release stacks example (see the module docs), fresh or
/// rebuilt by cargo as needed.
///
/// `watch` is called with the rustc record's path and the flags the build adds, just before
/// the build: it may watch the record appear (`replays::Early`) and is handed back.
pub fn emit<W>(package: &Package, watch: impl FnOnce(&Path, Vec<String>) -> W) -> Result<(Emitted, W)> {
    let dir = package.inspect_dir.join("emit");
    std::fs::create_dir_all(&dir).context(|| format!("creating {}", dir.display()))?;
    let [mir, llvm_ir, object, asm] = Emitted::paths(&dir, &package.crate_name);
    let record = dir.join("rustc.json");
    let mut flags = inspection_flags(&[&mir, &llvm_ir, &object, &asm]);
    if package.code_for_every_fn {
        flags.extend(["-C".to_owned(), "link-dead-code".to_owned()]);
    }
    let what = if package.has_stacks_example {
        format!(
            "{} (release, emitting MIR, LLVM IR, object and assembly; example {STACKS_EXAMPLE} linked to it)",
            package.name
        )
    } else {
        format!("{} (release, emitting MIR, LLVM IR, object and assembly)", package.name)
    };
    let early = watch(&record, flags.clone());
    let mut artifacts = run_cargo(release_build(package, &record, &flags), &what)?;

    // cargo knows neither the `--emit` files nor the flags the wrapper adds: if the files (or
    // the record) went missing, or the library was built without those flags (by an older
    // `inspect`, or with other ones), while cargo holds it fresh, rebuild it once.
    let current = |artifacts: &[Artifact]| -> bool {
        let emitted = [&mir, &llvm_ir, &object, &asm, &record].iter().all(|path| path.exists());
        let recorded = read_record(&record).is_some_and(|rustc| rustc.added == flags);
        let rlib_built_with_them = rlib_of(package, artifacts)
            .and_then(|rlib| Some((modified(&rlib)?, modified(&record)?)))
            .is_some_and(|(rlib, record)| rlib <= record);
        emitted && recorded && rlib_built_with_them
    };
    if !current(&artifacts) {
        let mut clean = cargo(package, "clean");
        clean.args(["--release", "-p", &package.spec]);
        run_cargo(clean, &format!("{} from scratch (its inspected build was out of date)", package.name))?;
        artifacts = run_cargo(release_build(package, &record, &flags), &what)?;
        if !current(&artifacts) {
            return Err(Error::new(format!(
                "the build of {} did not write its --emit files and its rustc record to {}",
                package.name,
                dir.display()
            )));
        }
    }
    let rlib = rlib_of(package, &artifacts).context(|| format!("cargo reported no rlib for {}", package.name))?;
    let stacks_example = if package.has_stacks_example {
        let executable = artifacts.iter().find_map(|artifact| artifact.executable.clone());
        Some(executable.context(|| format!("cargo reported no executable for the example {STACKS_EXAMPLE}"))?)
    } else {
        None
    };
    let rustc = read_record(&record).context(|| format!("reading {}", record.display()))?;
    Ok((Emitted { mir, llvm_ir, object, asm, rlib, rustc, stacks_example }, early))
}

/// What the wrapper adds to the inspected crate's rustc command: the explicit outputs, v0
/// names, full debug info, one codegen unit (rustc takes the last of a repeated `-C`).
fn inspection_flags(outputs: &[&PathBuf; 4]) -> Vec<String> {
    let [mir, llvm_ir, object, asm] = outputs;
    let emit = format!(
        "--emit=mir={},llvm-ir={},obj={},asm={}",
        mir.display(),
        llvm_ir.display(),
        object.display(),
        asm.display()
    );
    [emit.as_str(), "-C", "symbol-mangling-version=v0", "-C", "debuginfo=2", "-C", "codegen-units=1"]
        .map(str::to_owned)
        .to_vec()
}

/// `cargo build --release --lib [--example lowering_stacks]`, the wrapper told which crate
/// to add `flags` to and where to record its command.
fn release_build(package: &Package, record: &Path, flags: &[String]) -> Command {
    let mut command = cargo(package, "build");
    command.args(release_build_args(package));
    command
        .env(WRAPPER_RECORD_ENV, record)
        .env(WRAPPER_TARGET_ENV, format!("{} {}", package.name, package.crate_name))
        .env(WRAPPER_FLAGS_ENV, flags.join("\n"));
    command
}

/// The selection of the release build, also given to cargo-bloat so that it finds that build
/// fresh (see `crosscheck`).
pub fn release_build_args(package: &Package) -> Vec<String> {
    let mut args = vec!["--release".to_owned(), "--lib".to_owned()];
    if package.has_stacks_example {
        args.extend(["--example".to_owned(), STACKS_EXAMPLE.to_owned()]);
    }
    args
}

/// The environment of every release build (and of cargo-bloat's, which must find them fresh).
pub fn release_build_env(package: &Package, emitted: &Emitted) -> Vec<(String, std::ffi::OsString)> {
    let record = package.inspect_dir.join("emit").join("rustc.json");
    let mut env = release_env(package);
    env.push((WRAPPER_RECORD_ENV.to_owned(), record.into_os_string()));
    env.push((WRAPPER_TARGET_ENV.to_owned(), format!("{} {}", package.name, package.crate_name).into()));
    env.push((WRAPPER_FLAGS_ENV.to_owned(), emitted.rustc.added.join("\n").into()));
    env
}

fn rlib_of(package: &Package, artifacts: &[Artifact]) -> Option<PathBuf> {
    artifacts
        .iter()
        .find(|artifact| artifact.package == package.name && artifact.is_lib)
        .and_then(|artifact| artifact.files.iter().find(|file| file.extension().is_some_and(|ext| ext == "rlib")))
        .cloned()
}

fn read_record(path: &Path) -> Option<RustcInvocation> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|metadata| metadata.modified()).ok()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Debug,
    Release,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Debug => "debug",
            Profile::Release => "release",
        }
    }
}

/// Build the package's stacks example in the dev profile, in the package's own target dir
/// and as a plain `cargo build --example` would (no wrapper, cargo's own environment), so
/// that the debug build `cargo run -p inspect` made of the crate serves it. The release
/// example comes with the inspected build ([`emit`]).
pub fn build_debug_stacks_example(package: &Package) -> Result<PathBuf> {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.arg("build").arg("--manifest-path").arg(&package.manifest_path).args([
        "-p",
        &package.spec,
        "--message-format=json",
        "--example",
        STACKS_EXAMPLE,
    ]);
    command.args(&package.feature_args);
    let what = format!("{} example {STACKS_EXAMPLE} (debug)", package.name);
    run_cargo(command, &what)?
        .into_iter()
        .find_map(|artifact| artifact.executable)
        .context(|| format!("cargo reported no executable for {what}"))
}

/// The environment of every build in the inspect dir (see [`cargo`]).
fn release_env(package: &Package) -> Vec<(String, std::ffi::OsString)> {
    let mut env: Vec<(String, std::ffi::OsString)> = vec![
        ("CARGO_TARGET_DIR".to_owned(), package.inspect_dir.join("target").into_os_string()),
        // Release stacks need line tables to name inlined frames (this workspace's profile
        // has them; a crate's own profile may not). Set for every build here, so that all
        // share one release profile and none invalidates another.
        ("CARGO_PROFILE_RELEASE_DEBUG".to_owned(), "line-tables-only".into()),
        // cargo-bloat sets this for its build (it needs the symbols); set for every build here
        // too, so that its build of the example finds this one fresh.
        ("CARGO_PROFILE_RELEASE_STRIP".to_owned(), "false".into()),
    ];
    if let Ok(me) = std::env::current_exe() {
        env.push(("RUSTC_WORKSPACE_WRAPPER".to_owned(), me.into_os_string()));
        env.push((WRAPPER_ENV.to_owned(), "1".into()));
    }
    env
}

/// `cargo <subcommand> -p <package>` in the inspect dir, wrapped (see the module docs).
/// Every build in that dir uses the same wrapper, so that no build invalidates another.
fn cargo(package: &Package, subcommand: &str) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.arg(subcommand).arg("--manifest-path").arg(&package.manifest_path).args(["-p", &package.spec]);
    if subcommand != "clean" {
        command.arg("--message-format=json").args(&package.feature_args);
    }
    command.envs(release_env(package));
    command
}

struct Artifact {
    package: String,
    is_lib: bool,
    files: Vec<PathBuf>,
    executable: Option<PathBuf>,
}

/// Run a cargo command, showing progress on stderr (what is being built, elapsed time).
/// On failure the error carries rustc's messages (or cargo's own), and nothing else runs.
fn run_cargo(mut command: Command, what: &str) -> Result<Vec<Artifact>> {
    let started = Instant::now();
    eprintln!("inspect: building {what}");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context(|| format!("running cargo for {what}"))?;
    let stdout = child.stdout.take().context(|| "cargo's stdout")?;
    let stderr = child.stderr.take().context(|| "cargo's stderr")?;
    // cargo's own errors (a bad manifest, a lock) go to stderr; keep them for the report.
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            text.push_str(&line);
            text.push('\n');
        }
        text
    });
    let (done, ticks) = mpsc::channel::<()>();
    let ticker = std::thread::spawn(move || {
        while let Err(mpsc::RecvTimeoutError::Timeout) = ticks.recv_timeout(Duration::from_secs(10)) {
            eprintln!("inspect:   still building ({}s)", started.elapsed().as_secs());
        }
    });

    let mut artifacts = Vec::new();
    let mut errors = Vec::new();
    for message in Message::parse_stream(BufReader::new(stdout)) {
        match message {
            Ok(Message::CompilerArtifact(artifact)) => {
                if !artifact.fresh {
                    eprintln!("inspect:   compiled {} ({:.1}s)", artifact.target.name, started.elapsed().as_secs_f64());
                }
                artifacts.push(Artifact {
                    package: artifact.package_id.repr.clone(),
                    is_lib: artifact.target.kind.iter().any(|kind| matches!(kind, TargetKind::Lib | TargetKind::RLib)),
                    files: artifact.filenames.into_iter().map(|path| path.into_std_path_buf()).collect(),
                    executable: artifact.executable.map(|path| path.into_std_path_buf()),
                });
            }
            Ok(Message::CompilerMessage(message)) => {
                if message.message.level == cargo_metadata::diagnostic::DiagnosticLevel::Error {
                    errors.push(message.message.rendered.unwrap_or(message.message.message));
                }
            }
            Ok(_) => {}
            Err(error) => errors.push(format!("unreadable message from cargo: {error}")),
        }
    }
    let status = child.wait().context(|| format!("waiting for cargo ({what})"))?;
    drop(done);
    let _ = ticker.join();
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() {
        let mut message = format!("building {what} failed ({status})");
        if errors.is_empty() {
            message.push_str(":\n");
            message.push_str(stderr.trim_end());
        } else {
            message.push_str(", rustc said:\n");
            message.push_str(errors.join("\n").trim_end());
        }
        return Err(Error::new(message));
    }
    eprintln!("inspect:   done in {:.1}s", started.elapsed().as_secs_f64());
    // `package_id.repr` is opaque; cargo's artifacts name their package by target, so match
    // on the package name inside it (`path+file:///..#name@version` or `name version (..)`).
    for artifact in &mut artifacts {
        artifact.package = package_name_of(&artifact.package);
    }
    Ok(artifacts)
}

/// The package name inside a cargo package id (`path+file:///p#name@0.1.0`,
/// `path+file:///p/name#0.1.0` or the older `name 0.1.0 (path+file:///p)`).
fn package_name_of(id: &str) -> String {
    if let Some((location, fragment)) = id.rsplit_once('#') {
        return match fragment.split_once('@') {
            Some((name, _version)) => name.to_owned(),
            None => location.rsplit('/').next().unwrap_or(location).to_owned(),
        };
    }
    id.split(' ').next().unwrap_or(id).to_owned()
}

/// `inspect` as cargo's rustc wrapper: `inspect <rustc> <args>`. Runs rustc unchanged, except
/// for the inspected crate's library (the package and crate named in the environment): its
/// command gets the inspection flags, and is recorded with rustc's wall time. Returns rustc's
/// exit code, or `None` when not run as a wrapper.
pub fn run_as_rustc_wrapper() -> Option<i32> {
    std::env::var_os(WRAPPER_ENV)?;
    let mut args = std::env::args().skip(1);
    let program = PathBuf::from(args.next()?);
    let mut args: Vec<String> = args.collect();
    let record = std::env::var_os(WRAPPER_RECORD_ENV).filter(|_| is_inspected_library(&args));
    let mut added = Vec::new();
    if record.is_some() {
        added = std::env::var(WRAPPER_FLAGS_ENV)
            .unwrap_or_default()
            .split('\n')
            .filter(|flag| !flag.is_empty())
            .map(str::to_owned)
            .collect();
        args.extend(added.iter().cloned());
    }
    let mut invocation = RustcInvocation {
        program,
        args,
        cwd: std::env::current_dir().unwrap_or_default(),
        env: std::env::vars().filter(|(key, _)| key.starts_with("CARGO") || key == "OUT_DIR").collect(),
        build_ms: 0,
        cpu_ms: None,
        added,
    };
    // The command is known before rustc runs: `inspect` starts its replays of it (which need
    // only the dependencies, built by now) while this rustc still compiles.
    if let Some(record) = &record
        && let Err(error) = write_json(&started_record(Path::new(record)), &invocation)
    {
        eprintln!("inspect (as rustc wrapper): cannot record the invocation: {error}");
        return Some(1);
    }
    let started = Instant::now();
    let cpu_before = children_cpu_ms();
    let status = match Command::new(&invocation.program).args(&invocation.args).status() {
        Ok(status) => status,
        Err(error) => {
            eprintln!("inspect (as rustc wrapper): cannot run {}: {error}", invocation.program.display());
            return Some(1);
        }
    };
    invocation.build_ms = started.elapsed().as_millis() as u64;
    invocation.cpu_ms = children_cpu_ms().zip(cpu_before).map(|(after, before)| after.saturating_sub(before));
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        // Cargo sees the wrapper's exit code, not the signal: say it here.
        eprintln!("inspect (as rustc wrapper): rustc was killed by signal {signal}");
    }
    let mut written = Ok(());
    // Cargo also runs the wrapper for its queries (`rustc -vV`, `--print`): not a compilation.
    let compiles = invocation.args.iter().any(|arg| arg == "--crate-name")
        && !invocation.args.iter().any(|arg| arg.starts_with("--print") || arg == "-vV");
    if let Some(times) = std::env::var_os(WRAPPER_TIMES_ENV).filter(|_| compiles) {
        let times_of_rustc =
            Times { wall_ms: invocation.build_ms, cpu_ms: invocation.cpu_ms, max_rss_kib: children_max_rss_kib() };
        written = write_json(Path::new(&times), &times_of_rustc);
    }
    if let Some(record) = record.filter(|_| status.success()) {
        written = written.and(write_json(Path::new(&record), &invocation));
    }
    if let Err(error) = written {
        eprintln!("inspect (as rustc wrapper): cannot record the invocation: {error}");
        return Some(1);
    }
    Some(status.code().unwrap_or(1))
}

/// Where the wrapper writes the inspected crate's command as rustc starts (`record` is
/// written when it ends).
pub fn started_record(record: &Path) -> PathBuf {
    record.with_file_name("rustc-started.json")
}

fn write_json(path: &Path, value: &impl Serialize) -> std::result::Result<(), String> {
    let json = serde_json::to_string(value).map_err(|error| error.to_string())?;
    std::fs::write(path, json).map_err(|error| format!("{}: {error}", path.display()))
}

/// CPU time (user and system) of this process's waited-for children so far, in ms: fields
/// `cutime` and `cstime` of `/proc/self/stat`, in the kernel's fixed 100 ticks a second.
/// `None` where there is no `/proc`: the wall time stands in, and `inspect` says so.
fn children_cpu_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces), starting with field 3.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    let ticks = |field: usize| fields.get(field - 3)?.parse::<u64>().ok();
    Some((ticks(16)? + ticks(17)?) * 10)
}

/// The peak resident memory of the largest of this process's waited-for children (and their
/// waited-for descendants), in KiB: `getrusage(RUSAGE_CHILDREN)`'s `ru_maxrss`.
fn children_max_rss_kib() -> Option<u64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` writes a `rusage` to the pointer it is given, which points to one.
    let done = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    // SAFETY: `getrusage` succeeded (0), so it initialized the struct (zeroed before anyway).
    (done == 0).then(|| unsafe { usage.assume_init() }.ru_maxrss).and_then(|kib| u64::try_from(kib).ok())
}

/// Whether this rustc command compiles the inspected package's library (named, as `package
/// crate`, in the environment cargo passes through).
fn is_inspected_library(args: &[String]) -> bool {
    let Ok(target) = std::env::var(WRAPPER_TARGET_ENV) else { return false };
    let Some((package, krate)) = target.split_once(' ') else { return false };
    let value_of = |flag: &str| args.iter().position(|arg| arg == flag).and_then(|at| args.get(at + 1));
    std::env::var("CARGO_PKG_NAME").is_ok_and(|name| name == package)
        && value_of("--crate-name").is_some_and(|name| name == krate)
        && value_of("--crate-type").is_some_and(|kind| kind == "lib" || kind == "rlib")
}

#[cfg(test)]
mod tests {
    use super::package_name_of;

    #[test]
    fn package_ids_name_their_package() {
        assert_eq!(package_name_of("path+file:///work/main/workloads#0.1.0"), "workloads");
        assert_eq!(package_name_of("path+file:///work/x#lowering-fixture@0.1.0"), "lowering-fixture");
        assert_eq!(package_name_of("workloads 0.1.0 (path+file:///work/main/workloads)"), "workloads");
    }
}

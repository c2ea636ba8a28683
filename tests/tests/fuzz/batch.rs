//! Many programs, one build: a generated package (outside this workspace) holds every
//! program of a batch in a file of its own, under both lowerings; its binaries (one per core,
//! since rustc checks one crate on one core) run and compare them and print one JSON line per
//! program.
//!
//! A program whose expansion rustc rejects is found from the file its errors point into, and
//! the crate is built again without it. A program that hangs or takes the process down is
//! reported, and the run goes on after it.
//!
//! Some programs of a run (`run_with_memcheck`) also run under valgrind's memcheck, their
//! classic variant alone (to the end and dropped at every suspension, what they stored run
//! after): the same executable, asked for those programs (`--memcheck 0 50 ..`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::ast::{Program, stores};
use super::print;

/// How long one program may run (both lowerings, dropped at every suspension) before it
/// counts as hung.
const PROGRAM_TIMEOUT: Duration = Duration::from_secs(20);

/// How long one executable's memcheck (a shard's programs under valgrind) may take.
const MEMCHECK_TIMEOUT: Duration = Duration::from_secs(600);

/// The memcheck part of a batch ([`run_with_memcheck`]).
#[derive(Debug, Default)]
pub struct Memcheck {
    /// The programs run under memcheck (batch indices).
    pub programs: Vec<usize>,
    /// The programs with errors: batch index, how many errors valgrind reported, its output.
    pub errors: Vec<(usize, usize, String)>,
    /// Why memcheck did not run, if it did not (valgrind is not installed).
    pub skipped: Option<String>,
}

/// What became of one program.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Both lowerings gave the same outcome and events, at the end and at every suspension.
    Same { outcome: String, suspensions: usize },
    /// They differed; both sides, as the harness printed them.
    Mismatch(String),
    /// rustc rejected the program's expansion (with `twin`: only under the classic
    /// lowering, the runtime one alone compiled).
    CompileError(String),
    /// rustc rejected only the classic expansion, with nothing but refusals the classic
    /// lowering documents as its limits (`DOCUMENTED_REFUSALS`): counted, not a failure.
    Refused(String),
    /// The plain `async fn` alone does not compile: the generator or checker is wrong.
    Invalid(String),
    /// The harness hung or died while running it.
    Crash(String),
}

impl Verdict {
    pub fn is_failure(&self) -> bool {
        !matches!(self, Verdict::Same { .. } | Verdict::Refused(_))
    }
}

/// The refusals of the classic lowering, each a row of docs/classic-lowering.md's
/// "Refused shapes" with a ui test, that the generator may draw: where the lowering cannot
/// keep Rust's meaning it says so at the user's line, which is what it should do there. (The
/// beginning of the message, after `error: `.)
const DOCUMENTED_REFUSALS: &[&str] = &[
    // `S { a: .., ..v }` after a field of `v` moved, `v` kept in place
    // (ui/struct_update_after_a_field_moved.rs).
    "classic lowering: a struct update from `",
];

/// Are all of rustc's errors in `rendered` (a program's, classic expansion) documented refusals?
fn only_documented_refusals(rendered: &str) -> bool {
    let mut errors = rendered.lines().filter_map(|line| line.strip_prefix("error"));
    let mut any = false;
    let all = errors.all(|error| {
        any = true;
        error
            .strip_prefix(": ")
            .is_some_and(|message| DOCUMENTED_REFUSALS.iter().any(|known| message.starts_with(known)))
    });
    any && all
}

/// The workspace root (this package's parent).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the tests package is in the workspace").to_owned()
}

/// Build and run `programs` as the package `target/lowering-fuzz/<name>-<process id>` (so
/// that concurrent runs keep apart), removed afterwards unless a program failed. With
/// `twins`, each program is also compiled alone under the runtime lowering, so that a compile
/// error can be told apart: the classic expansion's, or the program's own.
pub fn run(name: &str, programs: &[Program], twins: bool) -> Result<Vec<Verdict>, String> {
    run_with_memcheck(name, programs, twins, &[]).map(|(verdicts, _)| verdicts)
}

/// [`run`], and the programs `memcheck` names (batch indices) that ran (the same or not) run
/// again under valgrind's memcheck, classic variant alone.
pub fn run_with_memcheck(
    name: &str,
    programs: &[Program],
    twins: bool,
    memcheck: &[usize],
) -> Result<(Vec<Verdict>, Memcheck), String> {
    let name = format!("{name}-{}", std::process::id());
    let dir = workspace().join("target").join("lowering-fuzz").join(&name);
    let src = dir.join("src");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|error| format!("cannot clear {}: {error}", dir.display()))?;
    }
    std::fs::create_dir_all(&src).map_err(|error| format!("cannot create {}: {error}", src.display()))?;
    let package = format!("lowering-fuzz-{name}");
    let shards = std::thread::available_parallelism().map_or(1, |cores| cores.get()).min(programs.len()).max(1);
    // Named after the package, so that no other run's executable has the same path.
    let bins: Vec<String> = (0..shards).map(|shard| format!("{package}-{shard}")).collect();
    write(&dir.join("Cargo.toml"), &manifest(&package, &bins, programs.len() >= LONG_RUN_BUILD))?;
    // The workspace's versions, so that nothing is resolved anew.
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock"))
        .map_err(|error| format!("cannot copy Cargo.lock: {error}"))?;
    for (index, program) in programs.iter().enumerate() {
        write(&src.join(format!("p{index:05}.rs")), &program_file(program, memcheck.contains(&index)))?;
        if twins {
            write(&src.join(format!("p{index:05}_runtime.rs")), &twin_file(program))?;
        }
    }

    let bin = src.join("bin");
    std::fs::create_dir_all(&bin).map_err(|error| format!("cannot create {}: {error}", bin.display()))?;
    let mut verdicts: BTreeMap<usize, Verdict> = BTreeMap::new();
    let mut included: Vec<usize> = (0..programs.len()).collect();
    let mut written: Vec<Option<Vec<usize>>> = vec![None; shards];
    // The shards' sources for the programs `included` names.
    let mut write_shards = |included: &[usize]| -> Result<(), String> {
        for (shard, written) in written.iter_mut().enumerate() {
            let mine = shard_of(included, shard, shards);
            // An unchanged shard is not rewritten, so that cargo does not build it again.
            if written.as_ref() != Some(&mine) {
                let checked: Vec<usize> = mine.iter().copied().filter(|index| memcheck.contains(index)).collect();
                write(&bin.join(format!("shard{shard}.rs")), &main_file(&mine, twins, &checked))?;
                *written = Some(mine);
            }
        }
        Ok(())
    };
    let executables = loop {
        write_shards(&included)?;
        let (errors, built) = build(&dir)?;
        if errors.is_empty() {
            break built;
        }
        let mut rejected: BTreeMap<usize, (String, bool)> = BTreeMap::new();
        for error in errors {
            let (index, in_twin) = match error.program {
                Some(found) => found,
                // An error that points into no program (one of monomorphization, in the
                // runtime crate, whose note names no program either): the program whose
                // presence makes it, found by building halves of the batch.
                None => match culprit(&included, &mut write_shards, &dir)? {
                    Some(index) => (index, false),
                    None => {
                        return Err(format!(
                            "the batch `{name}` failed to build, not in any program (and no one program \
                             alone makes it):\n{}",
                            error.rendered
                        ));
                    }
                },
            };
            let entry = rejected.entry(index).or_default();
            entry.0.push_str(&error.rendered);
            entry.1 |= in_twin;
        }
        for (index, (rendered, in_twin)) in rejected {
            let verdict = if in_twin {
                Verdict::Invalid(rendered)
            } else if only_documented_refusals(&rendered) {
                Verdict::Refused(rendered)
            } else {
                Verdict::CompileError(rendered)
            };
            verdicts.insert(index, verdict);
            included.retain(|&included| included != index);
        }
        if included.is_empty() {
            break built;
        }
    };
    for shard in 0..shards {
        let mine = shard_of(&included, shard, shards);
        if mine.is_empty() {
            continue;
        }
        let binary = executables.get(&bins[shard]).ok_or_else(|| format!("cargo built no {}", bins[shard]))?;
        for (position, verdict) in execute(binary, mine.len())?.into_iter().enumerate() {
            verdicts.insert(mine[position], verdict);
        }
    }
    // The programs that ran to a verdict (not a crash), under valgrind, a shard per thread.
    let mut checked = Memcheck::default();
    let ran = |index: &usize| matches!(verdicts.get(index), Some(Verdict::Same { .. } | Verdict::Mismatch(_)));
    let wanted: Vec<Vec<usize>> = (0..shards)
        .map(|shard| {
            shard_of(&included, shard, shards).into_iter().filter(|i| memcheck.contains(i) && ran(i)).collect()
        })
        .collect();
    if wanted.iter().any(|indices| !indices.is_empty()) {
        match valgrind_missing() {
            Some(why) => checked.skipped = Some(why),
            None => {
                let results: Vec<Result<Vec<(usize, usize, String)>, String>> = std::thread::scope(|scope| {
                    let handles: Vec<_> = wanted
                        .iter()
                        .enumerate()
                        .filter(|(_, indices)| !indices.is_empty())
                        .map(|(shard, indices)| {
                            let binary = executables.get(&bins[shard]).cloned();
                            scope.spawn(move || {
                                let binary = binary.ok_or_else(|| "no executable".to_owned())?;
                                memcheck_programs(&binary, indices)
                            })
                        })
                        .collect();
                    handles.into_iter().map(|handle| handle.join().expect("a memcheck thread")).collect()
                });
                for result in results {
                    checked.errors.extend(result?);
                }
                checked.programs = wanted.concat();
                checked.programs.sort_unstable();
            }
        }
    }
    // Nobody runs these executables again (nor their copies in `deps/`).
    remove_executables(&bins);
    let verdicts: Vec<Verdict> =
        (0..programs.len()).map(|index| verdicts.remove(&index).expect("a verdict for every program")).collect();
    if !verdicts.iter().any(Verdict::is_failure) && checked.errors.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok((verdicts, checked))
}

/// Why memcheck cannot run here, if it cannot.
fn valgrind_missing() -> Option<String> {
    match Command::new("valgrind").arg("--version").stdin(Stdio::null()).output() {
        Ok(output) if output.status.success() => None,
        _ => Some(
            "valgrind is not installed: memcheck skipped (`bash scripts/memcheck.sh` installs it with apt-get as root)"
                .to_owned(),
        ),
    }
}

/// `indices` (of one executable's programs) under memcheck: those with errors, with how
/// many and valgrind's output. All of them in one valgrind process; on an error, each again
/// alone, to tell which.
fn memcheck_programs(binary: &Path, indices: &[usize]) -> Result<Vec<(usize, usize, String)>, String> {
    let (errors, output) = valgrind(binary, indices)?;
    if errors == 0 {
        return Ok(Vec::new());
    }
    if indices.len() == 1 {
        return Ok(vec![(indices[0], errors, output)]);
    }
    let mut found = Vec::new();
    for &index in indices {
        let (errors, output) = valgrind(binary, &[index])?;
        if errors > 0 {
            found.push((index, errors, output));
        }
    }
    if found.is_empty() {
        // Only together: report them as one.
        found.push((indices[0], errors, output));
    }
    Ok(found)
}

/// One valgrind run of the executable's memcheck mode: the number of errors (at least 1 if
/// valgrind says there were any, or the process did not end well) and what it printed.
fn valgrind(binary: &Path, indices: &[usize]) -> Result<(usize, String), String> {
    let mut child = Command::new("valgrind")
        .args(["--quiet", "--error-exitcode=99", "--errors-for-leak-kinds=none"])
        .arg(binary)
        .arg("--memcheck")
        .args(indices.iter().map(usize::to_string))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot run valgrind: {error}"))?;
    let (mut stdout, mut stderr) = (child.stdout.take().expect("piped"), child.stderr.take().expect("piped"));
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|error| format!("cannot wait for valgrind: {error}"))? {
            break Some(status);
        }
        if start.elapsed() > MEMCHECK_TIMEOUT {
            // Our own child, by its handle.
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (out, err) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    // An error's first line: `==pid== Invalid read of size 4` (its stack is indented more).
    let reported = err
        .lines()
        .filter(|line| {
            line.strip_prefix("==").and_then(|rest| rest.split_once("== ")).is_some_and(|(pid, text)| {
                pid.chars().all(|c| c.is_ascii_digit())
                    && text.starts_with(|c: char| !c.is_whitespace())
                    && !text.starts_with("Warning")
            })
        })
        .count();
    let done = out.lines().filter(|line| line.starts_with("memcheck ")).count();
    let errors = match status {
        Some(status) if status.success() && done == indices.len() => 0,
        Some(status) if status.code() == Some(99) => reported.max(1),
        Some(status) => {
            return Ok((
                reported.max(1),
                format!(
                    "the memcheck run ended with {status}
{err}"
                ),
            ));
        }
        None => {
            return Ok((
                1,
                format!(
                    "the memcheck run took more than {MEMCHECK_TIMEOUT:?}
{err}"
                ),
            ));
        }
    };
    Ok((errors, err))
}

/// The programs of one shard: every `shards`-th, so that the shards are about as big.
/// The one program among `included` whose build alone fails with an error that points into no
/// program: halves are built until one program is left, which is then built alone to confirm.
fn culprit(
    included: &[usize],
    write_shards: &mut impl FnMut(&[usize]) -> Result<(), String>,
    dir: &Path,
) -> Result<Option<usize>, String> {
    let mut fails_unattributed = |programs: &[usize]| -> Result<bool, String> {
        write_shards(programs)?;
        let (errors, _) = build(dir)?;
        Ok(errors.iter().any(|error| error.program.is_none()))
    };
    let mut suspects = included.to_vec();
    while suspects.len() > 1 {
        let (first, second) = suspects.split_at(suspects.len() / 2);
        suspects = if fails_unattributed(first)? { first.to_vec() } else { second.to_vec() };
    }
    match suspects.first() {
        Some(&only) if fails_unattributed(&[only])? => Ok(Some(only)),
        _ => Ok(None),
    }
}

fn shard_of(included: &[usize], shard: usize, shards: usize) -> Vec<usize> {
    included.iter().copied().skip(shard).step_by(shards).collect()
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|error| format!("cannot write {}: {error}", path.display()))
}

fn remove_executables(bins: &[String]) {
    let debug = workspace().join("target").join("fuzz-target").join("debug");
    for bin in bins {
        let _ = std::fs::remove_file(debug.join(bin));
        let prefixes = [format!("{bin}-"), format!("{}-", bin.replace('-', "_"))];
        for entry in std::fs::read_dir(debug.join("deps")).into_iter().flatten().flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            if prefixes.iter().any(|prefix| file.starts_with(prefix.as_str())) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Programs in one build of a long run: such a build compiles the proc macros optimized.
/// Expanding them is about a quarter of a build's time when they are not (`-Z time-passes`:
/// `macro_expand_crate` 20 s of 70 s for 120 programs; 8.6 s of 53 s optimized); optimizing
/// them costs about two minutes once (syn and the macro crates in release, kept in the shared
/// target directory), which only a long run wins back.
const LONG_RUN_BUILD: usize = 1000;

/// The generated package's manifest; `optimized_macros` for a long run's builds.
fn manifest(package: &str, bins: &[String], optimized_macros: bool) -> String {
    let build_override = if optimized_macros { "\n[profile.dev.build-override]\nopt-level = 3\n" } else { "" };
    let root = workspace();
    let mut bin_targets = String::new();
    for (shard, bin) in bins.iter().enumerate() {
        writeln!(bin_targets, "[[bin]]\nname = \"{bin}\"\npath = \"src/bin/shard{shard}.rs\"\n").unwrap();
    }
    format!(
        r#"[package]
name = "{package}"
version = "0.0.0"
edition = "2024"
publish = false
autobins = false

{bin_targets}
[dependencies]
lowering = {{ path = "{runtime}" }}
lowering-tests = {{ path = "{tests}" }}
async-trait = "0.1"

# Not a member of the lowering workspace.
[workspace]

[profile.dev]
debug = false
incremental = false
{build_override}"#,
        runtime = root.join("runtime").display(),
        tests = root.join("tests").display(),
    )
}

/// A program under both lowerings, its comparison, and (`memcheck`) its classic variant alone.
fn program_file(program: &Program, memcheck: bool) -> String {
    let (classic, runtime) = (print::call(program, "classic", "program"), print::call(program, "runtime", "program"));
    // A program that stores past the call is handed the caller's vectors (`sinks`).
    let (compare, exercise) = if stores(program) {
        (
            format!("compare_with_sinks_at_every_suspension(|sinks| Box::pin({classic}), |sinks| Box::pin({runtime}))"),
            format!("exercise_with_sinks(|sinks| Box::pin({classic}))"),
        )
    } else {
        (format!("compare_at_every_suspension(|| {classic}, || {runtime})"), format!("exercise(|| {classic})"))
    };
    let exercise = if memcheck {
        format!("\n/// The classic variant alone, for memcheck.\npub fn memcheck() -> usize {{\n    {exercise}\n}}\n")
    } else {
        String::new()
    };
    // A program whose macro awaits in its own body is lowered classic with the hint that says so.
    let both = if print::awaits_in_a_macro(program) {
        let function = print::function(program, "program");
        format!(
            "#[lowering::lowering(classic, awaits(awaited))]\n#[allow(dead_code, unused_imports)]\npub mod classic {{\n    \
             use super::*;\n{function}}}\n#[lowering::lowering(runtime)]\n#[allow(dead_code, unused_imports)]\npub mod \
             runtime {{\n    use super::*;\n{function}}}\n"
        )
    } else {
        format!("lowering_tests::differential! {{\n{}}}\n", print::function(program, "program"))
    };
    format!(
        "use lowering_tests::fuzz::*;\nuse lowering_tests::*;\n\n{}{both}\n\
         pub fn compare(index: usize) -> String {{\n    report(index, {compare})\n}}\n{exercise}",
        print::macros(program),
    )
}

/// The program alone under the runtime lowering: compiled, never run.
fn twin_file(program: &Program) -> String {
    format!(
        "use lowering_tests::fuzz::*;\nuse lowering_tests::*;\n\n{}#[lowering::lowering(runtime)]\npub mod runtime {{\n    \
         use super::*;\n{}}}\n",
        print::macros(program),
        print::function(program, "program"),
    )
}

/// A shard's executable: runs its programs from the one the argument names, or (`--memcheck
/// i j ..`) the classic variant of the programs `memcheck` lists (batch indices).
fn main_file(included: &[usize], twins: bool, memcheck: &[usize]) -> String {
    let mut out = String::from("#![allow(warnings)]\n\n");
    for index in included {
        writeln!(out, "#[path = \"../p{index:05}.rs\"]\nmod p{index:05};").unwrap();
        if twins {
            writeln!(out, "#[path = \"../p{index:05}_runtime.rs\"]\nmod p{index:05}_runtime;").unwrap();
        }
    }
    out.push_str("\nconst PROGRAMS: &[fn(usize) -> String] = &[\n");
    for index in included {
        writeln!(out, "    p{index:05}::compare,").unwrap();
    }
    out.push_str("];\n\nconst MEMCHECK: &[(usize, fn() -> usize)] = &[\n");
    for index in memcheck {
        writeln!(out, "    ({index}, p{index:05}::memcheck),").unwrap();
    }
    out.push_str(
        "];\n\n/// Runs the programs from the one the argument names (after a crash, the next one); or\n\
         /// `--memcheck i j ..`: those programs' classic variant alone (under valgrind).\n\
         fn main() {\n    \
         let args: Vec<String> = std::env::args().skip(1).collect();\n    \
         if args.first().is_some_and(|arg| arg == \"--memcheck\") {\n        \
         for arg in &args[1..] {\n            \
         let index: usize = arg.parse().expect(\"a batch index\");\n            \
         let (_, exercise) = MEMCHECK.iter().find(|(checked, _)| *checked == index).expect(\"a memchecked program\");\n            \
         println!(\"memcheck {index} {}\", exercise());\n        }\n        \
         return;\n    }\n    \
         let from: usize = args.first().map_or(0, |arg| arg.parse().expect(\"a program index\"));\n    \
         for (index, compare) in PROGRAMS.iter().enumerate().skip(from) {\n        \
         println!(\"{}\", compare(index));\n    }\n}\n",
    );
    out
}

struct BuildError {
    /// The program (and whether in its runtime twin) the error points into.
    program: Option<(usize, bool)>,
    rendered: String,
}

/// Build the package; the errors rustc reported, each with the program it points into, and
/// the executables built, by name.
fn build(dir: &Path) -> Result<(Vec<BuildError>, BTreeMap<String, PathBuf>), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["build", "--offline", "--quiet", "--message-format=json"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", workspace().join("target").join("fuzz-target"))
        .stdin(Stdio::null())
        .output()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    let mut errors = Vec::new();
    let mut executables = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if let (Some(name), Some(executable)) = (message["target"]["name"].as_str(), message["executable"].as_str()) {
            executables.insert(name.to_owned(), PathBuf::from(executable));
        }
        if message["reason"] != "compiler-message" {
            continue;
        }
        let mut files = Vec::new();
        files_of(&message["message"], &mut files);
        let program = files.iter().find_map(|file| program_of(file));
        let rendered = message["message"]["rendered"].as_str().unwrap_or_default().to_owned();
        match message["message"]["level"].as_str() {
            Some("error") => errors.push(BuildError { program, rendered }),
            // An error of monomorphization (a `const` assertion in the runtime crate) points
            // into the runtime crate, and so does rustc's note of its own on what it was
            // instantiating: kept with the error (`culprit` finds its program).
            Some("note") if rendered.contains("encountered while instantiating") => {
                if let Some(last) = errors.last_mut() {
                    last.program = last.program.or(program);
                    last.rendered.push_str(&rendered);
                }
            }
            _ => {}
        }
    }
    if errors.is_empty() && !output.status.success() {
        return Err(format!("cargo build failed in {}:\n{}", dir.display(), String::from_utf8_lossy(&output.stderr)));
    }
    Ok((errors, executables))
}

/// Every file a diagnostic's spans (and the macro invocations they come from) point into.
fn files_of(diagnostic: &serde_json::Value, out: &mut Vec<String>) {
    fn span_files(span: &serde_json::Value, out: &mut Vec<String>) {
        if let Some(file) = span["file_name"].as_str() {
            out.push(file.to_owned());
        }
        if !span["expansion"].is_null() {
            span_files(&span["expansion"]["span"], out);
        }
    }
    for span in diagnostic["spans"].as_array().into_iter().flatten() {
        span_files(span, out);
    }
    for child in diagnostic["children"].as_array().into_iter().flatten() {
        files_of(child, out);
    }
}

/// `src/bin/../p00012.rs` is program 12; `src/bin/../p00012_runtime.rs` its twin.
fn program_of(file: &str) -> Option<(usize, bool)> {
    let name = Path::new(file).file_name()?.to_str()?.strip_suffix(".rs")?.strip_prefix('p')?;
    let (digits, twin) = match name.strip_suffix("_runtime") {
        Some(digits) => (digits, true),
        None => (name, false),
    };
    Some((digits.parse().ok()?, twin))
}

/// Run the harness over `count` programs, starting again after any that hangs or crashes.
fn execute(binary: &Path, count: usize) -> Result<Vec<Verdict>, String> {
    let mut verdicts = Vec::with_capacity(count);
    while verdicts.len() < count {
        let mut child = Command::new(binary)
            .arg(verdicts.len().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| format!("cannot run {}: {error}", binary.display()))?;
        let stdout = child.stdout.take().expect("piped");
        let mut stderr = child.stderr.take().expect("piped");
        // Read as it comes, so that a full pipe never stalls the harness.
        let errors = std::thread::spawn(move || {
            let mut errors = String::new();
            let _ = stderr.read_to_string(&mut errors);
            errors
        });
        let (lines, received) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let hung = loop {
            match received.recv_timeout(PROGRAM_TIMEOUT) {
                Ok(line) => verdicts.push(verdict_of(&line)?),
                Err(mpsc::RecvTimeoutError::Disconnected) => break false,
                Err(mpsc::RecvTimeoutError::Timeout) => break true,
            }
        };
        if hung {
            // Our own child, by its handle.
            let _ = child.kill();
        }
        let status = child.wait().map_err(|error| format!("cannot wait for the harness: {error}"))?;
        let errors = errors.join().unwrap_or_default();
        if verdicts.len() < count {
            let what = if hung { format!("hung for {PROGRAM_TIMEOUT:?}") } else { format!("died ({status})") };
            verdicts.push(Verdict::Crash(format!("{what}\n{errors}")));
        }
    }
    Ok(verdicts)
}

fn verdict_of(line: &str) -> Result<Verdict, String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|error| format!("bad harness line {line:?}: {error}"))?;
    Ok(match value["status"].as_str() {
        Some("ok") => Verdict::Same {
            outcome: value["outcome"].as_str().unwrap_or_default().to_owned(),
            suspensions: value["suspensions"].as_u64().unwrap_or_default() as usize,
        },
        _ => Verdict::Mismatch(format!(
            "stopped at {}\nclassic: {}\nruntime: {}",
            value["stop"].as_str().unwrap_or_default(),
            value["classic"].as_str().unwrap_or_default(),
            value["runtime"].as_str().unwrap_or_default(),
        )),
    })
}

#[test]
fn only_the_documented_refusals_count_as_refused() {
    let refusal = "error: classic lowering: a struct update from `v3`, whose fields this function also moves one by one\n  --> src/bin/../p00000.rs:15:59\n";
    let other = "error[E0382]: use of moved value: `v18`\n  --> src/bin/../p00001.rs:20:15\n";
    let unknown = "error: classic lowering: more than 6 futures in `join!`\n";
    assert!(only_documented_refusals(refusal));
    assert!(!only_documented_refusals(&format!("{refusal}{other}")), "a rustc error beside the refusal is a failure");
    assert!(!only_documented_refusals(other));
    assert!(!only_documented_refusals(unknown), "a refusal the generator should not reach is a failure");
    assert!(!only_documented_refusals(""), "no error at all is not a refusal");
}

//! `inspect crate SOURCE`: every `async fn` of another crate lowered classic, function by
//! function, and the crate's own tests run with them. The crate is copied (`source`), its
//! functions found (`functions`, under `cfg`), each configuration written into the copy
//! (`annotate`), built and tested under bounds (`cargo`, `libtest`), and reported (`results`,
//! `report`, `page`).
//!
//! Phases: the reference (sources unchanged), every function `runtime`, every function
//! `classic`; where that fails, the functions rustc's errors fall in are set aside until the
//! rest builds, each set-aside function is tried alone (the rest `runtime`), and the accepted
//! set is built together (a function failing only in company is refused with that error); last,
//! the tests with every accepted function classic; with `--memcheck`, those test binaries again
//! under valgrind's memcheck (`memcheck`).

mod annotate;
mod cargo;
mod cfg;
mod classic;
pub mod figures;
mod functions;
pub(crate) mod hints;
pub(crate) mod libtest;
mod macro_hints;
mod manifest;
pub mod memcheck;
pub(crate) mod report;
pub mod results;
mod source;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use cargo::{Built, CompileError, Package};
use figures::Figures;
use functions::{Function, Placement};
use memcheck::Memcheck;
use regex::Regex;
use results::{Phase, Results, Tests, Verdict};

use crate::builds;
use crate::error::{Context, Error, Result};

pub const USAGE: &str = "\
usage: inspect crate SOURCE [--only REGEX] [--features LIST] [--no-default-features]
                     [--placement outer|inner] [--build-timeout SECS] [--test-timeout SECS]
                     [--dir DIR] [--keep] [--no-figures] [--list] [--json]
                     [--memcheck] [--memcheck-timeout SECS] [--no-hints] [--lowering DIR]

SOURCE is a crate's directory or Cargo.toml (a package, or a member of a workspace), or
NAME@VERSION from crates.io. On a copy, never the original, puts #[::lowering::lowering(MODE)]
on every async fn with a body that the build compiles (not tests, examples, benches, entry
points, macro bodies or cfg-off code), then: builds and tests the unchanged crate (the
reference), every fn runtime, every fn classic, and where that fails finds, fn by fn, which
the classic lowering refuses and why (rustc's first error), giving a fn the hints rustc's
errors call for (E0507 on a local or a field of one: moves(x), moves(x.f); E0382, a use of
a value a method call moved: moves(x); E0597: keeps(y); E0728 in a macro m's expansion or
tokens: awaits(m); a return inside m where move_next's Poll was expected: returns(m))
while new ones help; last, runs the crate's tests (unit, integration, doc) with every accepted
fn classic, and inspects the library's release
build twice (the accepted fns classic, then every fn runtime) for each accepted fn's figures
side by side. The last line is
`crate NAME: A/N async fns lowered classic (H with hints); tests P/T pass with them (runtime
baseline P0/T0)`;
the exit status is 0 only when A == N and P == T (and, with --memcheck, every test binary
ran clean under memcheck).

  --only REGEX          only the fns whose `path::name file:line` matches
  --features LIST       features of the crate to enable, as cargo takes them
  --no-default-features
  --placement outer|inner  the attribute before the fn's other attributes (default) or
                        after them, just before its signature
  --build-timeout SECS  per build (default 900)
  --test-timeout SECS   per test binary (default 300); the doc tests, which build as
                        they run, get a build's time and a test's
  --dir DIR             the work directory: copies, one target dir for every phase, results
                        (default <target>/lowering-crate, which `inspect --html` reads)
  --keep                leave the annotated copy (accepted fns classic, the rest runtime)
  --no-figures          skip the figures (two release builds of the library)
  --memcheck            run the classic build's test binaries (unit, integration; not the
                        doc tests) again under valgrind's memcheck, one test thread each,
                        and report the errors per binary (valgrind is installed with apt-get
                        as root when missing; without it, memcheck is `not run`)
  --memcheck-timeout SECS  per test binary under memcheck (default 1800)
  --no-tests            build the library and binaries only and run no test: which fns the
                        classic lowering accepts (also what the command falls back to when
                        the crate's own tests do not build or fail unchanged)
  --no-hints            give no hints: a fn rustc refuses with E0507, E0382, E0597, E0728 or
                        a return inside a macro stays refused
  --lowering DIR        the lab's runtime/ directory the copy depends on (default: this
                        checkout's; `inspect crater` gives a snapshot of one commit)
  --list                list the fns that would be lowered, and stop
  --json                print the results as JSON (as written to results.json)";

#[derive(Debug, Clone, PartialEq)]
struct Options {
    source: Option<String>,
    only: Option<String>,
    feature_args: Vec<String>,
    placement: Placement,
    build_timeout: Duration,
    test_timeout: Duration,
    dir: Option<PathBuf>,
    keep: bool,
    figures: bool,
    list: bool,
    json: bool,
    memcheck: bool,
    memcheck_timeout: Duration,
    /// `--no-tests`: build the library and binaries only, and run no test.
    no_tests: bool,
    /// Hints where rustc's errors call for them (off: `--no-hints`).
    hints: bool,
    /// `--lowering DIR`: the `lowering` package the copy depends on.
    lowering: Option<PathBuf>,
    help: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            source: None,
            only: None,
            feature_args: Vec::new(),
            placement: Placement::Outer,
            build_timeout: Duration::from_secs(900),
            test_timeout: Duration::from_secs(300),
            dir: None,
            keep: false,
            figures: true,
            list: false,
            json: false,
            memcheck: false,
            no_tests: false,
            memcheck_timeout: Duration::from_secs(1800),
            hints: true,
            lowering: None,
            help: false,
        }
    }
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = || {
            inline.clone().or_else(|| args.next()).ok_or_else(|| Error::new(format!("{flag} needs a value\n\n{USAGE}")))
        };
        let seconds = |text: String, flag: &str| -> Result<Duration> {
            match text.parse::<u64>() {
                Ok(secs) if secs > 0 => Ok(Duration::from_secs(secs)),
                _ => Err(Error::new(format!("{flag} takes a positive number of seconds, not {text:?}"))),
            }
        };
        match flag.as_str() {
            "--only" => options.only = Some(value()?),
            "--features" => {
                let features = value()?;
                options.feature_args.extend(["--features".to_owned(), features]);
            }
            "--no-default-features" => options.feature_args.push(flag.clone()),
            "--placement" => {
                options.placement = match value()?.as_str() {
                    "outer" => Placement::Outer,
                    "inner" => Placement::Inner,
                    other => return Err(Error::new(format!("--placement is outer or inner, not {other:?}"))),
                }
            }
            "--build-timeout" => options.build_timeout = seconds(value()?, "--build-timeout")?,
            "--test-timeout" => options.test_timeout = seconds(value()?, "--test-timeout")?,
            "--dir" => options.dir = Some(PathBuf::from(value()?)),
            "--keep" => options.keep = true,
            "--no-figures" => options.figures = false,
            "--list" => options.list = true,
            "--json" => options.json = true,
            "--memcheck" => options.memcheck = true,
            "--no-tests" => options.no_tests = true,
            "--no-hints" => options.hints = false,
            "--lowering" => options.lowering = Some(PathBuf::from(value()?)),
            "--memcheck-timeout" => options.memcheck_timeout = seconds(value()?, "--memcheck-timeout")?,
            "-h" | "--help" => options.help = true,
            other if other.starts_with('-') => {
                return Err(Error::new(format!("unknown option {other} for inspect crate\n\n{USAGE}")));
            }
            _ if options.source.is_none() => options.source = Some(arg),
            _ => return Err(Error::new(format!("one SOURCE only, and {arg:?} is a second\n\n{USAGE}"))),
        }
    }
    if !options.help && options.source.is_none() {
        return Err(Error::new(format!("inspect crate needs a SOURCE\n\n{USAGE}")));
    }
    Ok(options)
}

pub fn main(args: impl IntoIterator<Item = String>) -> Result<ExitCode> {
    let options = parse(args)?;
    if options.help {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let only = options.only.as_deref().map(Regex::new).transpose().context(|| "--only is not a regular expression")?;
    let work = match &options.dir {
        Some(dir) => dir.clone(),
        None => lab_target_dir()?.join(results::DIR),
    };
    let source = options.source.clone().unwrap_or_default();
    let original = source::resolve(&source, &work)?;
    let runtime = source::lowering_dir(options.lowering.as_deref())?;
    let copy = source::copy(&original, &work, &runtime)?;
    let package = Package {
        name: original.name.clone(),
        version: original.version.clone(),
        manifest: copy.manifest.clone(),
        dir: copy.package_dir.clone(),
        workspace_root: copy.root.clone(),
        target_dir: work.join("target"),
        feature_args: options.feature_args.clone(),
        has_lib: copy.has_lib,
    };
    let (features, dev_dependencies_dropped) = resolve_features(&package)?;
    let cfg = cfg::Cfg::host(&features)?;
    let pristine_package = copy.pristine.join(copy.package_dir.strip_prefix(&copy.root).unwrap_or(Path::new("")));
    let mut found = functions::find(&pristine_package, &copy.roots, &cfg, options.placement)?;
    if let Some(only) = &only {
        found.retain(|function| only.is_match(&function.key()));
    }
    if options.list {
        for function in &found {
            println!("{}", function.key());
        }
        println!("{} async fns would be lowered in {} {}", found.len(), original.name, original.version);
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("crate: {} {}: {} async fns, work in {}", original.name, original.version, found.len(), work.display());
    // Before the builds: a memcheck that cannot run is said at once, not after them.
    let valgrind = options.memcheck.then(memcheck::valgrind);
    if let Some(Err(why)) = &valgrind {
        eprintln!("crate: [memcheck] {}: {why}", memcheck::VALGRIND_MISSING);
    }
    let mut run = Run {
        options: &options,
        package: &package,
        pristine: pristine_package,
        functions: &found,
        figures_dir: work.join("figures").join(format!("{}-{}", original.name, original.version)),
        memcheck_dir: work.join("memcheck").join(format!("{}-{}", original.name, original.version)),
        valgrind,
        phases: Vec::new(),
        tests: Vec::new(),
        figures: Figures::default(),
        memcheck: None,
        tests_not_run: options.no_tests.then(|| "--no-tests".to_owned()).or(dev_dependencies_dropped),
        hints: BTreeMap::new(),
        unhinted_errors: BTreeMap::new(),
    };
    let verdicts = run.phases()?;
    source::keep_lock(&original, &copy, &work)?;
    let results = Results {
        schema: results::SCHEMA,
        name: original.name.clone(),
        version: original.version.clone(),
        edition: original.edition.clone(),
        source,
        feature_args: options.feature_args.clone(),
        functions: verdicts,
        tests: run.tests,
        phases: run.phases,
        figures: run.figures,
        memcheck: run.memcheck,
        no_tests: options.no_tests,
        hints_enabled: options.hints,
    };
    results.write(&work.join("results").join(format!("{}-{}.json", original.name, original.version)))?;
    results.write(&work.join("results.json"))?;
    if options.keep {
        eprintln!("crate: the annotated copy is kept in {}", copy.root.display());
    } else {
        for dir in [&copy.root, &copy.pristine] {
            std::fs::remove_dir_all(dir).context(|| format!("removing {}", dir.display()))?;
        }
    }
    if options.json {
        println!("{}", serde_json::to_string_pretty(&results).context(|| "serialising the results")?);
    } else {
        print!("{}", report::terminal(&results));
    }
    Ok(if results.success() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Whether `args` are options `inspect crate` takes: the crater checks the options it passes
/// to every crate once, before any crate runs.
pub fn check_options(args: &[String]) -> Result<()> {
    parse(std::iter::once("placeholder@0.0.0".to_owned()).chain(args.iter().cloned())).map(|_| ())
}

/// The lab's target directory, as cargo has it.
pub fn lab_target_dir() -> Result<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("Cargo.toml");
    let metadata = cargo_metadata::MetadataCommand::new()
        .manifest_path(manifest)
        .no_deps()
        .exec()
        .context(|| "reading the lab's workspace")?;
    Ok(metadata.target_directory.into_std_path_buf())
}

/// The package's features (`enabled_features`), and why its tests cannot run if its development
/// dependencies had to be dropped for cargo to resolve it at all: a published crate whose
/// dev-dependency names a version the registry no longer has (hyper 1.13.0's
/// `pretty_env_logger = "^0.6"`) still has a library to lower, and its acceptance is measured
/// without its tests rather than not at all.
fn resolve_features(package: &Package) -> Result<(Vec<String>, Option<String>)> {
    let error = match enabled_features(package) {
        Ok(features) => return Ok((features, None)),
        Err(error) => error,
    };
    let text =
        std::fs::read_to_string(&package.manifest).context(|| format!("reading {}", package.manifest.display()))?;
    let Some(without) = manifest::without_dev_dependencies(&text) else { return Err(error) };
    std::fs::write(&package.manifest, without).context(|| format!("writing {}", package.manifest.display()))?;
    match enabled_features(package) {
        Ok(features) => {
            let why = cargo_error_line(&error.to_string());
            eprintln!("crate: its dev-dependencies do not resolve ({why}): built without them, tests not run");
            Ok((features, Some(format!("its dev-dependencies do not resolve: {why}"))))
        }
        // Not the development dependencies: the first error is the one to say.
        Err(_) => {
            std::fs::write(&package.manifest, text).context(|| format!("restoring {}", package.manifest.display()))?;
            Err(error)
        }
    }
}

/// The line of a failed `cargo metadata`'s output that says what failed (`error: ...`), without
/// cargo's progress lines and hints.
fn cargo_error_line(output: &str) -> String {
    let line = output.lines().map(str::trim).find_map(|line| line.strip_prefix("error: "));
    line.unwrap_or_else(|| output.lines().next().unwrap_or_default()).trim().to_owned()
}

/// The package's features under the feature options (cargo resolves them; this also fetches
/// its dependencies once).
fn enabled_features(package: &Package) -> Result<Vec<String>> {
    let metadata = cargo_metadata::MetadataCommand::new()
        .manifest_path(&package.manifest)
        .other_options(package.feature_args.clone())
        .exec()
        .context(|| format!("resolving the dependencies of {}", package.name))?;
    let id = metadata
        .packages
        .iter()
        .find(|p| p.manifest_path.as_std_path() == package.manifest)
        .map(|p| p.id.clone())
        .context(|| "the copy's package is not in its metadata")?;
    let resolve = metadata.resolve.as_ref().context(|| "cargo metadata resolved nothing")?;
    let node = resolve.nodes.iter().find(|node| node.id == id).context(|| "the package is not in cargo's resolve")?;
    Ok(node.features.iter().map(|feature| feature.to_string()).collect())
}

/// One run's state: the phases' times and the tests of each configuration.
struct Run<'a> {
    options: &'a Options,
    package: &'a Package,
    pristine: PathBuf,
    functions: &'a [Function],
    /// Where the figures' release builds go (their dependencies built once per crate).
    figures_dir: PathBuf,
    /// Where valgrind's XML output goes, a file per test binary.
    memcheck_dir: PathBuf,
    /// `--memcheck`: valgrind's version, or why there is none.
    valgrind: Option<std::result::Result<String, String>>,
    phases: Vec<Phase>,
    tests: Vec<Tests>,
    figures: Figures,
    memcheck: Option<Memcheck>,
    /// Why no test runs (`--no-tests`, or the crate's own tests do not build or fail
    /// unchanged): the builds are then of the library and binaries only.
    tests_not_run: Option<String>,
    /// The hints given to each function, by index (`classic`).
    hints: BTreeMap<usize, hints::Given>,
    /// Each hinted function's first error before it had hints.
    unhinted_errors: BTreeMap<usize, CompileError>,
}

impl Run<'_> {
    fn phases(&mut self) -> Result<Vec<Verdict>> {
        let everyone: BTreeSet<usize> = (0..self.functions.len()).collect();
        let started = Instant::now();
        let reference = self.reference()?;
        self.phase("reference", started, 1);
        self.tests.push(reference);

        let started = Instant::now();
        let runtime_binaries = self.build_or_fail(Some(&BTreeSet::new()), "runtime")?;
        let runtime = self.test(&runtime_binaries, "runtime")?;
        self.phase("runtime", started, 1);
        let same = runtime.passed() == self.tests[0].passed() && runtime.total() == self.tests[0].total();
        if !same {
            eprintln!("crate: warning: every fn runtime, the tests differ from the reference (see the report)");
        }
        self.tests.push(runtime.clone());

        let started = Instant::now();
        let (verdicts, binaries, builds) = self.classic(&everyone)?;
        self.phase("classic", started, builds);
        let started = Instant::now();
        let classic = match &binaries {
            Some(binaries) => self.test(binaries, "classic")?,
            // Nothing lowered classic: its build would be the runtime build, and nothing was run
            // with classic code.
            None => Tests {
                configuration: "classic".to_owned(),
                binaries: Vec::new(),
                not_run: Some(self.tests_not_run.clone().unwrap_or_else(|| "no async fn lowered classic".to_owned())),
            },
        };
        self.phase("tests", started, 0);
        self.tests.push(classic);
        if let Some(valgrind) = self.valgrind.clone() {
            // The binaries the classic tests ran; with no fn to lower, the runtime build's
            // (the last one built: the target directory still holds them).
            let (binaries, configuration) = match binaries {
                Some(binaries) => (binaries, "classic"),
                None => (runtime_binaries, "runtime"),
            };
            let started = Instant::now();
            let timeout = self.options.memcheck_timeout;
            let memcheck = match valgrind {
                // The builds were of the library and binaries: there is no test binary to run.
                _ if self.tests_not_run.is_some() => Memcheck::tests_not_run(
                    format!("tests not run: {}", self.tests_not_run.as_deref().unwrap_or_default()),
                    timeout,
                ),
                Ok(version) => {
                    memcheck::run(self.package, &binaries, &self.memcheck_dir, timeout, version, configuration)?
                }
                Err(why) => Memcheck::not_run(why, timeout),
            };
            eprintln!("crate: [memcheck] {}", memcheck.line());
            self.memcheck = Some(memcheck);
            self.phase("memcheck", started, 0);
        }
        let accepted: BTreeSet<usize> =
            verdicts.iter().enumerate().filter(|(_, v)| v.refused.is_none()).map(|(i, _)| i).collect();
        if self.options.figures {
            let started = Instant::now();
            self.figures = self.figures(&accepted);
            if let Some(why) = &self.figures.missing {
                eprintln!("crate: [figures] {why}");
            }
            let builds = if self.figures.missing.is_none() { 2 } else { 0 };
            self.phase("figures", started, builds);
        } else {
            self.figures.missing = Some("not gathered: --no-figures".to_owned());
        }
        if self.options.keep {
            self.write(Some(&accepted))?;
        }
        Ok(verdicts)
    }

    /// The figures of the accepted fns (see `figures`), or why there are none.
    fn figures(&self, accepted: &BTreeSet<usize>) -> Figures {
        if !self.package.has_lib {
            return Figures {
                missing: Some("not gathered: the crate has no library".to_owned()),
                ..Figures::default()
            };
        }
        let mut package = match builds::locate(Some(&self.package.manifest), Some(&self.package.name)) {
            Ok(package) => package,
            Err(error) => return Figures { missing: Some(format!("not gathered: {error}")), ..Figures::default() },
        };
        package.inspect_dir = self.figures_dir.clone();
        package.feature_args = self.options.feature_args.clone();
        package.code_for_every_fn = true;
        let accepted: Vec<usize> = accepted.iter().copied().collect();
        let write = |classic: &[usize]| self.write(Some(&classic.iter().copied().collect()));
        figures::gather(&package, self.functions, &accepted, &write)
    }

    fn phase(&mut self, name: &str, started: Instant, builds: usize) {
        let seconds = started.elapsed().as_secs_f64();
        eprintln!("crate: [{name}] done in {seconds:.1} s");
        self.phases.push(Phase { name: name.to_owned(), seconds, builds });
    }

    /// Write a configuration: `None`, the sources unchanged; else the `classic` set classic
    /// (each with the hints it was given) and every other function runtime.
    fn write(&self, classic: Option<&BTreeSet<usize>>) -> Result<()> {
        let args: Vec<Option<String>> = (0..self.functions.len())
            .map(|i| {
                classic.map(|set| match self.hints.get(&i) {
                    _ if !set.contains(&i) => "runtime".to_owned(),
                    Some(given) => format!("classic{}", given.attribute_args()),
                    None => "classic".to_owned(),
                })
            })
            .collect();
        annotate::write(&self.pristine, &self.package.dir, self.functions, &args)
    }

    fn build(&self, classic: Option<&BTreeSet<usize>>, what: &str) -> Result<Built> {
        self.write(classic)?;
        eprintln!("crate: [{what}] building");
        self.package.build(self.options.build_timeout, what, self.tests_not_run.is_none())
    }

    /// The crate unchanged: its tests built and run, or, where they cannot run here (they do
    /// not build, or fail unchanged), the library and binaries built alone, the tests marked
    /// not run with the reason, and every later phase without tests: which fns the classic
    /// lowering accepts is still measured.
    fn reference(&mut self) -> Result<Tests> {
        if self.tests_not_run.is_none() {
            match self.build(None, "reference")? {
                Built::Ok(binaries) => {
                    let reference = self.test(&binaries, "reference")?;
                    let failing: Vec<String> = reference
                        .binaries
                        .iter()
                        .flat_map(|(binary, outcome)| {
                            let names = outcome.failed.iter().chain(&outcome.hung).chain(&outcome.not_run);
                            names.map(move |name| format!("{binary}: {name}"))
                        })
                        .collect();
                    if failing.is_empty() {
                        return Ok(reference);
                    }
                    eprintln!("crate: [reference] the crate's own tests fail unchanged:\n  {}", failing.join("\n  "));
                    self.tests_not_run = Some(format!(
                        "{} of the crate's own {} tests fail unchanged, first {}",
                        failing.len(),
                        reference.total(),
                        failing[0]
                    ));
                }
                Built::Timeout => {
                    self.tests_not_run =
                        Some(format!("the tests did not build within {:?}", self.options.build_timeout))
                }
                Built::Failed { errors, other } => {
                    let first =
                        errors.first().map_or(other, |e| format!("{} {}:{}: {}", e.code, e.file, e.line, e.message));
                    self.tests_not_run = Some(format!("the crate's tests do not build: {first}"));
                }
            }
            eprintln!(
                "crate: [reference] tests not run ({}); building the library and binaries alone",
                self.tests_not_run.as_deref().unwrap_or_default()
            );
        }
        self.build_or_fail(None, "reference")?;
        Ok(self.not_run("reference"))
    }

    /// A configuration's tests, not run (`tests_not_run` says why).
    fn not_run(&self, configuration: &str) -> Tests {
        Tests { configuration: configuration.to_owned(), binaries: Vec::new(), not_run: self.tests_not_run.clone() }
    }

    /// A build that must succeed (the reference, every fn runtime).
    fn build_or_fail(&self, classic: Option<&BTreeSet<usize>>, what: &str) -> Result<Vec<(String, PathBuf)>> {
        match self.build(classic, what)? {
            Built::Ok(binaries) => Ok(binaries),
            Built::Timeout => {
                Err(Error::new(format!("the {what} build did not end within {:?}", self.options.build_timeout)))
            }
            Built::Failed { errors, other } => {
                let first =
                    errors.first().map_or(other, |e| format!("{} {}:{}: {}", e.code, e.file, e.line, e.message));
                Err(Error::new(format!("the {what} build of {} fails: {first}", self.package.name)))
            }
        }
    }

    fn test(&self, binaries: &[(String, PathBuf)], configuration: &str) -> Result<Tests> {
        if self.tests_not_run.is_some() {
            return Ok(self.not_run(configuration));
        }
        let mut tests = Tests { configuration: configuration.to_owned(), binaries: Vec::new(), not_run: None };
        for (name, binary) in binaries {
            eprintln!("crate: [{configuration}] running {name}");
            tests.binaries.push((name.clone(), self.package.run_binary(binary, self.options.test_timeout)?));
        }
        eprintln!("crate: [{configuration}] running the doc tests");
        if let Some(doc) = self.package.run_doc_tests(self.options.build_timeout, self.options.test_timeout)? {
            tests.binaries.push(("doc".to_owned(), doc));
        }
        eprintln!("crate: [{configuration}] {}/{} tests pass", tests.passed(), tests.total());
        Ok(tests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Result<Options> {
        parse(text.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn options_parse_and_bad_ones_are_errors() {
        let options =
            args("triggered@0.1.3 --only ^net:: --features a,b --no-default-features --placement=inner --keep")
                .unwrap();
        assert_eq!(options.source.as_deref(), Some("triggered@0.1.3"));
        assert_eq!(options.only.as_deref(), Some("^net::"));
        assert_eq!(options.feature_args, ["--features", "a,b", "--no-default-features"]);
        assert_eq!(options.placement, Placement::Inner);
        assert!(options.keep && !options.list && !options.memcheck);
        assert_eq!(options.memcheck_timeout, Duration::from_secs(1800));
        let options = args("a --memcheck --memcheck-timeout=60").unwrap();
        assert!(options.memcheck);
        assert_eq!(options.memcheck_timeout, Duration::from_secs(60));
        for bad in [
            "",
            "a --bogus",
            "a b",
            "a --placement sideways",
            "a --build-timeout 0",
            "a --only",
            "a --memcheck-timeout 0",
        ] {
            assert!(args(bad).is_err(), "{bad:?} parsed");
        }
    }
}

//! `cargo run -p inspect`: what each lowering produced, function by function.
//!
//! ```text
//! inspect [--manifest-path PATH] [-p NAME] [--json | --html [PATH]] [--bench-summary PATH]
//! inspect [--manifest-path PATH] [-p NAME] --function NAME (--mir | --llvm-ir | --asm)
//! inspect check
//! inspect crosscheck
//! inspect callgraph [--depths LIST] [--timeout SECS] [--json] ...
//! inspect crate SOURCE [--only REGEX] [--features LIST] [--list] [--json] ...
//! inspect crater LIST [--dir DIR] [--again NAME] [CRATE OPTIONS] ...
//! ```
//!
//! Modules, one per source of facts: `builds` (cargo and builds), `records` and `dwarf` (the
//! object's records and type layouts), `mir`, `llvm_ir`, `symbols` (object symbols),
//! `attribute` (which function a symbol belongs to), `expansion`, `stacks`, `panics`; `facts`
//! gathers them once, `report` renders them as a table or as JSON, `html` as one page;
//! `bench` reads the benchmark's summary and `headline` picks the figures both open with;
//! `callgraph` measures compile cost against the call graph on generated crates (I9); `krate`
//! lowers another crate's async fns classic and runs its tests (`inspect crate`); `crater`
//! runs that over a list of crates into one table (`inspect crater`).

mod attribute;
mod bench;
mod builds;
mod callgraph;
mod crater;
mod crosscheck;
mod dwarf;
mod error;
mod expansion;
mod facts;
mod headline;
mod html;
mod instantiated;
mod krate;
mod llvm_ir;
mod mir;
mod panics;
mod process;
mod records;
mod replays;
mod report;
mod rustc_record;
mod stacks;
mod symbols;

use std::path::PathBuf;
use std::process::ExitCode;

use error::{Error, Result};
use report::Dump;
use workloads::Variant;

/// `inspect check` runs the behaviour checks, one of which counts leaks.
#[global_allocator]
static ALLOCATOR: lowering::alloc::CountingAllocator = lowering::alloc::CountingAllocator::system();

const USAGE: &str = "\
usage: inspect [--manifest-path PATH] [-p NAME] [--json | --html [PATH]] [--bench-summary PATH]
               [--callgraph-results PATH]
       inspect [--manifest-path PATH] [-p NAME] --function NAME (--mir | --llvm-ir | --asm)
       inspect check
       inspect [--manifest-path PATH] [-p NAME] crosscheck
       inspect callgraph [OPTIONS]    (inspect callgraph --help)
       inspect crate SOURCE [OPTIONS] (inspect crate --help)
       inspect crater LIST [OPTIONS]  (inspect crater --help)

Builds the package (default: workloads) and reports, for every #[lowering] function and
both variants: its lowering read from the artifact, MIR, LLVM IR, native code, state size,
expansion size; per variant: generated types, coroutine bodies, .text and rlib bytes; and
the live stacks and failure reports of the package's `lowering_stacks` example.

  --manifest-path PATH  the Cargo.toml of the package (or its workspace) to inspect
  -p, --package NAME    the package to inspect within that workspace
  --json                print everything as JSON (schema 1)
  --html [PATH]         write one self-contained page (default:
                        <target>/lowering-report/index.html)
  --bench-summary PATH  the benchmark summary to read (default: the most complete of this
                        commit in <target>/lowering-bench/, written by cargo bench -p lowering)
  --callgraph-results PATH  the call-graph results for the page (default:
                        <target>/lowering-callgraph/results.json, written by inspect callgraph)
  --function NAME       print the dump of the functions named NAME, both variants
  --mir, --llvm-ir, --asm   which dump
  check                 run the behaviour checks of both variants; exits 1 on a failure
  crosscheck            compare per-function IR counts with cargo-llvm-lines and native
                        bytes with cargo-bloat (install both with
                        inspect/scripts/install-peer-tools.sh)
  callgraph             build generated crates of growing call graphs under both lowerings
                        and report build time, binary size and the longest symbol (I9)
  crate                 lower every async fn of another crate classic, fn by fn, and run
                        its tests with them
  crater                `inspect crate` over a list of crates, resumable, one table";

#[derive(Debug, Default)]
struct Options {
    manifest_path: Option<PathBuf>,
    package: Option<String>,
    json: bool,
    /// `--html`, with its path if one was given.
    html: Option<Option<PathBuf>>,
    bench_summary: Option<PathBuf>,
    callgraph_results: Option<PathBuf>,
    function: Option<String>,
    dump: Option<Dump>,
    check: bool,
    crosscheck: bool,
    help: bool,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options> {
    let mut options = Options::default();
    let mut args = args.into_iter().peekable();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| Error::new(format!("{flag} needs a value\n\n{USAGE}")));
        match arg.as_str() {
            "check" => options.check = true,
            "crosscheck" => options.crosscheck = true,
            "--manifest-path" => options.manifest_path = Some(PathBuf::from(value("--manifest-path")?)),
            "-p" | "--package" => options.package = Some(value("--package")?),
            "--json" => options.json = true,
            "--bench-summary" => options.bench_summary = Some(PathBuf::from(value("--bench-summary")?)),
            "--callgraph-results" => {
                options.callgraph_results = Some(PathBuf::from(value("--callgraph-results")?));
            }
            "--html" => {
                // The path is optional: a following argument that is not a flag is it.
                let path = match args.peek() {
                    Some(next) if !next.starts_with('-') && next != "check" => args.next().map(PathBuf::from),
                    _ => None,
                };
                options.html = Some(path);
            }
            "--function" => options.function = Some(value("--function")?),
            "--mir" => options.dump = Some(Dump::Mir),
            "--llvm-ir" => options.dump = Some(Dump::LlvmIr),
            "--asm" => options.dump = Some(Dump::Asm),
            "-h" | "--help" => options.help = true,
            other => {
                if let Some(path) = other.strip_prefix("--manifest-path=") {
                    options.manifest_path = Some(PathBuf::from(path));
                } else if let Some(name) = other.strip_prefix("--package=") {
                    options.package = Some(name.to_owned());
                } else if let Some(path) = other.strip_prefix("--html=") {
                    options.html = Some(Some(PathBuf::from(path)));
                } else if let Some(path) = other.strip_prefix("--bench-summary=") {
                    options.bench_summary = Some(PathBuf::from(path));
                } else if let Some(path) = other.strip_prefix("--callgraph-results=") {
                    options.callgraph_results = Some(PathBuf::from(path));
                } else if let Some(name) = other.strip_prefix("--function=") {
                    options.function = Some(name.to_owned());
                } else {
                    return Err(Error::new(format!("unknown argument `{other}`\n\n{USAGE}")));
                }
            }
        }
    }
    match (&options.function, options.dump) {
        (Some(_), None) => {
            return Err(Error::new(format!("--function needs --mir, --llvm-ir or --asm\n\n{USAGE}")));
        }
        (None, Some(_)) => {
            return Err(Error::new(format!("--mir, --llvm-ir and --asm need --function NAME\n\n{USAGE}")));
        }
        _ => {}
    }
    if options.html.is_some() && (options.json || options.function.is_some() || options.check) {
        return Err(Error::new(format!(
            "--html writes a page; it goes with neither --json, --function nor check\n\n{USAGE}"
        )));
    }
    Ok(options)
}

fn run(options: Options) -> Result<ExitCode> {
    if options.help {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    if options.check {
        let results = workloads::checks::run(&Variant::BOTH);
        print!("{}", workloads::checks::table(&results));
        let failed = results.iter().any(|result| !result.passed());
        return Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS });
    }
    let package = builds::locate(options.manifest_path.as_deref(), options.package.as_deref())?;
    let (emitted, facts) = facts::gather(&package)?;
    if options.crosscheck {
        print!("{}", crosscheck::run(&package, &emitted, &facts)?);
        return Ok(ExitCode::SUCCESS);
    }
    // The inspect directory is `<target>/lowering-inspect`.
    let target_dir = package.inspect_dir.parent().unwrap_or(&package.inspect_dir).to_owned();
    let bench = || {
        // A summary named on the command line is read as it is; otherwise the most complete
        // of the benchmark's summaries.
        match &options.bench_summary {
            Some(path) => bench::load(path, &package.workspace_root),
            None => bench::choose(&bench::default_dir(&target_dir), &package.workspace_root),
        }
    };
    match (options.function, options.dump) {
        (Some(name), Some(kind)) => print!("{}", report::dump(&facts, &name, kind)?),
        _ if options.json => {
            let json =
                serde_json::to_string_pretty(&report::json(&facts)).map_err(|error| Error::new(error.to_string()))?;
            println!("{json}");
        }
        _ if options.html.is_some() => {
            let path = options.html.flatten().unwrap_or_else(|| html::default_path(&target_dir));
            let bench = bench();
            if bench.summary().is_none() {
                eprintln!("inspect: {}", bench.status());
            }
            let callgraph_path =
                options.callgraph_results.clone().unwrap_or_else(|| callgraph::results::default_path(&target_dir));
            let callgraph = callgraph::results::load(&callgraph_path, &package.workspace_root);
            if callgraph.results().is_none() {
                eprintln!("inspect: {}", callgraph.status());
            }
            let krate = krate::results::load(&krate::results::default_path(&target_dir));
            let crater = crater::results::load(&crater::results::default_path(&target_dir));
            let written = html::write(&facts, &bench, &callgraph, &krate, &crater, &package.workspace_root, &path)?;
            println!(
                "wrote {} ({} bytes in {} ms) and its functions' code in {} ({} bytes)",
                written.path.display(),
                written.bytes,
                written.elapsed.as_millis(),
                written.code_dir.display(),
                written.code_bytes
            );
        }
        _ => print!("{}\n{}", headline::terminal(&facts, &bench()), report::table(&facts)),
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    // Cargo runs `inspect` as rustc's wrapper during the inspected build (see `builds`).
    if let Some(code) = builds::run_as_rustc_wrapper() {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = if args.first().is_some_and(|first| first == "callgraph") {
        callgraph::main(args.into_iter().skip(1))
    } else if args.first().is_some_and(|first| first == "crate") {
        krate::main(args.into_iter().skip(1))
    } else if args.first().is_some_and(|first| first == "crater") {
        crater::main(args.into_iter().skip(1))
    } else {
        parse(args).and_then(run)
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("inspect: error: {error}");
            ExitCode::FAILURE
        }
    }
}

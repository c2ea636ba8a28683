//! `cargo run -p inspect`: what each lowering produced, function by function.
//!
//! ```text
//! inspect [--manifest-path PATH] [-p NAME] [--json]
//! inspect [--manifest-path PATH] [-p NAME] --function NAME (--mir | --llvm-ir | --asm)
//! inspect check
//! inspect crosscheck
//! ```
//!
//! Modules, one per source of facts: `builds` (cargo and builds), `records` and `dwarf` (the
//! object's records and type layouts), `mir`, `llvm_ir`, `symbols` (object symbols),
//! `attribute` (which function a symbol belongs to), `expansion`, `stacks`, `panics`; `facts`
//! gathers them once, `report` renders them as a table or as JSON.

mod attribute;
mod builds;
mod crosscheck;
mod dwarf;
mod error;
mod expansion;
mod facts;
mod instantiated;
mod llvm_ir;
mod mir;
mod panics;
mod records;
mod report;
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
usage: inspect [--manifest-path PATH] [-p NAME] [--json]
       inspect [--manifest-path PATH] [-p NAME] --function NAME (--mir | --llvm-ir | --asm)
       inspect check
       inspect [--manifest-path PATH] [-p NAME] crosscheck

Builds the package (default: workloads) and reports, for every #[lowering] function and
both variants: its lowering read from the artifact, MIR, LLVM IR, native code, state size,
expansion size; per variant: generated types, coroutine bodies, .text and rlib bytes; and
the live stacks and failure reports of the package's `lowering_stacks` example.

  --manifest-path PATH  the Cargo.toml of the package (or its workspace) to inspect
  -p, --package NAME    the package to inspect within that workspace
  --json                print everything as JSON (schema 1)
  --function NAME       print the dump of the functions named NAME, both variants
  --mir, --llvm-ir, --asm   which dump
  check                 run the behaviour checks of both variants; exits 1 on a failure
  crosscheck            compare per-function IR counts with cargo-llvm-lines (install it
                        with inspect/scripts/install-peer-tools.sh)";

#[derive(Debug, Default)]
struct Options {
    manifest_path: Option<PathBuf>,
    package: Option<String>,
    json: bool,
    function: Option<String>,
    dump: Option<Dump>,
    check: bool,
    crosscheck: bool,
    help: bool,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| Error::new(format!("{flag} needs a value\n\n{USAGE}")));
        match arg.as_str() {
            "check" => options.check = true,
            "crosscheck" => options.crosscheck = true,
            "--manifest-path" => options.manifest_path = Some(PathBuf::from(value("--manifest-path")?)),
            "-p" | "--package" => options.package = Some(value("--package")?),
            "--json" => options.json = true,
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
    let facts = facts::gather(&package)?;
    if options.crosscheck {
        print!("{}", crosscheck::run(&facts)?);
        return Ok(ExitCode::SUCCESS);
    }
    match (options.function, options.dump) {
        (Some(name), Some(kind)) => print!("{}", report::dump(&facts, &name, kind)?),
        _ if options.json => {
            let json =
                serde_json::to_string_pretty(&report::json(&facts)).map_err(|error| Error::new(error.to_string()))?;
            println!("{json}");
        }
        _ => print!("{}", report::table(&facts)),
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    // Cargo runs `inspect` as rustc's wrapper during the inspected build (see `builds`).
    if let Some(code) = builds::run_as_rustc_wrapper() {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    match parse(std::env::args().skip(1)).and_then(run) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("inspect: error: {error}");
            ExitCode::FAILURE
        }
    }
}

//! `cargo bench -p lowering`: every benchmark row (B1-B16), both lowerings, side by side in
//! one run.
//!
//! ```text
//! cargo bench -p lowering                      # the full run: checks, two rounds, callgrind
//! cargo bench -p lowering -- --quick           # every row once, few samples (a smoke test)
//! cargo bench -p lowering -- --quick --json    # the summary as JSON on stdout
//! cargo bench -p lowering -- --rows B3,B6      # only these rows
//! cargo bench -p lowering -- --rows A1,A1-8k   # only the proxy, end to end (`app_rows`)
//! cargo bench -p lowering -- --quick --out DIR # the files in DIR
//! ```
//!
//! The harness runs the behaviour checks first and refuses to time a variant that fails
//! one. Each row and variant is then measured in a process of its own (this executable,
//! started again with `--child`), in two rounds with the variant order reversed in the
//! second. Raw samples and the summary go to `target/lowering-bench/`: a full run's are
//! `raw.json` and `summary.json`; a quick or partial run's are named for it
//! (`summary-quick.json`, `summary-rows-B3-B6.json`), beside the full run's, never over it.

mod app_rows;
mod app_run;
mod callgrind;
mod counted;
mod drive;
mod harness;
mod measure;
mod proof;
mod report;
mod scenarios;

#[global_allocator]
static ALLOCATOR: lowering::alloc::CountingAllocator = lowering::alloc::CountingAllocator::system();

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = if args.iter().any(|arg| arg == "--app-child") {
        app_run::child(&args)
    } else if args.iter().any(|arg| arg == "--child") {
        harness::child(&args)
    } else {
        harness::run(&args)
    };
    if let Err(error) = result {
        eprintln!("error: {error}");
        std::process::exit(1);
    }
}

//! The differential fuzzer: random `async fn` bodies, compiled under both lowerings in one
//! generated crate, run, compared, and shrunk when they differ.
//!
//! - [`generate`] draws programs of the small typed language of [`ast`], valid by
//!   construction ([`check`] says what valid means);
//! - [`print`] writes them as Rust, [`batch`] builds a batch of them in one crate and runs it
//!   (some of them under valgrind's memcheck too);
//! - [`coverage`] says which of syn's expression, statement and pattern variants a run drew
//!   with an operand the classic lowering keeps in place;
//! - [`shrink`] proposes simpler programs; [`minimize`] (here) keeps the smallest that still
//!   fails the same way, building candidates a batch at a time.

pub mod ast;
pub mod batch;
pub mod check;
pub mod coverage;
pub mod generate;
pub mod print;
pub mod shrink;

use std::time::{Duration, Instant};

use ast::Program;
use batch::Verdict;

/// How many candidates one shrinking build compiles.
const CANDIDATES_PER_BUILD: usize = 96;

/// The smallest program found, from `program`, that still fails as `failure` does (a
/// mismatch, a compile error of the classic expansion alone, or a crash), and its verdict.
/// Stops after `budget`.
pub fn minimize(
    name: &str,
    program: &Program,
    failure: &Verdict,
    budget: Duration,
) -> Result<(Program, Verdict), String> {
    let start = Instant::now();
    let compile_error = matches!(failure, Verdict::CompileError(_));
    let mut current = (program.clone(), failure.clone());
    'rounds: while start.elapsed() < budget {
        let candidates = shrink::candidates(&current.0);
        for chunk in candidates.chunks(CANDIDATES_PER_BUILD) {
            if start.elapsed() >= budget {
                break 'rounds;
            }
            // A compile error counts only where the runtime lowering alone compiles.
            let verdicts = batch::run(name, chunk, compile_error)?;
            let found = chunk.iter().zip(verdicts).find(|(_, verdict)| same_kind(verdict, failure));
            if let Some((candidate, verdict)) = found {
                current = (candidate.clone(), verdict);
                continue 'rounds;
            }
        }
        break;
    }
    Ok(current)
}

fn same_kind(a: &Verdict, b: &Verdict) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// A minimal case as a test for `tests/fuzz_regressions.rs` (after the definitions of the
/// macros of the user's it invokes, if any: `macro_rules!` may be defined again further down).
pub fn regression_test(name: &str, program: &Program) -> String {
    let function = print::function(program, name);
    let (classic, runtime) = (print::call(program, "classic", name), print::call(program, "runtime", name));
    let indented: String =
        function.lines().map(|line| if line.is_empty() { "\n".to_owned() } else { format!("    {line}\n") }).collect();
    let check = if ast::stores(program) {
        format!("same_with_sinks_at_every_suspension(|sinks| Box::pin({classic}), |sinks| Box::pin({runtime}));")
    } else {
        format!("same_at_every_suspension(|| {classic}, || {runtime});")
    };
    format!("{}differential! {{\n{indented}}}\n\n#[test]\nfn {name}() {{\n    {check}\n}}\n", print::macros(program))
}

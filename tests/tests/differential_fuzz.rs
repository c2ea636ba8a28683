//! The differential fuzzer's run (see the README, "The differential fuzzer"): programs generated from a fixed seed,
//! built in one crate under both lowerings, run to the end and dropped at every suspension;
//! the outcome, the events and the panic message must match. A failure is shrunk to a
//! minimal case, printed as a test to paste into `tests/fuzz_regressions.rs`.
//!
//! `LOWERING_FUZZ_PROGRAMS` and `LOWERING_FUZZ_SEED` choose a longer or another run,
//! `LOWERING_FUZZ_ONLY=12,40` runs only those programs of it, `LOWERING_FUZZ_SHRINK` says
//! how many failures to shrink and `LOWERING_FUZZ_SHRINK_SECONDS` for how long each. Every
//! 50th program also runs under valgrind's memcheck (classic variant); the run ends with how
//! many drawn programs the checker rejected and which syn variants it drew with an operand
//! kept in place.

mod fuzz;

use std::io::Write as _;
use std::time::{Duration, Instant};

use fuzz::ast::{Block, Expr, Pat, Program, Stmt};
use fuzz::batch::{self, Verdict};

const DEFAULT_PROGRAMS: usize = 500;
const DEFAULT_SEED: u64 = 7;
/// Programs per generated crate: a longer run builds several.
const PROGRAMS_PER_BUILD: usize = 1000;
/// How long shrinking one failure may take, in seconds.
const SHRINK_SECONDS: u64 = 600;
/// Every this many programs (by index), one also runs under valgrind's memcheck.
const MEMCHECK_EVERY: usize = 50;

/// Programs that the classic lowering is known to get wrong, by seed and index: open bugs of
/// the lowering (the README's "Known bugs"), each with its minimal case ignored in
/// `fuzz_regressions.rs` (one whose expansion does not compile has none: it would stop the
/// file from compiling; `LOWERING_FUZZ_ONLY` reproduces it), or not reduced yet. A run
/// reports each as known, on every run, with its program; it does not shrink them or fail on
/// them. Any other failure fails the run, and a known one that
/// passes is said to be fixed (remove it here then).
const KNOWN_FAILURES: &[(u64, usize, &str)] = &[];

fn setting(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(value) => value.parse().unwrap_or_else(|_| panic!("{name}={value} is not a number")),
        Err(_) => default,
    }
}

#[test]
fn differential() {
    let count = setting("LOWERING_FUZZ_PROGRAMS", DEFAULT_PROGRAMS as u64) as usize;
    let seed = setting("LOWERING_FUZZ_SEED", DEFAULT_SEED);
    // How many failures to shrink (each builds its candidates, a batch at a time).
    let to_shrink = setting("LOWERING_FUZZ_SHRINK", 1) as usize;
    let budget = Duration::from_secs(setting("LOWERING_FUZZ_SHRINK_SECONDS", SHRINK_SECONDS));
    let only: Option<Vec<usize>> = std::env::var("LOWERING_FUZZ_ONLY").ok().map(|ids| {
        ids.split(',')
            .map(|id| id.trim().parse().unwrap_or_else(|_| panic!("LOWERING_FUZZ_ONLY: {id:?} is not a number")))
            .collect()
    });
    let start = Instant::now();

    let mut failures: Vec<(usize, Program, Verdict)> = Vec::new();
    let mut stats = Stats::default();
    let mut rejected = 0;
    let mut coverage = fuzz::coverage::Coverage::default();
    let (mut memchecked, mut memcheck_errors, mut memcheck_skipped) = (0, Vec::new(), None);
    for (build, first) in (0..count).step_by(PROGRAMS_PER_BUILD).enumerate() {
        let ids: Vec<usize> = (first..count.min(first + PROGRAMS_PER_BUILD))
            .filter(|id| only.as_ref().is_none_or(|only| only.contains(id)))
            .collect();
        if ids.is_empty() {
            continue;
        }
        let programs: Vec<Program> = ids
            .iter()
            .map(|&id| {
                let (program, misses) = fuzz::generate::program_and_rejections(seed, id);
                rejected += misses;
                coverage.add(&program);
                program
            })
            .collect();
        let memcheck: Vec<usize> = (0..ids.len()).filter(|&index| ids[index] % MEMCHECK_EVERY == 0).collect();
        let (verdicts, checked) = batch::run_with_memcheck(&format!("seed{seed}-{build}"), &programs, false, &memcheck)
            .unwrap_or_else(|error| panic!("{error}"));
        memchecked += checked.programs.len();
        memcheck_skipped = memcheck_skipped.or(checked.skipped);
        memcheck_errors.extend(
            checked
                .errors
                .into_iter()
                .map(|(index, errors, output)| (ids[index], programs[index].clone(), errors, output)),
        );
        for ((id, program), verdict) in ids.into_iter().zip(programs).zip(verdicts) {
            stats.count(&verdict);
            if verdict.is_failure() {
                failures.push((id, program, verdict));
            }
        }
        if count > PROGRAMS_PER_BUILD {
            // A long run's progress, so that a run stopped early still says how far it got.
            let done = count.min(first + PROGRAMS_PER_BUILD);
            let _ = writeln!(
                std::io::stderr(),
                "differential: {done} of {count} programs built and run, {} failing so far ({}), in {:.0?}",
                failures.len(),
                failures
                    .iter()
                    .map(|(id, _, verdict)| format!("{id}: {}", kind(verdict)))
                    .collect::<Vec<_>>()
                    .join(", "),
                start.elapsed()
            );
        }
    }
    classify_compile_errors(seed, &mut failures);
    let is_known =
        |id: usize| KNOWN_FAILURES.iter().find(|(known_seed, known_id, _)| *known_seed == seed && *known_id == id);
    let (known, failures): (Vec<_>, Vec<_>) = failures.into_iter().partition(|(id, _, _)| is_known(*id).is_some());
    for (id, program, verdict) in &known {
        let (_, _, what) = is_known(*id).expect("partitioned");
        println!(
            "\n--- program {id} (seed {seed}): KNOWN BUG ({what}): {}\n{}",
            headline(verdict),
            fuzz::print::function(program, "program")
        );
    }
    let ran = |id: usize| only.as_ref().is_none_or(|only| only.contains(&id)) && id < count;
    for (known_seed, id, what) in KNOWN_FAILURES {
        if *known_seed == seed && ran(*id) && !known.iter().any(|(failed, _, _)| failed == id) {
            println!(
                "\nprogram {id} (seed {seed}) passes now: the known bug \"{what}\" is fixed; remove it from KNOWN_FAILURES"
            );
        }
    }

    let invalid = failures.iter().filter(|(_, _, verdict)| matches!(verdict, Verdict::Invalid(_))).count();
    let mismatches = failures.len() - invalid;
    // Straight to the terminal: the summary shows in a plain `cargo test`, whose capture
    // only takes what `print!` and `eprint!` write.
    let _ = writeln!(
        std::io::stderr(),
        "differential: {count} programs, {mismatches} mismatches ({} more known, see KNOWN_FAILURES)",
        known.len()
    );
    let errors: usize = memcheck_errors.iter().map(|(_, _, errors, _)| errors).sum();
    let _ = match &memcheck_skipped {
        Some(why) => writeln!(std::io::stderr(), "memcheck: {why}"),
        None => writeln!(std::io::stderr(), "memcheck: {memchecked} programs, {errors} errors"),
    };
    let _ = writeln!(std::io::stderr(), "checker rejected: {rejected} drawn programs");
    let _ = writeln!(std::io::stderr(), "{}", coverage.line());
    for (id, program, errors, output) in &memcheck_errors {
        println!(
            "\n--- program {id} (seed {seed}): {errors} MEMCHECK ERRORS (classic variant)\n{output}\n{}",
            fuzz::print::function(program, "program")
        );
    }
    println!(
        "differential (seed {seed}): {} values, {} panics, {} dropped (never complete), {} suspensions, {} refused by a documented limit, {} invalid, in {:.0?}",
        stats.values,
        stats.panics,
        stats.dropped,
        stats.suspensions,
        stats.refused,
        invalid,
        start.elapsed()
    );
    for (id, program, verdict) in &failures {
        println!(
            "\n--- program {id} (seed {seed}): {}\n{}",
            headline(verdict),
            fuzz::print::function(program, "program")
        );
    }
    for (id, program, verdict) in failures.iter().take(to_shrink) {
        shrink_and_report(seed, *id, program, verdict, budget);
    }
    assert!(
        failures.is_empty(),
        "{mismatches} programs behave differently under the two lowerings, and the generator made {invalid} invalid \
         ones (seed {seed}; details above)"
    );
    assert!(
        memcheck_errors.is_empty(),
        "memcheck found {errors} errors in the classic variant of programs {:?} (seed {seed}; details above)",
        memcheck_errors.iter().map(|(id, ..)| id).collect::<Vec<_>>()
    );
}

#[derive(Default)]
struct Stats {
    values: usize,
    panics: usize,
    dropped: usize,
    suspensions: usize,
    /// Refused by a documented limit of the classic lowering (`Verdict::Refused`).
    refused: usize,
}

impl Stats {
    fn count(&mut self, verdict: &Verdict) {
        if let Verdict::Refused(_) = verdict {
            self.refused += 1;
        }
        if let Verdict::Same { outcome, suspensions } = verdict {
            self.suspensions += suspensions;
            match outcome.split('(').next() {
                Some("Value") => self.values += 1,
                Some("Panic") => self.panics += 1,
                _ => self.dropped += 1,
            }
        }
    }
}

/// A program that does not compile is the classic expansion's fault only if the runtime
/// lowering alone compiles it: build those again, each with its runtime twin.
fn classify_compile_errors(seed: u64, failures: &mut [(usize, Program, Verdict)]) {
    let rejected: Vec<usize> =
        (0..failures.len()).filter(|&index| matches!(failures[index].2, Verdict::CompileError(_))).collect();
    if rejected.is_empty() {
        return;
    }
    let programs: Vec<Program> = rejected.iter().map(|&index| failures[index].1.clone()).collect();
    let verdicts =
        batch::run(&format!("seed{seed}-classify"), &programs, true).unwrap_or_else(|error| panic!("{error}"));
    for (index, verdict) in rejected.into_iter().zip(verdicts) {
        failures[index].2 = verdict;
    }
}

/// A verdict in a word or two, for a progress line (the details come at the end).
fn kind(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Same { .. } => "same",
        Verdict::Mismatch(_) => "mismatch",
        Verdict::CompileError(_) => "compile error",
        Verdict::Refused(_) => "refused",
        Verdict::Invalid(_) => "invalid",
        Verdict::Crash(_) => "crash",
    }
}

fn headline(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Same { .. } => "same".to_owned(),
        Verdict::Mismatch(details) => format!("MISMATCH\n{details}"),
        Verdict::CompileError(errors) => format!("the classic expansion does not compile\n{errors}"),
        Verdict::Refused(errors) => format!("refused by a documented limit of the classic lowering\n{errors}"),
        Verdict::Invalid(errors) => format!("INVALID PROGRAM (a generator bug)\n{errors}"),
        Verdict::Crash(details) => format!("CRASH\n{details}"),
    }
}

fn shrink_and_report(seed: u64, id: usize, program: &Program, verdict: &Verdict, budget: Duration) {
    let name = format!("seed{seed}_program{id}");
    let (minimal, minimal_verdict) =
        fuzz::minimize(&format!("shrink-{name}"), program, verdict, budget).unwrap_or_else(|error| panic!("{error}"));
    let test = fuzz::regression_test(&name, &minimal);
    let dir = batch::workspace().join("target").join("lowering-fuzz").join("minimal");
    let path = dir.join(format!("{name}.rs"));
    let saved = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, &test));
    println!(
        "\n=== minimal case of program {id} (seed {seed}), {} nodes (was {}): {}\n{test}{}",
        fuzz::shrink::size(&minimal),
        fuzz::shrink::size(program),
        headline(&minimal_verdict),
        match saved {
            Ok(()) => format!("(saved as {}; add it to tests/fuzz_regressions.rs)", path.display()),
            Err(error) => format!("(not saved: {error})"),
        }
    );
}

/// The borrowing shapes the generator draws, by name, and whether `expr` is one.
const SHAPES: [(&str, fn(&Stmt, Option<&Expr>) -> bool); 8] = [
    ("a reference kept (`let r = &v;`)", |stmt, _| matches!(stmt, Stmt::Let(_, Expr::Borrow(_)))),
    ("an awaited call borrowing a buffer mutably (`fill(&mut b, ..).await`)", |_, expr| {
        matches!(expr, Some(Expr::Fill(..) | Expr::FillNew(..)))
    }),
    ("an async `&mut self` method of a local (`b.push_later(..).await`)", |_, expr| {
        matches!(expr, Some(Expr::PushLater(..)))
    }),
    ("an awaited call borrowing a local (`weigh_later(&v).await`)", |_, expr| {
        matches!(expr, Some(Expr::WeighLater(_) | Expr::WeighRef(_, true)))
    }),
    ("a loop over `&local`", |_, expr| {
        matches!(expr, Some(Expr::Loop(fuzz::ast::Loop { kind: fuzz::ast::LoopKind::OverBuf { .. }, .. })))
    }),
    ("an async block", |_, expr| matches!(expr, Some(Expr::AsyncBlock(_)))),
    ("a field moved out of a pair", |_, expr| matches!(expr, Some(Expr::MoveField(..)))),
    ("a method on `&mut self` using `self` in its body", |stmt, expr| {
        let uses_self = |name: &str| name.starts_with("self.");
        matches!(stmt, Stmt::Assign(name, ..) if uses_self(name))
            || matches!(expr, Some(Expr::Var(name) | Expr::Fill(name, _) | Expr::Total(name)) if uses_self(name))
    }),
];

/// Every borrowing shape appears in the default run's programs, so that the default run
/// checks each of them (a generator change that loses one fails here, not silently).
#[test]
fn default_run_draws_every_borrowing_shape() {
    let mut counts = [0usize; SHAPES.len()];
    for index in 0..DEFAULT_PROGRAMS {
        let program = fuzz::generate::program(DEFAULT_SEED, index);
        let mut found = [false; SHAPES.len()];
        visit_block(&program.body, &mut |stmt, expr| {
            for (shape, (_, test)) in SHAPES.iter().enumerate() {
                found[shape] |= test(stmt, expr);
            }
        });
        for (count, found) in counts.iter_mut().zip(found) {
            *count += usize::from(found);
        }
    }
    for ((name, _), count) in SHAPES.iter().zip(counts) {
        println!("{count:4} of {DEFAULT_PROGRAMS} programs: {name}");
    }
    let missing: Vec<&str> =
        SHAPES.iter().zip(counts).filter(|(_, count)| *count == 0).map(|((name, _), _)| *name).collect();
    assert!(missing.is_empty(), "the default run draws no program with {missing:?}");
}

/// Calls `f` on every statement (with no expression) and every expression (with its statement).
fn visit_block(block: &Block, f: &mut impl FnMut(&Stmt, Option<&Expr>)) {
    for stmt in &block.stmts {
        f(stmt, None);
        match stmt {
            Stmt::Let(_, expr) | Stmt::Assign(_, _, expr) | Stmt::Expr(expr) | Stmt::Declare(_, expr) => {
                visit_expr(stmt, expr, f)
            }
            Stmt::LetElse(_, init, otherwise) => {
                visit_expr(stmt, init, f);
                visit_block(otherwise, f);
            }
            Stmt::Item(..) => {}
        }
    }
    if let Some(tail) = &block.tail {
        let stmt = Stmt::Expr((**tail).clone());
        visit_expr(&stmt, tail, f);
    }
}

fn visit_expr(stmt: &Stmt, expr: &Expr, f: &mut impl FnMut(&Stmt, Option<&Expr>)) {
    f(stmt, Some(expr));
    for child in fuzz::ast::children(expr) {
        visit_expr(stmt, child, f);
    }
    for block in fuzz::ast::blocks(expr) {
        visit_block(block, f);
    }
}

/// A counted `loop`'s break value never continues that loop: its count would not advance and
/// the program would never end (seed 7's program 190 once did, and hung under both lowerings).
#[test]
fn counted_loop_break_value_never_continues_it() {
    let counted = |default: Expr| {
        let body = Block { stmts: Vec::new(), tail: None };
        let kind = fuzz::ast::LoopKind::Loop { counter: "k1".to_owned(), bound: 0, default: Some(Box::new(default)) };
        let value = Expr::Loop(fuzz::ast::Loop { label: "l2".to_owned(), kind, body });
        Program {
            receiver: false,
            params: Vec::new(),
            unit: false,
            body: Block { stmts: Vec::new(), tail: Some(Box::new(Expr::Ok(Box::new(value)))) },
            signature: fuzz::ast::Signature::Plain,
        }
    };
    assert!(fuzz::check::program(&counted(Expr::Lit(1))).is_ok());
    let error = fuzz::check::program(&counted(Expr::Continue(None))).expect_err("a `continue` in the break value");
    assert!(error.contains("counted loop's break value"), "{error}");
}

/// A `break` out of a labelled block carries what its path moved to the code after the block,
/// even from the `else` of a `let .. else` (seed 4096's program 136 once borrowed a parameter
/// that such a `break` had moved: neither lowering compiled it).
#[test]
fn a_break_carries_its_moves_past_the_labelled_block() {
    use fuzz::ast::{Binding, Helper, Param, ParamShape, Stmt, Ty};
    let program = |after: Expr| {
        let moved = Expr::Call(Helper::Consume, vec![Expr::Var("p".to_owned())]);
        let otherwise =
            Block { stmts: vec![Stmt::Expr(Expr::Break(Some("b1".to_owned()), Some(Box::new(moved))))], tail: None };
        let checked = Expr::Check("c2".to_owned(), Box::new(Expr::Lit(1)));
        let binding = Binding { name: "v3".to_owned(), mutable: false, annotated: None };
        let labelled =
            Block { stmts: vec![Stmt::LetElse(binding, checked, otherwise)], tail: Some(Box::new(Expr::Lit(0))) };
        let param = Param {
            name: "p".to_owned(),
            ty: Ty::Loud,
            mutable: false,
            arg: Expr::NewLoud("p".to_owned()),
            shape: ParamShape::Plain,
        };
        Program {
            receiver: false,
            params: vec![param],
            unit: false,
            body: Block {
                stmts: vec![Stmt::Expr(Expr::Note(
                    "n4".to_owned(),
                    Box::new(Expr::Labelled("b1".to_owned(), labelled)),
                ))],
                tail: Some(Box::new(Expr::Ok(Box::new(after)))),
            },
            signature: fuzz::ast::Signature::Plain,
        }
    };
    assert!(fuzz::check::program(&program(Expr::Lit(1))).is_ok());
    let error = fuzz::check::program(&program(Expr::WeighLater("p".to_owned()))).expect_err("`p` moved by the `break`");
    assert!(error.contains("cannot borrow `p`"), "{error}");
}

/// An async block that takes a pair's `b` and then its `a` drops them, dropped unfinished, in
/// that order under classic (the macro cannot see the fields' order) and `a` first under the
/// plain function (the README's "Where the lowerings differ"; seed 14930352's program 1333):
/// not drawn. `a` then `b`, or a tuple's elements in any order, agree.
#[test]
fn a_block_taking_a_pairs_fields_out_of_order_is_not_drawn() {
    use fuzz::ast::{Binding, Helper, Pat, Stmt};
    let program = |first: bool| {
        let take = |first: bool| Expr::Call(Helper::Consume, vec![Expr::MoveField("v1".to_owned(), first)]);
        let block = Block {
            stmts: vec![Stmt::Expr(Expr::Await(fuzz::ast::Leaf::Later, "a2".to_owned(), Box::new(Expr::Lit(0))))],
            tail: Some(Box::new(Expr::Binary(fuzz::ast::Op::Add, Box::new(take(first)), Box::new(take(!first))))),
        };
        let binding = Binding { name: "v1".to_owned(), mutable: false, annotated: None };
        Program {
            receiver: false,
            params: Vec::new(),
            unit: false,
            body: Block {
                stmts: vec![Stmt::Let(Pat::Bind(binding), Expr::NewDuo("l3".to_owned(), "l4".to_owned()))],
                tail: Some(Box::new(Expr::Ok(Box::new(Expr::AsyncBlock(block))))),
            },
            signature: fuzz::ast::Signature::Plain,
        }
    };
    assert!(fuzz::check::program(&program(true)).is_ok());
    let error = fuzz::check::program(&program(false)).expect_err("`b` before `a`");
    assert!(error.contains("`v1.a` taken after `v1.b`"), "{error}");
}

/// The default run writes bodies inside every kind of signature (a bounded lifetime and type
/// parameter, an `impl Trait` argument, a generic impl's method, an `#[async_trait]` method),
/// and each prints as that signature.
#[test]
fn default_run_draws_every_signature() {
    use fuzz::ast::Signature;
    let kinds =
        [Signature::Plain, Signature::Bounded, Signature::ImplTraitArg, Signature::GenericImpl, Signature::AsyncTrait];
    let mut counts = [0usize; 5];
    for index in 0..DEFAULT_PROGRAMS {
        let program = fuzz::generate::program_with(DEFAULT_SEED, index, true);
        assert!(program.receiver || !program.signature.needs_receiver(), "program {index}: {:?}", program.signature);
        let kind = kinds.iter().position(|kind| *kind == program.signature).expect("a known signature");
        counts[kind] += 1;
        let text = fuzz::print::function(&program, "program");
        let call = fuzz::print::call(&program, "classic", "program");
        let expected: &[&str] = match program.signature {
            Signature::Plain => &["async fn program("],
            Signature::Bounded => {
                &["async fn program<'a, T: std::fmt::Debug + ?Sized + 'a>(", "_tag: &'a T", "\"tag\""]
            }
            Signature::ImplTraitArg => &["_tag: impl std::fmt::Display", "7u8"],
            Signature::GenericImpl => {
                &["impl<T: std::fmt::Debug + ?Sized> ProgramMachine<T> {", "ProgramMachine::<str> {"]
            }
            Signature::AsyncTrait => &[
                "#[async_trait::async_trait(?Send)]\nimpl ProgramMachineTrait for",
                "ProgramMachineTrait::program(receiver",
            ],
        };
        for part in expected {
            assert!(text.contains(part) || call.contains(part), "program {index} lacks {part:?}:\n{text}\n{call}");
        }
    }
    println!("signatures in the default run (plain, bounded, impl Trait, generic impl, async_trait): {counts:?}");
    assert!(counts.iter().all(|count| *count > 0), "{counts:?}");
}

/// Issue 14's everyday shapes appear in the default run's programs: unit functions that
/// end in a loop that awaits, pattern parameters with `_` parts, `futures::join!`, items
/// declared in the body (two blocks' items of one name among them), match guards that await.
#[test]
fn default_run_draws_every_everyday_shape() {
    let mut counts = [0usize; 7];
    for index in 0..DEFAULT_PROGRAMS {
        let program = fuzz::generate::program_with(DEFAULT_SEED, index, true);
        let ends_in_loop = program.body.tail.as_deref().or(match program.body.stmts.last() {
            Some(Stmt::Expr(last)) => Some(last),
            _ => None,
        });
        let mut found = [
            program.unit && matches!(ends_in_loop, Some(Expr::Loop(_))),
            program.params.iter().any(|param| param.shape != fuzz::ast::ParamShape::Plain),
            false,
            false,
            false,
            false,
            false,
        ];
        let mut item_names: Vec<String> = Vec::new();
        visit_block(&program.body, &mut |stmt, expr| {
            found[2] |= matches!(expr, Some(Expr::Join(..)));
            found[3] |= matches!(stmt, Stmt::Item(..));
            if let Stmt::Item(name, _) = stmt {
                found[6] |= item_names.contains(name);
                item_names.push(name.clone());
            }
            found[4] |= matches!(expr, Some(Expr::Match(_, arms)) if arms.iter().any(|arm| arm.guard.is_some()));
            found[5] |= matches!(
                stmt,
                Stmt::Let(Pat::Bind(fuzz::ast::Binding { annotated: Some(_), .. }), init)
                    if matches!(init, Expr::If(..) | Expr::Match(..) | Expr::Loop(_) | Expr::Block(_))
                        && fuzz::ast::awaits(init)
            );
        });
        for (count, found) in counts.iter_mut().zip(found) {
            *count += usize::from(found);
        }
    }
    let names = [
        "a unit function ending in a loop that awaits",
        "a pattern parameter with `_` parts (`_: Loud`, `(p, _): (T, Loud)`)",
        "`futures::join!` of awaited helper calls",
        "an item declared in the body",
        "a match guard that awaits",
        "a `let` with a type, its initializer an `if`, `match`, loop or block that awaits",
        "an item whose name another block of the body declares too",
    ];
    for (name, count) in names.iter().zip(counts) {
        println!("{count:4} of {DEFAULT_PROGRAMS} programs: {name}");
    }
    let missing: Vec<&str> = names.iter().zip(counts).filter(|(_, count)| *count == 0).map(|(name, _)| *name).collect();
    assert!(missing.is_empty(), "the default run draws no program with {missing:?}");
}

/// Issue 26's shapes, the bodies real crates have, appear in the default run's programs:
/// `let .. else`, tracing's macros (fields that are no expressions), consuming methods on
/// locals and parameters (as methods where the lowering takes them, as functions where it
/// refuses them), temporaries held across awaits (a tail's, or one a `let` extends: itself,
/// through a field or `*`, in an `if`'s branch or a block's tail), and
/// methods of one impl calling each other on `self`.
#[test]
fn default_run_draws_every_real_code_shape() {
    use fuzz::ast::{CallForm, Node};
    let names = [
        "`let Ok(v) = .. else { .. };`",
        "a tracing macro (`info!(?x, %y, k = v, \"{x}\")`)",
        "a consuming method called as a method (`v.into_len()`, `v.spend_later(..).await`)",
        "a consuming method called as a function (`Loud::into_len(v)`)",
        "a consuming method on a parameter",
        "a temporary a `let` extends (`let r = &Loud::new(..);`)",
        "a temporary held across an await in a block's tail",
        "another method awaited on `self` (`self.bump(..).await`)",
        "a temporary a `let` extends through a field (`&(Loud::new(..), e).0`)",
        "a temporary a `let` extends through `*` (`&*Box::new(Loud::new(..))`)",
        "a temporary a `let` extends in an `if`'s branch",
        "a temporary a `let` extends in a block's tail",
    ];
    let mut counts = [0usize; 12];
    for index in 0..DEFAULT_PROGRAMS {
        let program = fuzz::generate::program(DEFAULT_SEED, index);
        let params: Vec<&str> = program.params.iter().map(|param| param.name.as_str()).collect();
        let mut found = [false; 12];
        // `mix(weigh(&Loud::new(..)), ...await)`, `(Loud::new(..), ...await,).1`,
        // `Pair { a: ...await, b: Loud::new(..) }.a`, or any of them in `Ok(..)`.
        let temporary = |value: &Expr| match value {
            Expr::Call(_, args) => matches!(args.first(), Some(Expr::WeighNew(_))),
            Expr::TupleField(items, 1) => matches!(items.first(), Some(Expr::NewLoud(_))),
            Expr::PairField(_, other, true) => matches!(**other, Expr::NewLoud(_)),
            _ => false,
        };
        let tails = |block: &Block| match block.tail.as_deref() {
            Some(Expr::Ok(value)) => temporary(value),
            Some(value) => temporary(value),
            None => false,
        };
        found[6] |= tails(&program.body);
        fuzz::ast::visit_block(&program.body, &mut |node| match node {
            Node::Stmt(Stmt::LetElse(..)) => found[0] = true,
            Node::Stmt(Stmt::Let(_, Expr::BorrowNew(_, extension))) => {
                use fuzz::ast::Extension;
                found[match extension {
                    Extension::Whole => 5,
                    Extension::Field(_) => 8,
                    Extension::Deref => 9,
                    Extension::If(_) => 10,
                    Extension::Block => 11,
                }] = true
            }
            Node::Expr(Expr::Event(_)) => found[1] = true,
            Node::Expr(Expr::IntoLen(name, form) | Expr::SpendLater(name, form, _)) => {
                found[if *form == CallForm::Method { 2 } else { 3 }] = true;
                found[4] |= params.contains(&name.as_str());
            }
            Node::Expr(Expr::SelfBump(_)) => found[7] = true,
            Node::Expr(expr) => found[6] |= fuzz::ast::blocks(expr).into_iter().any(tails),
            Node::Stmt(_) => {}
        });
        for (count, found) in counts.iter_mut().zip(found) {
            *count += usize::from(found);
        }
    }
    for (name, count) in names.iter().zip(counts) {
        println!("{count:4} of {DEFAULT_PROGRAMS} programs: {name}");
    }
    let missing: Vec<&str> = names.iter().zip(counts).filter(|(_, count)| *count == 0).map(|(name, _)| *name).collect();
    assert!(missing.is_empty(), "the default run draws no program with {missing:?}");
}

/// The shapes published crates showed the classic lowering appear in the default run's
/// programs: a struct literal's shorthand naming a local kept in place, a struct update moving
/// a field out of a local, an owned temporary at the end of a method chain borrowed by an
/// awaited call, of a local and of a temporary, and an array of trait objects an awaited call
/// borrows (a database client's `&[&oid]`), with a local's and with a temporary's element, and
/// `std::panic::resume_unwind(..)` (a cache's arms that re-raise a panic), as a statement.
#[test]
fn default_run_draws_every_crate_shape() {
    use fuzz::ast::Node;
    let names = [
        "`Pair { a, b: .. }.a` (a field shorthand) naming a local kept in place",
        "`Pair { a: .., ..v }.b` (a struct update)",
        "`len_later(.., &v.name().to_uppercase()).await` (a chain's temporary, of a local)",
        "`len_later(.., &Loud::new(..).name().to_uppercase()).await` (of a temporary)",
        "`weigh_all_later(.., &[&v, .., &1u32]).await` (of a local)",
        "`weigh_all_later(.., &[&Loud::new(..), .., &1u32]).await` (of a temporary)",
        "`std::panic::resume_unwind(..);` (a call that returns `!`, its value discarded)",
    ];
    let mut counts = [0usize; 7];
    for index in 0..DEFAULT_PROGRAMS {
        let program = fuzz::generate::program(DEFAULT_SEED, index);
        let mut found = [false; 7];
        fuzz::ast::visit_block(&program.body, &mut |node| match node {
            Node::Expr(Expr::WeighAll(_, sources)) => {
                found[4] |= sources.iter().any(Option::is_some);
                found[5] |= sources.iter().any(Option::is_none);
            }
            Node::Expr(Expr::PairShorthand(_)) => found[0] = true,
            Node::Expr(Expr::PairUpdate(..)) => found[1] = true,
            Node::Expr(Expr::UpperLater(_, Some(_))) => found[2] = true,
            Node::Expr(Expr::UpperLater(_, None)) => found[3] = true,
            Node::Stmt(Stmt::Expr(Expr::Panic(_, _, true))) => found[6] = true,
            _ => {}
        });
        for (count, found) in counts.iter_mut().zip(found) {
            *count += usize::from(found);
        }
    }
    for (name, count) in names.iter().zip(counts) {
        println!("{count:4} of {DEFAULT_PROGRAMS} programs: {name}");
    }
    let missing: Vec<&str> = names.iter().zip(counts).filter(|(_, count)| *count == 0).map(|(name, _)| *name).collect();
    assert!(missing.is_empty(), "the default run draws no program with {missing:?}");
}

/// `awaited!(..)`, a macro of the user's whose own body awaits, appears in the default run's
/// programs (the classic variant lowered with the hint `awaits(awaited)`), with an operand the
/// classic lowering keeps in place in some of them.
#[test]
fn default_run_draws_a_macro_that_awaits() {
    let (mut programs, mut with_kept) = (0, 0);
    for index in 0..DEFAULT_PROGRAMS {
        let program = fuzz::generate::program(DEFAULT_SEED, index);
        if !fuzz::print::awaits_in_a_macro(&program) {
            continue;
        }
        programs += 1;
        let kept = fuzz::ast::in_place(&program);
        let mut names_kept = false;
        fuzz::ast::visit_block(&program.body, &mut |node| {
            if let fuzz::ast::Node::Expr(expr @ Expr::Await(fuzz::ast::Leaf::Pasted, ..)) = node {
                let named = fuzz::ast::names_in_stmt(&Stmt::Expr(expr.clone()));
                names_kept |= named.iter().any(|name| kept.contains(name));
            }
        });
        with_kept += usize::from(names_kept);
    }
    assert!(programs >= 10, "the default run draws `awaited!` in {programs} programs");
    assert!(with_kept > 0, "no `awaited!` of the default run names a local kept in place");
}

/// The macro and closure shapes appear in the default run's programs, each with an operand the
/// classic lowering keeps in place: the user's macros `keep!` (a `move` closure), `deferred!`
/// (an `async move` block that awaits), both stored past the call, `plain!` (an expression)
/// and `declare!` (a statement declaring a local); closures that borrow, mutably borrow or
/// move such a local; a visible closure or `async move` block stored past the call. And no
/// variant the coverage line says cannot be drawn is.
#[test]
fn default_run_draws_every_macro_shape() {
    use fuzz::ast::{ClosureKind, Node, Store};
    let names = [
        "`out.push(keep! { .. })` (a macro's `move` closure stored) with an in-place operand",
        "`pending.push(Box::pin(deferred! { .. }))` (a macro's `async move` stored) with an in-place operand",
        "`plain!(..)` with an in-place operand",
        "`declare!(d = ..)` with an in-place operand",
        "a closure that borrows an in-place local",
        "a closure that mutably borrows an in-place local",
        "a `move` closure that takes or copies an in-place local",
        "a visible `move` closure or `async move` block stored past the call",
        "a macro or closure handed a parameter",
    ];
    let mut counts = [0usize; 9];
    let mut coverage = fuzz::coverage::Coverage::default();
    for index in 0..DEFAULT_PROGRAMS {
        let program = fuzz::generate::program(DEFAULT_SEED, index);
        coverage.add(&program);
        let kept = fuzz::ast::in_place(&program);
        let params: Vec<&str> = program.params.iter().map(|param| param.name.as_str()).collect();
        let mentions = |expr: &Expr| -> Vec<String> { fuzz::ast::names_in_stmt(&Stmt::Expr(expr.clone())) };
        let mut found = [false; 9];
        fuzz::ast::visit_block(&program.body, &mut |node| {
            let (shape, named) = match node {
                Node::Expr(expr @ Expr::Store(store, _)) => (
                    match store {
                        Store::Keep => 0,
                        Store::Deferred => 1,
                        Store::MoveClosure | Store::AsyncMove => 7,
                    },
                    mentions(expr),
                ),
                Node::Expr(expr @ Expr::Plain(_)) => (2, mentions(expr)),
                Node::Stmt(Stmt::Declare(_, value)) => (3, mentions(value)),
                Node::Expr(expr @ (Expr::Closure(closure) | Expr::Apply(closure))) => (
                    match closure.kind {
                        ClosureKind::Shared => 4,
                        ClosureKind::Mutable => 5,
                        ClosureKind::Move => 6,
                    },
                    mentions(expr),
                ),
                _ => return,
            };
            found[8] |= named.iter().any(|name| params.contains(&name.as_str()));
            found[shape] |= shape == 7 || named.iter().any(|name| kept.contains(name));
        });
        for (count, found) in counts.iter_mut().zip(found) {
            *count += usize::from(found);
        }
    }
    for (name, count) in names.iter().zip(counts) {
        println!("{count:4} of {DEFAULT_PROGRAMS} programs: {name}");
    }
    println!("{}", coverage.line());
    let missing: Vec<&str> = names.iter().zip(counts).filter(|(_, count)| *count == 0).map(|(name, _)| *name).collect();
    assert!(missing.is_empty(), "the default run draws no program with {missing:?}");
    let drawn: Vec<&str> =
        fuzz::coverage::CANNOT.iter().map(|(name, _)| *name).filter(|name| coverage.drawn.contains(*name)).collect();
    assert!(drawn.is_empty(), "the coverage line says {drawn:?} cannot be drawn, but the default run draws them");
}

/// The coverage line names every variant of `syn::Expr`, `syn::Stmt` and `syn::Pat`: its lists
/// are those of the syn 3.x in `Cargo.lock` (read from cargo's registry, when it is there).
#[test]
fn coverage_lists_every_syn_variant() {
    let lock = std::fs::read_to_string(batch::workspace().join("Cargo.lock")).expect("Cargo.lock");
    let version = lock
        .split("[[package]]")
        .filter(|package| package.contains("name = \"syn\""))
        .filter_map(|package| package.lines().find_map(|line| line.strip_prefix("version = \"")))
        .map(|version| version.trim_end_matches('"').to_owned())
        .find(|version| version.starts_with("3."))
        .expect("syn 3.x in Cargo.lock");
    let home = std::env::var("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::Path::new(&std::env::var("HOME").unwrap_or_default()).join(".cargo"));
    let src = std::fs::read_dir(home.join("registry").join("src"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|index| index.path().join(format!("syn-{version}")).join("src"))
        .find(|src| src.is_dir());
    let Some(src) = src else {
        println!("syn {version}'s source is not in cargo's registry here: the lists are not checked");
        return;
    };
    for (file, name, listed) in [
        ("expr.rs", "Expr", &fuzz::coverage::EXPR[..]),
        ("stmt.rs", "Stmt", &fuzz::coverage::STMT[..]),
        ("pat.rs", "Pat", &fuzz::coverage::PAT[..]),
    ] {
        let source = std::fs::read_to_string(src.join(file)).expect("syn's source");
        let mut variants = fuzz::coverage::variants_in_source(&source, name);
        let mut listed: Vec<String> = listed.iter().map(|variant| (*variant).to_owned()).collect();
        variants.sort();
        listed.sort();
        assert_eq!(listed, variants, "the variants of syn {version}'s `{name}`");
    }
    for (variant, _) in fuzz::coverage::CANNOT {
        let (kind, name) = variant.split_once("::").expect("Kind::Name");
        let listed = match kind {
            "Expr" => &fuzz::coverage::EXPR[..],
            "Stmt" => &fuzz::coverage::STMT[..],
            _ => &fuzz::coverage::PAT[..],
        };
        assert!(listed.contains(&name), "{variant}");
    }
}

/// Seed 88883's program 4475 drew a `fill` whose argument held a block, in the loop a unit
/// body ends with (drawn outside any block): that block's statements cleared the moves still
/// pending, and the generator panicked removing the buffer the `fill` had lent.
#[test]
fn drawing_a_block_outside_any_block_keeps_the_pending_moves() {
    let (program, _) = fuzz::generate::program_and_rejections(88883, 4475);
    assert!(program.unit, "the program whose unit body ends with the loop");
}

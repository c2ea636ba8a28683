//! Liveness across awaits: does code that may run after the current point read the value a
//! local holds now, name the local at all, or await?
//!
//! The walk in `emit` keeps the code still to run as a stack of [`Rest`]s, innermost last.
//! The answers are about the local's *current value*: an unconditional assignment before any
//! read ends it ([`ValueFate::Overwritten`]), and so does a `let` that hides the name. The walk relies
//! on them being exact in one direction: a local used by value and read later must be `Copy`
//! (or rustc rejects the plain `async fn` too), so a read on any path keeps it alive.

use super::jumps::{Leave, Targets, always_leaves, expr_escapes, stmt_may_jump, stmts_escapes};
use crate::classic::parse::ir::{Arm, Block, Expr, Stmt};
use crate::classic::syntax::bindings::{let_patterns, pattern_bindings};
use crate::classic::syntax::mentions::{self, Kind, Mention};

/// Code that runs after the current point, in an enclosing construct.
pub(crate) enum Rest<'a> {
    /// The statements after the current one in an enclosing block.
    Stmts(&'a [Stmt]),
    /// An enclosing loop's body, which runs again, with the loop's label.
    LoopBody(&'a Block, Option<&'a syn::Label>),
    /// The paths of a construct whose head is being applied, one of which runs: the branches
    /// of an `if` (`None` for a missing `else`) or the arms of a `match`.
    Paths(Vec<Path<'a>>),
    /// Where a labelled block begins (no code): a `break` to its label goes on with the
    /// entries before this one, the code after the block, skipping the rest of the block.
    Labelled(&'a syn::Label),
}

pub(crate) enum Path<'a> {
    Block(&'a Block),
    Expr(&'a Expr),
    Arm(&'a Arm),
    /// The `else` block of a `let .. else` whose initializer is running: it runs when the
    /// pattern does not match, and leaves (its code is the user's, as written).
    Else(&'a syn::Block),
    /// A missing `else`: nothing runs.
    Empty,
}

/// The mentions a query looks for: of the local `name`, or only of its field `only_field`
/// (and of the whole local), not of its other fields.
#[derive(Clone, Copy)]
pub(crate) struct Target<'a> {
    pub name: &'a str,
    pub only_field: Option<&'a str>,
    /// Only mentions through a field count (`pair.1`, `self.tag.len()`), not of it whole.
    pub through_a_field: bool,
}

impl<'a> Target<'a> {
    pub(crate) fn local(name: &'a str) -> Self {
        Target { name, only_field: None, through_a_field: false }
    }

    /// The local's mentions through a field, any field.
    pub(crate) fn fields_of(name: &'a str) -> Self {
        Target { name, only_field: None, through_a_field: true }
    }

    fn is(&self, mention: &Mention) -> bool {
        mention.name == self.name
            && (!self.through_a_field || mention.through.is_some())
            && match (self.only_field, &mention.through) {
                (Some(field), Some(through)) => field == through,
                _ => true,
            }
    }
}

/// What happens first, on the paths from a point, to the value a local holds there.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ValueFate {
    /// Read (or moved) on some path.
    Read,
    /// Assigned on every path before any read.
    Overwritten,
    /// Not mentioned, or hidden by a new binding, on the paths seen so far; what follows the
    /// construct decides.
    Unused,
}

/// Is the current value of `name` read by the code still to run? `rebound` lists the
/// entries of `rest` where the name means another binding (the statements after a `let` of
/// that name whose initializer is running).
///
/// A `break`, `continue` or `return` statement ends the code that follows it in its block:
/// what runs next is the code after the loop it leaves, the loop's next round, or nothing
/// (a move just before it, `consume(p); break;`, is a move even if the loop's body reads `p`).
pub(crate) fn read_later(rest: &[Rest<'_>], name: &str, rebound: &[usize]) -> bool {
    let mut index = rest.len();
    // Where the jumps of the code seen so far go on (a `continue` on one path of an `if`):
    // the lowest entry of `rest` they lead to. A later `break`, `return` or panic decides
    // what runs next only if every such jump goes on at or above its entry (a `break` to a
    // labelled block the walk is in reaches the code after that block, as the walk does).
    let mut jumped_to: Option<usize> = None;
    while index > 0 {
        index -= 1;
        let (found, jump) = match &rest[index] {
            // The name means another binding there, but a jump there still decides what runs
            // next (`let p = { consume(p); f().await }; return;`).
            Rest::Stmts(stmts) if rebound.contains(&index) => (ValueFate::Unused, stmts.iter().find_map(always_leaves)),
            _ if rebound.contains(&index) => (ValueFate::Unused, None),
            Rest::Stmts(stmts) => stmts_use_to_jump(stmts, name),
            Rest::Paths(paths) => {
                // A path that ends in a jump (`if c { continue 'outer; }`) goes on where the
                // jump leads, which may read the value although the code after the construct
                // overwrites it first.
                for path in paths {
                    let stmts = match path {
                        Path::Block(block) => &block.stmts[..],
                        Path::Arm(arm)
                            if !guard_mentions(arm, Target::local(name)) && !pattern_binds(&arm.pat, name) =>
                        {
                            &arm.body.stmts[..]
                        }
                        _ => continue,
                    };
                    if let (ValueFate::Unused, Some(leave)) = stmts_use_to_jump(stmts, name) {
                        let next = match leave {
                            // A panic leaves the function too (unwinding): nothing after it reads anything.
                            Leave::Return | Leave::Panic => None,
                            Leave::Break(label) => jump_target(&rest[..index], &label),
                            Leave::Continue(label) => jump_target(&rest[..index], &label).map(|at| at + 1),
                        };
                        if let Some(next) = next {
                            let rebound: Vec<usize> = rebound.iter().copied().filter(|&at| at < next).collect();
                            if read_later(&rest[..next], name, &rebound) {
                                return true;
                            }
                        }
                    }
                }
                (rest_use(&rest[index], name), None)
            }
            other => (rest_use(other, name), None),
        };
        match found {
            ValueFate::Read => return true,
            ValueFate::Overwritten => return false,
            ValueFate::Unused => {}
        }
        if let Some(lands) = rest_landing(rest, index) {
            jumped_to = Some(jumped_to.map_or(lands, |known| known.min(lands)));
        }
        if jumped_to.is_some_and(|lands| lands < index) {
            continue;
        }
        match jump {
            Some(Leave::Return | Leave::Panic) => return false,
            // Next: the code outside the loop or the labelled block; a target that `rest`
            // does not hold is outside the scope of the local asked about (`rest_seen_by`):
            // the jump ends its life (`loop { let p = ..; if c { consume(p); break; } .. }`).
            Some(Leave::Break(label)) => match jump_target(&rest[..index], &label) {
                Some(at) => index = at,
                None => return false,
            },
            // Next: the loop's body again (from its start, where this local is bound anew
            // when its `let` is inside).
            Some(Leave::Continue(label)) => match jump_target(&rest[..index], &label) {
                Some(at) => index = at + 1,
                None => return false,
            },
            None => {}
        }
    }
    false
}

/// The entry of `rest` that a `break` or `continue` with `label` leaves or repeats: the
/// innermost loop, or the loop or labelled block of that label.
fn jump_target(rest: &[Rest<'_>], label: &Option<syn::Lifetime>) -> Option<usize> {
    rest.iter().rposition(|entry| match (entry, label) {
        (Rest::LoopBody(..), None) => true,
        (Rest::LoopBody(_, Some(own)) | Rest::Labelled(own), Some(label)) => own.name.ident == label.ident,
        _ => false,
    })
}

/// Where the jumps that leave the code of `rest[index]` go on, other than by a statement
/// that always jumps (which `read_later` follows): the lowest entry of `rest` the walk reads
/// next after one of them, or `None` if none jumps, or each leaves the local's scope
/// (`rest_seen_by`), where nothing reads it. A `break` goes on with the entry before its
/// loop's or block's; a `continue`, with the loop's body again.
fn rest_landing(rest: &[Rest<'_>], index: usize) -> Option<usize> {
    let escapes = match &rest[index] {
        Rest::Stmts(stmts) => {
            let end = stmts.iter().position(|stmt| always_leaves(stmt).is_some()).unwrap_or(stmts.len());
            stmts_escapes(&Targets::default(), &stmts[..end])
        }
        // A `break` to this loop goes on with the code before this entry, where the walk goes
        // on anyway; a `continue` to it runs this body again, which the walk has read.
        Rest::LoopBody(block, label) => stmts_escapes(&Targets::default().inside(*label, true), &block.stmts),
        Rest::Paths(paths) => paths
            .iter()
            .flat_map(|path| match path {
                Path::Block(block) => stmts_escapes(&Targets::default(), &block.stmts),
                Path::Expr(expr) => expr_escapes(expr),
                Path::Arm(arm) => stmts_escapes(&Targets::default(), &arm.body.stmts),
                Path::Else(block) => Targets::default().search(|jumps| syn::visit::Visit::visit_block(jumps, block)),
                Path::Empty => Vec::new(),
            })
            .collect(),
        Rest::Labelled(_) => Vec::new(),
    };
    escapes
        .into_iter()
        .filter_map(|leave| match leave {
            Leave::Break(label) => jump_target(&rest[..index], &label).map(|at| at.saturating_sub(1)),
            Leave::Continue(label) => jump_target(&rest[..index], &label),
            Leave::Return | Leave::Panic => None,
        })
        .min()
}

/// `stmts_use` up to the first statement that is a `break`, `continue` or `return` (whose
/// value it reads), with that jump.
fn stmts_use_to_jump(stmts: &[Stmt], name: &str) -> (ValueFate, Option<Leave>) {
    for (index, stmt) in stmts.iter().enumerate() {
        if let Some(leave) = always_leaves(stmt) {
            return (stmts_use(&stmts[..=index], name), Some(leave));
        }
    }
    (stmts_use(stmts, name), None)
}

/// Does the code still to run name `name` at all (before a binding hides it)?
pub(crate) fn named_later(rest: &[Rest<'_>], name: &str, rebound: &[usize]) -> bool {
    named_later_until(rest, Target::local(name), rebound, false)
}

/// `named_later` from the end of a statement that runs to its end (a macro lent a value,
/// `generate::places`): a `return` after it, which nothing before it could jump past, ends
/// the search (a `let .. else` block's last statement, say). Not a panic: the lowering
/// writes `unreachable!()` after constructs whose every path jumps elsewhere. (Not for a
/// jump's saves either, which skip the statements this reads.) With a field in `target`
/// (`self.cmd`), mentions of the local through its other fields (`self.tag.len()`) do not
/// count, mentions of it whole do.
pub(crate) fn named_after_statement(rest: &[Rest<'_>], target: Target<'_>, rebound: &[usize]) -> bool {
    named_later_until(rest, target, rebound, true)
}

fn named_later_until(rest: &[Rest<'_>], target: Target<'_>, rebound: &[usize], stop_at_return: bool) -> bool {
    // Code seen so far that may jump elsewhere: then a later `return` does not end the search.
    let mut may_have_jumped = false;
    for (index, rest) in rest.iter().enumerate().rev() {
        if rebound.contains(&index) {
            continue;
        }
        let stmts = match rest {
            Rest::Stmts(stmts) => *stmts,
            Rest::LoopBody(block, _) => {
                may_have_jumped = true;
                &block.stmts[..]
            }
            Rest::Paths(paths) => {
                if paths.iter().any(|path| path_mentions(path, target)) {
                    return true;
                }
                may_have_jumped = true;
                continue;
            }
            Rest::Labelled(_) => continue,
        };
        for stmt in stmts {
            if stmt_mentions(stmt, target) {
                return true;
            }
            if binds(stmt, target.name) {
                return false;
            }
            if stop_at_return && !may_have_jumped && matches!(always_leaves(stmt), Some(Leave::Return)) {
                return false;
            }
            may_have_jumped |= stmt_may_jump(stmt);
        }
    }
    false
}

/// May the code still to run start a new state (an await, or a construct that the walk may
/// split: every construct that stands as a statement)?
pub(crate) fn transition_later(rest: &[Rest<'_>]) -> bool {
    let construct = |expr: &Expr| !matches!(expr, Expr::Plain(_));
    let stmt_transitions = |stmt: &Stmt| match stmt {
        Stmt::Let(node) => node.init.as_ref().is_some_and(construct),
        Stmt::Expr(expr, _) => construct(expr),
        Stmt::Verbatim(_) => false,
    };
    rest.iter().any(|rest| match rest {
        Rest::Stmts(stmts) => stmts.iter().any(stmt_transitions),
        Rest::LoopBody(..) => true,
        Rest::Paths(paths) => paths.iter().any(|path| match path {
            Path::Block(block) => block.stmts.iter().any(stmt_transitions),
            Path::Expr(expr) => construct(expr),
            Path::Arm(arm) => arm.body.stmts.iter().any(stmt_transitions),
            Path::Else(_) | Path::Empty => false,
        }),
        Rest::Labelled(_) => false,
    })
}

/// The patterns of the plain `let`s among the statements still to run, at the level
/// `transition_later` reads (a construct there is a transition of its own).
pub(crate) fn later_let_patterns<'a>(rest: &'a [Rest<'_>]) -> Vec<&'a syn::Pat> {
    let lets = |stmts: &'a [Stmt]| {
        stmts.iter().filter_map(|stmt| match stmt {
            Stmt::Let(node) if node.init.as_ref().is_some_and(|init| matches!(init, Expr::Plain(_))) => Some(&node.pat),
            _ => None,
        })
    };
    let mut found = Vec::new();
    for entry in rest {
        match entry {
            Rest::Stmts(stmts) => found.extend(lets(stmts)),
            Rest::LoopBody(block, _) => found.extend(lets(&block.stmts)),
            Rest::Paths(paths) => {
                for path in paths {
                    match path {
                        Path::Block(block) => found.extend(lets(&block.stmts)),
                        Path::Arm(arm) => found.extend(lets(&arm.body.stmts)),
                        Path::Expr(_) | Path::Else(_) | Path::Empty => {}
                    }
                }
            }
            Rest::Labelled(_) => {}
        }
    }
    found
}

fn rest_use(rest: &Rest<'_>, name: &str) -> ValueFate {
    match rest {
        Rest::Stmts(stmts) => stmts_use(stmts, name),
        Rest::LoopBody(block, _) => stmts_use(&block.stmts, name),
        Rest::Paths(paths) => paths_use(paths, name),
        Rest::Labelled(_) => ValueFate::Unused,
    }
}

/// One of the paths runs: read if any reads, overwritten if all overwrite.
fn paths_use(paths: &[Path<'_>], name: &str) -> ValueFate {
    let uses: Vec<ValueFate> = paths.iter().map(|path| path_use(path, name)).collect();
    if uses.contains(&ValueFate::Read) {
        ValueFate::Read
    } else if !uses.is_empty() && uses.iter().all(|found| *found == ValueFate::Overwritten) {
        ValueFate::Overwritten
    } else {
        ValueFate::Unused
    }
}

fn path_use(path: &Path<'_>, name: &str) -> ValueFate {
    match path {
        Path::Block(block) => stmts_use(&block.stmts, name),
        Path::Expr(expr) => expr_use(expr, name),
        Path::Arm(arm) => {
            if guard_mentions(arm, Target::local(name)) {
                ValueFate::Read
            } else if pattern_binds(&arm.pat, name) {
                ValueFate::Unused
            } else {
                stmts_use(&arm.body.stmts, name)
            }
        }
        Path::Else(block) if diverge_reads(block, name) => ValueFate::Read,
        Path::Else(_) | Path::Empty => ValueFate::Unused,
    }
}

fn path_mentions(path: &Path<'_>, target: Target<'_>) -> bool {
    match path {
        Path::Block(block) => block_mentions(block, target),
        Path::Expr(expr) => expr_mentions(expr, target),
        Path::Arm(arm) => {
            guard_mentions(arm, target) || (!pattern_binds(&arm.pat, target.name) && block_mentions(&arm.body, target))
        }
        Path::Else(block) => mentions::of_block(block).iter().any(|mention| target.is(mention)),
        Path::Empty => false,
    }
}

/// Statements in order. An assignment after a statement that may `break` or `continue` does
/// not settle it: the jump skips it, to code the enclosing `Rest`s describe.
fn stmts_use(stmts: &[Stmt], name: &str) -> ValueFate {
    let mut may_have_jumped = false;
    for stmt in stmts {
        match stmt_use(stmt, name) {
            ValueFate::Read => return ValueFate::Read,
            ValueFate::Overwritten if may_have_jumped => return ValueFate::Unused,
            ValueFate::Overwritten => return ValueFate::Overwritten,
            ValueFate::Unused => {}
        }
        if binds(stmt, name) {
            return ValueFate::Unused;
        }
        may_have_jumped |= stmt_may_jump(stmt);
    }
    ValueFate::Unused
}

fn stmt_use(stmt: &Stmt, name: &str) -> ValueFate {
    match stmt {
        Stmt::Let(node) => {
            let init = node.init.as_ref().map_or(ValueFate::Unused, |init| expr_use(init, name));
            let diverge_reads = node.diverge.as_ref().is_some_and(|block| diverge_reads(block, name));
            if diverge_reads && init == ValueFate::Unused { ValueFate::Read } else { init }
        }
        Stmt::Expr(expr, _) => expr_use(expr, name),
        Stmt::Verbatim(stmt) => first_use(&mentions::of_stmt(stmt), name),
    }
}

fn expr_use(expr: &Expr, name: &str) -> ValueFate {
    match expr {
        Expr::Plain(expr) => first_use(&mentions::of_expr(expr), name),
        Expr::Await(node) => first_use(&mentions::of_expr(&node.operand), name),
        Expr::Block(block) => stmts_use(&block.stmts, name),
        Expr::If(node) => match first_use(&mentions::of_expr(&node.cond), name) {
            ValueFate::Unused => {
                let hidden = let_patterns(&node.cond).into_iter().any(|pat| pattern_binds(pat, name));
                let then_path = if hidden { Path::Empty } else { Path::Block(&node.then_branch) };
                let else_path = node.else_branch.as_ref().map_or(Path::Empty, Path::Expr);
                paths_use(&[then_path, else_path], name)
            }
            found => found,
        },
        Expr::Match(node) => match first_use(&mentions::of_expr(&node.scrutinee), name) {
            ValueFate::Unused => paths_use(&node.arms.iter().map(Path::Arm).collect::<Vec<_>>(), name),
            found => found,
        },
        // `while` and `for` are `loop`s whose body starts with the test: the first pass is
        // the one that decides.
        Expr::Loop(node) => stmts_use(&node.body.stmts, name),
    }
}

/// The mentions of `name` in plain code, in evaluation order: a read decides, and so does an
/// assignment that surely runs (`x = value;` first: the value `x` held before is never
/// read); an assignment that may not run (in a branch, in a loop) leaves it to what follows.
/// Does the `else` block of a `let .. else` read the value `name` holds? It leaves: one that
/// leaves the function (`return`, a panic) reads it only if it reads it before assigning it
/// (`else { v = new(); return f(&v) }` does not); one that may `break` or `continue` goes on
/// in code this walk does not see from the `let`, so any mention counts.
fn diverge_reads(block: &syn::Block, name: &str) -> bool {
    let found = mentions::of_block(block);
    let as_expr = syn::Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: block.clone() });
    if crate::classic::syntax::jumps::jumps_out_of(&as_expr) {
        found.iter().any(|mention| mention.name == name)
    } else {
        first_use(&found, name) == ValueFate::Read
    }
}

fn first_use(found: &[Mention], name: &str) -> ValueFate {
    for mention in found.iter().filter(|mention| mention.name == name) {
        match (mention.kind, mention.conditional) {
            (Kind::Assign, false) => return ValueFate::Overwritten,
            (Kind::Assign, true) => {}
            _ => return ValueFate::Read,
        }
    }
    ValueFate::Unused
}

/// Is `stmt` a `let` that binds `name`?
pub(crate) fn binds(stmt: &Stmt, name: &str) -> bool {
    let Stmt::Let(node) = stmt else { return false };
    pattern_binds(&node.pat, name)
}

pub(crate) fn pattern_binds(pat: &syn::Pat, name: &str) -> bool {
    let mut bindings = Vec::new();
    pattern_bindings(pat, &mut bindings);
    bindings.iter().any(|binding| binding.ident == name)
}

fn guard_mentions(arm: &Arm, target: Target<'_>) -> bool {
    matches!(&arm.pat, syn::Pat::Guard(guard) if mentions::of_expr(&guard.guard).iter().any(|m| target.is(m)))
}

fn stmt_mentions(stmt: &Stmt, target: Target<'_>) -> bool {
    match stmt {
        Stmt::Let(node) => {
            node.init.as_ref().is_some_and(|init| expr_mentions(init, target))
                || node.diverge.as_ref().is_some_and(|block| mentions::of_block(block).iter().any(|m| target.is(m)))
        }
        Stmt::Expr(expr, _) => expr_mentions(expr, target),
        Stmt::Verbatim(stmt) => mentions::of_stmt(stmt).iter().any(|m| target.is(m)),
    }
}

fn block_mentions(block: &Block, target: Target<'_>) -> bool {
    for stmt in &block.stmts {
        if stmt_mentions(stmt, target) {
            return true;
        }
        if binds(stmt, target.name) {
            return false;
        }
    }
    false
}

/// Does `expr` name the variable that `name` means here? Not after a binding inside it
/// hides that variable (the temporaries of a statement in a loop are bound again on each
/// iteration, for one).
pub(crate) fn expr_mentions(expr: &Expr, target: Target<'_>) -> bool {
    let syn_mentions = |expr: &syn::Expr| mentions::of_expr(expr).iter().any(|m| target.is(m));
    match expr {
        Expr::Plain(expr) => syn_mentions(expr),
        Expr::Await(node) => syn_mentions(&node.operand),
        Expr::Block(block) => block_mentions(block, target),
        Expr::If(node) => {
            syn_mentions(&node.cond)
                || block_mentions(&node.then_branch, target)
                || node.else_branch.as_ref().is_some_and(|expr| expr_mentions(expr, target))
        }
        Expr::Match(node) => {
            syn_mentions(&node.scrutinee) || node.arms.iter().any(|arm| path_mentions(&Path::Arm(arm), target))
        }
        Expr::Loop(node) => block_mentions(&node.body, target),
    }
}

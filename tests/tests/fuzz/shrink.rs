//! Simpler versions of a program, for shrinking a failure to a minimal case: each candidate
//! is one edit away (a run of statements removed, an expression replaced by a part of itself
//! or by the simplest value of its type, a suspension made immediate, a loop made shorter),
//! and passes the checker. The shrinker (`mod.rs`) builds them in batches and keeps the
//! smallest that still fails the same way.

use super::ast::*;
use super::check;

/// The candidates, smallest first.
pub fn candidates(program: &Program) -> Vec<Program> {
    let mut out: Vec<Program> = Vec::new();
    for index in 0..program.params.len() {
        let mut candidate = program.clone();
        candidate.params.remove(index);
        out.push(candidate);
    }
    if program.signature != Signature::Plain {
        out.push(Program { signature: Signature::Plain, ..program.clone() });
    }
    if program.receiver && !program.signature.needs_receiver() {
        out.push(Program { receiver: false, ..program.clone() });
    }
    for body in block(&program.body) {
        out.push(Program { body, ..program.clone() });
    }
    out.retain(|candidate| check::program(candidate).is_ok());
    out.sort_by_key(size);
    out
}

/// How big a program is: its expression and statement nodes, and its suspensions (a `later`
/// counts more than a `now`, a loop by its bound).
pub fn size(program: &Program) -> usize {
    block_size(&program.body) + program.params.len() + usize::from(program.receiver)
}

fn block_size(block: &Block) -> usize {
    block.stmts.iter().map(stmt_size).sum::<usize>() + block.tail.as_deref().map_or(0, expr_size)
}

fn stmt_size(stmt: &Stmt) -> usize {
    1 + match stmt {
        Stmt::Let(_, expr) | Stmt::Assign(_, _, expr) | Stmt::Expr(expr) | Stmt::Declare(_, expr) => expr_size(expr),
        Stmt::LetElse(_, init, otherwise) => expr_size(init) + block_size(otherwise),
        Stmt::Item(..) => 0,
    }
}

fn expr_size(expr: &Expr) -> usize {
    let own = match expr {
        Expr::Await(Leaf::Later | Leaf::Pasted, ..) => 2,
        Expr::Loop(node) => match &node.kind {
            LoopKind::Loop { bound, .. } | LoopKind::While { bound, .. } => 1 + *bound as usize,
            LoopKind::Louds { labels, .. } => 1 + labels.len(),
            LoopKind::Range { .. } | LoopKind::OverBuf { .. } => 2,
        },
        _ => 1,
    };
    own + children(expr).iter().map(|child| expr_size(child)).sum::<usize>()
        + blocks(expr).iter().map(|block| block_size(block)).sum::<usize>()
}

/// One edit away from `block`.
fn block(block: &Block) -> Vec<Block> {
    let mut out = Vec::new();
    let len = block.stmts.len();
    // Runs of statements, halves first (as delta debugging does).
    let mut run = len;
    while run > 0 {
        for start in (0..len).step_by(run) {
            let mut candidate = block.clone();
            candidate.stmts.drain(start..(start + run).min(len));
            out.push(candidate);
        }
        run /= 2;
    }
    for (index, stmt) in block.stmts.iter().enumerate() {
        for replacement in statement(stmt) {
            let mut candidate = block.clone();
            candidate.stmts[index] = replacement;
            out.push(candidate);
        }
    }
    if let Some(tail) = &block.tail {
        // A tail of type `()` can go; a tail that diverges can become a statement.
        let mut without = block.clone();
        without.tail = None;
        out.push(without.clone());
        without.stmts.push(Stmt::Expr((**tail).clone()));
        out.push(without);
        for replacement in expr(tail) {
            let mut candidate = block.clone();
            candidate.tail = Some(Box::new(replacement));
            out.push(candidate);
        }
    }
    out
}

fn statement(stmt: &Stmt) -> Vec<Stmt> {
    match stmt {
        Stmt::Let(pat, init) => {
            let mut out: Vec<Stmt> = expr(init).into_iter().map(|init| Stmt::Let(pat.clone(), init)).collect();
            // Fewer bindings: a tuple pattern's names become `_`, a name loses its `mut`.
            match pat {
                Pat::Tuple(items) => {
                    for index in 0..items.len() {
                        if items[index].is_some() {
                            let mut items = items.clone();
                            items[index] = None;
                            out.push(Stmt::Let(Pat::Tuple(items), init.clone()));
                        }
                    }
                }
                Pat::Bind(binding) if binding.mutable || binding.annotated.is_some() => {
                    if binding.annotated.is_some() {
                        let bare = Binding { annotated: None, ..binding.clone() };
                        out.push(Stmt::Let(Pat::Bind(bare), init.clone()));
                    }
                    if binding.mutable {
                        let fixed = Binding { mutable: false, ..binding.clone() };
                        out.push(Stmt::Let(Pat::Bind(fixed), init.clone()));
                    }
                }
                _ => {}
            }
            out.push(Stmt::Expr(init.clone()));
            out
        }
        Stmt::Assign(name, op, value) => {
            let mut out: Vec<Stmt> =
                expr(value).into_iter().map(|value| Stmt::Assign(name.clone(), *op, value)).collect();
            out.push(Stmt::Expr(value.clone()));
            out
        }
        Stmt::Expr(value) => expr(value).into_iter().map(Stmt::Expr).collect(),
        Stmt::LetElse(binding, init, otherwise) => {
            let mut out: Vec<Stmt> =
                expr(init).into_iter().map(|init| Stmt::LetElse(binding.clone(), init, otherwise.clone())).collect();
            out.extend(
                block(otherwise).into_iter().map(|otherwise| Stmt::LetElse(binding.clone(), init.clone(), otherwise)),
            );
            out.push(Stmt::Expr(init.clone()));
            out
        }
        Stmt::Item(..) => Vec::new(),
        Stmt::Declare(name, value) => {
            let mut out: Vec<Stmt> = expr(value).into_iter().map(|value| Stmt::Declare(name.clone(), value)).collect();
            // The function's own `let` in place of the macro's.
            out.push(Stmt::Let(
                Pat::Bind(Binding { name: name.clone(), mutable: false, annotated: None }),
                value.clone(),
            ));
            out.push(Stmt::Expr(value.clone()));
            out
        }
    }
}

/// One edit away from `expr`: the checker sorts out which keep the program well-typed.
fn expr(expr: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    let simplest = [Expr::Lit(0), Expr::Bool(false), Expr::Ok(Box::new(Expr::Lit(0))), Expr::NewLoud("z".to_owned())];
    if !matches!(expr, Expr::Lit(0) | Expr::Bool(false) | Expr::NewLoud(_)) {
        out.extend(simplest);
    }
    // A part in place of the whole.
    out.extend(children(expr).into_iter().cloned());
    out.extend(blocks(expr).into_iter().map(|block| Expr::Block(block.clone())));
    out.extend(own_edits(expr));
    // An edit inside a part.
    for (index, child) in children(expr).into_iter().enumerate() {
        for replacement in self::expr(child) {
            let mut candidate = expr.clone();
            *children_mut(&mut candidate).swap_remove(index) = replacement;
            out.push(candidate);
        }
    }
    for (index, inner) in blocks(expr).into_iter().enumerate() {
        for replacement in block(inner) {
            let mut candidate = expr.clone();
            *blocks_mut(&mut candidate).swap_remove(index) = replacement;
            out.push(candidate);
        }
    }
    out
}

/// Edits of the node itself (not of its parts).
fn own_edits(expr: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    match expr {
        Expr::Await(Leaf::Later, label, value) => out.push(Expr::Await(Leaf::Now, label.clone(), value.clone())),
        // The same await, written in the function rather than by the macro.
        Expr::Await(Leaf::Pasted, label, value) => out.push(Expr::Await(Leaf::Later, label.clone(), value.clone())),
        // The same borrow without its suspension.
        Expr::WeighRef(name, true) => out.push(Expr::WeighRef(name.clone(), false)),
        Expr::WeighLater(name) => out.push(Expr::Weigh(name.clone())),
        Expr::UpperLater(label, Some(_)) => out.push(Expr::UpperLater(label.clone(), None)),
        // One element fewer, or a local's element a temporary.
        Expr::WeighAll(label, sources) if !sources.is_empty() => {
            for index in 0..sources.len() {
                let mut fewer = sources.clone();
                fewer.remove(index);
                out.push(Expr::WeighAll(label.clone(), fewer));
                if sources[index].is_some() {
                    let mut temporary = sources.clone();
                    temporary[index] = None;
                    out.push(Expr::WeighAll(label.clone(), temporary));
                }
            }
        }
        Expr::Lit(value) if *value > 0 => out.push(Expr::Lit(value - 1)),
        Expr::If(cond, then_branch, Some(_)) => out.push(Expr::If(cond.clone(), then_branch.clone(), None)),
        Expr::Match(scrutinee, arms) => {
            for index in 0..arms.len() {
                let mut arms = arms.clone();
                arms.remove(index);
                out.push(Expr::Match(scrutinee.clone(), arms));
            }
        }
        Expr::Labelled(_, body) => out.push(Expr::Block(body.clone())),
        // The macro's value without the macro; a stored closure or future made in place instead.
        Expr::Plain(value) => out.push((**value).clone()),
        Expr::Store(store, body) => {
            let other = match store {
                Store::Keep => Some(Store::MoveClosure),
                Store::Deferred => Some(Store::AsyncMove),
                Store::MoveClosure | Store::AsyncMove => None,
            };
            out.extend(other.map(|other| Expr::Store(other, body.clone())));
            if !store.is_future() {
                out.push(Expr::Note(
                    "stored".to_owned(),
                    Box::new(Expr::Apply(Box::new(Closure { kind: ClosureKind::Move, body: body.clone() }))),
                ));
            }
        }
        // The function form is taken wherever the method form is.
        Expr::IntoLen(name, CallForm::Method) => out.push(Expr::IntoLen(name.clone(), CallForm::Function)),
        Expr::SpendLater(name, CallForm::Method, value) => {
            out.push(Expr::SpendLater(name.clone(), CallForm::Function, value.clone()));
        }
        Expr::SpendLater(name, _, _) => out.push(Expr::IntoLen(name.clone(), CallForm::Function)),
        Expr::Event(event) => {
            for index in 0..event.fields.len() {
                let mut fewer = event.clone();
                fewer.fields.remove(index);
                out.push(Expr::Event(fewer));
            }
            if event.message.is_some() {
                out.push(Expr::Event(Box::new(Event { message: None, ..(**event).clone() })));
            }
        }
        Expr::Loop(node) => {
            let mut shorter = node.clone();
            match &mut shorter.kind {
                LoopKind::Loop { bound, .. } | LoopKind::While { bound, .. } if *bound > 0 => *bound -= 1,
                LoopKind::Louds { labels, .. } if labels.len() > 1 => drop(labels.pop()),
                LoopKind::Louds { leaf: leaf @ Some(_), .. } => *leaf = None,
                _ => {}
            }
            out.push(Expr::Loop(shorter));
        }
        _ => {}
    }
    out
}

//! Which jumps leave a piece of the lowered tree (`parse::ir`): a `break` or `continue` whose
//! loop or labelled block is not inside it, and how a statement that always leaves does.
//! `liveness` asks it; the plain code inside the tree is `syntax::jumps`'s.

use syn::visit::Visit;

use crate::classic::parse::ir::{Block, Expr, Let, Stmt};
pub(crate) use crate::classic::syntax::jumps::{Leave, Targets};
use crate::classic::syntax::jumps::{expr_leaves, jumps_out_of, panicking};

/// May this statement leave its block by `break` or `continue`? Jumps to a loop or a
/// labelled block inside the statement stay in it.
pub(crate) fn stmt_may_jump(stmt: &Stmt) -> bool {
    Targets::default().stmt_jumps(stmt)
}

/// A statement that is a call of one of the standard macros that panic (`panic!`,
/// `unreachable!`, `todo!`, `unimplemented!`), or an empty `match` (of a call that returns `!`,
/// `parse::diverging_calls`), maybe after what it awaits: nothing after it runs.
pub(crate) fn panics(stmt: &Stmt) -> bool {
    matches!(always_leaves(stmt), Some(Leave::Panic))
}

/// Does this statement always leave its block, and how: a `return`, `break` or `continue`,
/// or a panic, maybe after the values it awaits (`return f().await;` is taken apart into a
/// block of the lowering's own that computes its operands and then jumps).
pub(crate) fn always_leaves(stmt: &Stmt) -> Option<Leave> {
    match stmt {
        // (An empty `match`, as `expr_leaves` reads one, in the lowering's own form.)
        Stmt::Expr(Expr::Match(node), _) if node.arms.is_empty() => Some(Leave::Panic),
        // `return`, `break`, `continue`, a panic, a block of the user's that ends in one.
        Stmt::Expr(Expr::Plain(expr), _) | Stmt::Verbatim(syn::Stmt::Expr(expr, _)) => expr_leaves(expr),
        Stmt::Verbatim(syn::Stmt::Macro(node)) if panicking(&node.mac) => Some(Leave::Panic),
        // A statement taken apart for its awaits (`lower` gives such a block no span):
        // the values it awaits first, then itself. A block of the user's may leave early
        // (`{ if c { break; } panic!() }`).
        Stmt::Expr(Expr::Block(block), _) if block.label.is_none() && block.span.is_none() => {
            let (last, first) = block.stmts.split_last()?;
            // What it computes first: its operands, awaited or not, and the temporaries
            // they borrow (`__h0 = make()`), none of which leaves early by `break` or
            // `continue` (a `?` there returns, as the jump does).
            let computes = |stmt: &Stmt| match stmt {
                Stmt::Let(Let { init, diverge: None, .. }) => {
                    init.as_ref().is_none_or(|init| !Targets::default().expr_jumps(init))
                }
                Stmt::Expr(Expr::Plain(expr @ syn::Expr::Assign(_)), true) => !jumps_out_of(expr),
                _ => false,
            };
            if first.iter().all(computes) {
                return always_leaves(last);
            }
            // A panic whose operands may leave by one jump (`panic!("{}", if c { f().await }
            // else { break })`): that jump, or the panic, which leaves the function and reads
            // nothing. Either way nothing after the statement runs, and the jump's target is
            // where the code goes on.
            if !matches!(always_leaves(last), Some(Leave::Panic)) {
                return None;
            }
            let mut escaping = Vec::new();
            for stmt in first {
                Targets::default().stmt_escapes(stmt, &mut escaping);
            }
            escaping.dedup();
            match escaping.as_slice() {
                [only] => Some(only.clone()),
                _ => None,
            }
        }
        // A block of the user's that awaits (`{ panic!("{}", f().await); }`): its first
        // statement that always leaves, where none before it may leave by another jump.
        Stmt::Expr(Expr::Block(block), _) if block.label.is_none() => {
            for stmt in &block.stmts {
                if let Some(leave) = always_leaves(stmt) {
                    return Some(leave);
                }
                if stmt_may_jump(stmt) {
                    return None;
                }
            }
            None
        }
        _ => None,
    }
}

/// The jumps (`Break`s and `Continue`s) that leave these statements, in the order met.
pub(crate) fn stmts_escapes(targets: &Targets, stmts: &[Stmt]) -> Vec<Leave> {
    let mut out = Vec::new();
    for stmt in stmts {
        targets.stmt_escapes(stmt, &mut out);
    }
    out
}

/// The jumps that leave `expr`.
pub(crate) fn expr_escapes(expr: &Expr) -> Vec<Leave> {
    let mut out = Vec::new();
    Targets::default().expr_escapes(expr, &mut out);
    out
}

/// The lowered tree's questions, from the same targets as `syntax::jumps`'s.
impl Targets {
    /// The jumps that leave `stmt` (`Break`s and `Continue`s), in the order met.
    fn stmt_escapes(&self, stmt: &Stmt, out: &mut Vec<Leave>) {
        match stmt {
            Stmt::Let(node) => {
                if let Some(init) = &node.init {
                    self.expr_escapes(init, out);
                }
                if let Some(block) = &node.diverge {
                    out.extend(self.search(|jumps| jumps.visit_block(block)));
                }
            }
            Stmt::Expr(expr, _) => self.expr_escapes(expr, out),
            Stmt::Verbatim(stmt) => out.extend(self.search(|jumps| jumps.visit_stmt(stmt))),
        }
    }

    fn block_escapes(&self, block: &Block, out: &mut Vec<Leave>) {
        let inner = self.inside(block.label.as_ref(), false);
        for stmt in &block.stmts {
            inner.stmt_escapes(stmt, out);
        }
    }

    fn expr_escapes(&self, expr: &Expr, out: &mut Vec<Leave>) {
        match expr {
            Expr::Plain(expr) => out.extend(self.search(|jumps| jumps.visit_expr(expr))),
            Expr::Await(node) => out.extend(self.search(|jumps| jumps.visit_expr(&node.operand))),
            Expr::Block(block) => self.block_escapes(block, out),
            Expr::If(node) => {
                out.extend(self.search(|jumps| jumps.visit_expr(&node.cond)));
                self.block_escapes(&node.then_branch, out);
                if let Some(other) = &node.else_branch {
                    self.expr_escapes(other, out);
                }
            }
            Expr::Match(node) => {
                out.extend(self.search(|jumps| jumps.visit_expr(&node.scrutinee)));
                for arm in &node.arms {
                    self.block_escapes(&arm.body, out);
                }
            }
            Expr::Loop(node) => self.inside(node.label.as_ref(), true).block_escapes(&node.body, out),
        }
    }

    fn stmt_jumps(&self, stmt: &Stmt) -> bool {
        match stmt {
            Stmt::Let(node) => {
                node.init.as_ref().is_some_and(|init| self.expr_jumps(init))
                    || node.diverge.as_ref().is_some_and(|block| self.visit(|jumps| jumps.visit_block(block)))
            }
            Stmt::Expr(expr, _) => self.expr_jumps(expr),
            Stmt::Verbatim(stmt) => self.visit(|jumps| jumps.visit_stmt(stmt)),
        }
    }

    fn block_jumps(&self, block: &Block) -> bool {
        let inner = self.inside(block.label.as_ref(), false);
        block.stmts.iter().any(|stmt| inner.stmt_jumps(stmt))
    }

    pub(crate) fn expr_jumps(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Plain(expr) => self.syn_jumps(expr),
            Expr::Await(node) => self.syn_jumps(&node.operand),
            Expr::Block(block) => self.block_jumps(block),
            Expr::If(node) => {
                self.syn_jumps(&node.cond)
                    || self.block_jumps(&node.then_branch)
                    || node.else_branch.as_ref().is_some_and(|expr| self.expr_jumps(expr))
            }
            Expr::Match(node) => {
                self.syn_jumps(&node.scrutinee) || node.arms.iter().any(|arm| self.block_jumps(&arm.body))
            }
            Expr::Loop(node) => self.inside(node.label.as_ref(), true).block_jumps(&node.body),
        }
    }
}

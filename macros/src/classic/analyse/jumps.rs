//! Which jumps leave a piece of code: a `break` or `continue` whose loop or labelled block
//! is not inside it. `liveness` asks it of the lowered tree and of plain code; the
//! `rewrite` of plain code asks it of each jump it meets, to give the ones that leave their
//! code `emit`'s jump code.

use syn::visit::Visit;

use crate::classic::parse::ir::{Block, Expr, Stmt};

/// May this statement leave its block by `break` or `continue`? Jumps to a loop or a
/// labelled block inside the statement stay in it.
pub(crate) fn stmt_may_jump(stmt: &Stmt) -> bool {
    Targets::default().stmt_jumps(stmt)
}

/// Does plain code leave `expr` by `break` or `continue` (to a loop or block outside it)?
pub(crate) fn jumps_out_of(expr: &syn::Expr) -> bool {
    Targets::default().syn_jumps(expr)
}

/// The loops and labelled blocks around a jump, inside the code being asked about.
#[derive(Clone, Default)]
pub(crate) struct Targets {
    loops: u32,
    labels: Vec<String>,
}

impl Targets {
    /// Does a jump with this label (or none) leave the code?
    pub(crate) fn escapes(&self, label: Option<&syn::Lifetime>) -> bool {
        match label {
            Some(label) => !self.labels.contains(&label.ident.to_string()),
            None => self.loops == 0,
        }
    }

    /// The targets inside a loop (`is_loop`) or a block with this label.
    pub(crate) fn inside(&self, label: Option<&syn::Label>, is_loop: bool) -> Targets {
        let mut inner = self.clone();
        inner.loops += u32::from(is_loop);
        inner.labels.extend(label.map(|label| label.name.ident.to_string()));
        inner
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

    fn syn_jumps(&self, expr: &syn::Expr) -> bool {
        self.visit(|jumps| jumps.visit_expr(expr))
    }

    /// Runs a `Jumps` search from these targets.
    fn visit(&self, search: impl FnOnce(&mut Jumps)) -> bool {
        let mut jumps = Jumps { targets: self.clone(), escapes: false };
        search(&mut jumps);
        jumps.escapes
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

/// Finds a `break` or `continue` that leaves the code visited.
struct Jumps {
    targets: Targets,
    escapes: bool,
}

impl Jumps {
    fn nested(&mut self, label: Option<&syn::Label>, is_loop: bool, visit: impl FnOnce(&mut Self)) {
        let inner = self.targets.inside(label, is_loop);
        let outer = std::mem::replace(&mut self.targets, inner);
        visit(self);
        self.targets = outer;
    }
}

impl<'ast> Visit<'ast> for Jumps {
    fn visit_expr_break(&mut self, node: &'ast syn::ExprBreak) {
        self.escapes |= self.targets.escapes(node.label.as_ref());
        syn::visit::visit_expr_break(self, node);
    }
    fn visit_expr_continue(&mut self, node: &'ast syn::ExprContinue) {
        self.escapes |= self.targets.escapes(node.label.as_ref());
    }
    fn visit_expr_loop(&mut self, node: &'ast syn::ExprLoop) {
        self.nested(node.label.as_ref(), true, |this| syn::visit::visit_block(this, &node.body));
    }
    fn visit_expr_while(&mut self, node: &'ast syn::ExprWhile) {
        // The condition is in the loop too: a `break` there ends it.
        self.nested(node.label.as_ref(), true, |this| {
            this.visit_expr(&node.cond);
            syn::visit::visit_block(this, &node.body);
        });
    }
    fn visit_expr_for_loop(&mut self, node: &'ast syn::ExprForLoop) {
        self.visit_expr(&node.expr);
        self.nested(node.label.as_ref(), true, |this| syn::visit::visit_block(this, &node.body));
    }
    fn visit_expr_block(&mut self, node: &'ast syn::ExprBlock) {
        self.nested(node.label.as_ref(), false, |this| syn::visit::visit_block(this, &node.block));
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

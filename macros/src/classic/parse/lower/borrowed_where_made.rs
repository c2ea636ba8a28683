//! A hoisted temporary that the next statement borrows where Rust would make it
//! (`query(&[&oid]).await`, lowered to `__h0 = [&oid];` and `query(&__h0).await`): its assignment
//! moves into that borrow, `query(&(__h0 = [&oid])).await`, which `generate::places` writes as
//! the place's `assign_and_borrow`. The value is then computed where the plain code computes
//! it, with the type the borrow's context expects: `[&oid]` for a `&[&dyn ToSql]` unsizes each
//! element as it is made, a closure for a `&dyn Fn(u32) -> u32` gets its parameters' types,
//! where assigned first each would have its own type, which no later coercion changes.
//!
//! Nothing runs between the two statements, and the operands evaluated before the borrow in the
//! next one are those the lowering did not spill (the ones before a hoisted temporary are
//! spilled first): the order is Rust's. A temporary the next statement names more than once, or
//! inside a closure or an `async` block, stays assigned first.

use std::collections::HashSet;

use syn::visit_mut::{self, VisitMut};

use crate::classic::parse::ir::{Block, Expr, Let, Stmt};
use crate::classic::syntax::{each_ident, strip_parens};

/// Merges each hoisted temporary's assignment (of `hoisted`) into the borrow of the next
/// statement, in every block of the lowered body.
pub(super) fn merge(block: &mut Block, hoisted: &HashSet<String>) {
    for stmt in &mut block.stmts {
        match stmt {
            Stmt::Let(Let { init: Some(init), .. }) | Stmt::Expr(init, _) => merge_in(init, hoisted),
            Stmt::Let(_) | Stmt::Verbatim(_) => {}
        }
    }
    // From the end: `f(&[&a], &[&b])` merges `__h1`, then `__h0`, into the same call.
    let mut index = block.stmts.len();
    while index >= 2 {
        index -= 1;
        let Some((name, value)) = hoisted_assignment(&block.stmts[index - 1], hoisted) else { continue };
        let Some(next) = first_expression(&mut block.stmts[index]) else { continue };
        let mut mentions = 0;
        each_ident(quote::ToTokens::to_token_stream(&*next), &mut |ident| mentions += usize::from(ident == name));
        if mentions != 1 {
            continue;
        }
        let mut borrow = Borrow { name: &name, value: Some(value), merged: false };
        borrow.visit_expr_mut(next);
        if borrow.merged {
            block.stmts.remove(index - 1);
        }
    }
}

fn merge_in(expr: &mut Expr, hoisted: &HashSet<String>) {
    match expr {
        Expr::Plain(_) | Expr::Await(_) => {}
        Expr::Block(block) => merge(block, hoisted),
        Expr::If(node) => {
            merge(&mut node.then_branch, hoisted);
            if let Some(other) = &mut node.else_branch {
                merge_in(other, hoisted);
            }
        }
        Expr::Match(node) => node.arms.iter_mut().for_each(|arm| merge(&mut arm.body, hoisted)),
        Expr::Loop(node) => merge(&mut node.body, hoisted),
    }
}

/// `__hN = value;`, a hoisted temporary assigned: the temporary's name and its value.
fn hoisted_assignment(stmt: &Stmt, hoisted: &HashSet<String>) -> Option<(String, syn::Expr)> {
    let Stmt::Expr(Expr::Plain(syn::Expr::Assign(assign)), true) = stmt else { return None };
    let syn::Expr::Path(path) = &*assign.left else { return None };
    let name = path.path.get_ident()?.to_string();
    hoisted.contains(&name).then(|| (name, (*assign.right).clone()))
}

/// The code a statement evaluates first, where a borrow made by its operands is: an awaited
/// operand, or an expression without awaits.
fn first_expression(stmt: &mut Stmt) -> Option<&mut syn::Expr> {
    match stmt {
        Stmt::Let(Let { init: Some(Expr::Await(node)), .. }) | Stmt::Expr(Expr::Await(node), _) => {
            Some(&mut node.operand)
        }
        Stmt::Let(Let { init: Some(Expr::Plain(expr)), .. }) | Stmt::Expr(Expr::Plain(expr), _) => Some(expr),
        _ => None,
    }
}

/// Replaces `&name` (or `&mut name`) outside closures and `async` blocks with
/// `&(name = value)`.
struct Borrow<'n> {
    name: &'n str,
    value: Option<syn::Expr>,
    merged: bool,
}

impl VisitMut for Borrow<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::Reference(node) = expr
            && let syn::Expr::Path(path) = strip_parens(&node.expr)
            && path.path.is_ident(self.name)
            && let Some(value) = self.value.take()
        {
            let left = (*node.expr).clone();
            *node.expr = syn::parse_quote!((#left = #value));
            self.merged = true;
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

//! Macros the user names in an `awaits(..)` or `returns(..)` hint: their expansion awaits in
//! the function's own context (`macro_rules! read_exact { .. $s.read_exact(&mut b).await .. }`,
//! or a macro that pastes tokens holding an `.await`: `cfg_unix! { f().await; }`), which
//! `move_next` is not (E0728), or returns from the function (`ensure!(c, e)`, a `?` in its
//! body), which `move_next` is not either (its `return` has `move_next`'s type). The lowering
//! sees a macro's tokens, not its expansion, and cannot tell such a macro from one whose awaits
//! are its own (`stream! { .. }`); rustc's error says which it was, and `inspect crate` gives
//! the hint from it. Each invocation becomes an `async` block the state machine awaits:
//!
//! - where the macro's value is the function's (the body's tail, through blocks and `if` and
//!   `match` arms; a `return`'s operand; the last statement of a function returning `()`),
//!   `async { m!(..) }.await`: a `return` or `?` of the expansion leaves the block with what
//!   the function would have returned, which the function returns;
//! - elsewhere, the block's output is the function's result too, and the macro's value, where
//!   the expansion goes on, is put in a cell of the function's, after which the block waits
//!   forever; `lowering::__private::Expansion` tells the two apart (`runtime/src/expansion.rs`).
//!   A statement that ends a block without a tail (`Err(_) => { fail!(..); }`) is that
//!   block's value as the statement is in Rust: `{ fail!(..); }`, `()`, or `!` where the
//!   expansion always returns, so that a block the function's other paths give a value keeps
//!   that type.
//!
//! A `break` or `continue` of the expansion to a loop of the function is rustc's error in the
//! block (E0267), never other code; a local the expansion declares ends with the block. A
//! hinted macro that neither awaits nor returns runs the same, through one more future (its
//! block completes in the poll that starts it: no suspension is added).

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use crate::classic::hints;

/// Rewrites the invocations of the macros a hint names; `returns_unit`: the function returns
/// `()`, so that the end of its last statement is its return.
pub(crate) fn rewrite(block: &mut syn::Block, returns_unit: bool, krate: &syn::Path) {
    if !hints::any_expansions() {
        return;
    }
    let mut rewriter = Rewriter { krate };
    rewriter.tail_of_body(block, returns_unit);
    rewriter.visit_block_mut(block);
}

struct Rewriter<'k> {
    krate: &'k syn::Path,
}

/// An invocation of a macro a hint names.
fn is_hinted(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|segment| hints::runs_apart(&segment.ident.to_string()))
}

/// `async { #code }.await`, spanned at the macro.
fn awaited_block(code: TokenStream, span: Span) -> syn::Expr {
    syn::parse_quote_spanned!(span=> async { #code }.await)
}

impl Rewriter<'_> {
    /// The function's last statement, and the tails its value comes from.
    fn tail_of_body(&mut self, block: &mut syn::Block, returns_unit: bool) {
        let Some(last) = block.stmts.last_mut() else {
            return;
        };
        match last {
            syn::Stmt::Expr(expr, None) => self.tail(expr),
            syn::Stmt::Macro(node) if returns_unit && is_hinted(&node.mac) => {
                let span = node.mac.path.span();
                let stmt = last.to_token_stream();
                *last = syn::Stmt::Expr(awaited_block(stmt, span), Some(syn::Token![;](span)));
            }
            _ => {}
        }
    }

    /// An expression whose value is the function's.
    fn tail(&mut self, expr: &mut syn::Expr) {
        match expr {
            syn::Expr::Macro(node) if is_hinted(&node.mac) => {
                let span = node.mac.path.span();
                *expr = awaited_block(expr.to_token_stream(), span);
            }
            syn::Expr::Paren(node) => self.tail(&mut node.expr),
            syn::Expr::Block(node) if node.label.is_none() => self.tail_of_block(&mut node.block),
            syn::Expr::Unsafe(node) => self.tail_of_block(&mut node.block),
            syn::Expr::If(node) => {
                self.tail_of_block(&mut node.then_branch);
                if let Some((_, otherwise)) = &mut node.else_branch {
                    self.tail(otherwise);
                }
            }
            syn::Expr::Match(node) => node.arms.iter_mut().for_each(|arm| self.tail(&mut arm.body)),
            _ => {}
        }
    }

    fn tail_of_block(&mut self, block: &mut syn::Block) {
        if let Some(syn::Stmt::Expr(expr, None)) = block.stmts.last_mut() {
            self.tail(expr);
        }
    }

    /// The invocation `code` (an expression, or a statement when `statement`) where its value
    /// is not the function's: the block returns what the function returns, or puts the
    /// macro's value in a cell and waits. (A statement ending a block is an expression of
    /// the block's value, `{ m!(..); }`: `visit_block_mut`.)
    fn awaited_apart(&self, code: TokenStream, statement: bool, span: Span) -> syn::Expr {
        let krate = self.krate;
        let hygienic = |name: &str| syn::Ident::new(name, Span::mixed_site().located_at(span));
        // (The cell is a local of the function's, which the lowering keeps in place as any
        // local borrowed across an await: not one of its own `__` temporaries.)
        let (cell, value, returned) =
            (hygienic("lowering_expansion_value"), hygienic("__value"), hygienic("__returned"));
        let put = if statement {
            quote_spanned!(span=> #code #cell.set(::core::option::Option::Some(()));)
        } else {
            quote_spanned!(span=> #cell.set(::core::option::Option::Some(#code));)
        };
        syn::parse_quote_spanned!(span=> {
            let #cell = ::core::cell::Cell::new(::core::option::Option::None);
            match #krate::__private::expansion(&#cell, async {
                #put
                ::core::future::pending().await
            })
            .await
            {
                ::core::ops::ControlFlow::Continue(#value) => #value,
                ::core::ops::ControlFlow::Break(#returned) => return #returned,
            }
        })
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        match expr {
            syn::Expr::Macro(node) if is_hinted(&node.mac) => {
                let span = node.mac.path.span();
                *expr = self.awaited_apart(expr.to_token_stream(), false, span);
            }
            syn::Expr::Return(node)
                if node
                    .expr
                    .as_deref()
                    .is_some_and(|operand| matches!(operand, syn::Expr::Macro(inner) if is_hinted(&inner.mac))) =>
            {
                let operand = node.expr.as_mut().expect("an operand");
                let span = operand.span();
                **operand = awaited_block(operand.to_token_stream(), span);
            }
            syn::Expr::Macro(node) => {
                crate::classic::syntax::std_macros::visit_arguments(&mut node.mac, |argument| {
                    self.visit_expr_mut(argument)
                });
            }
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let ends_in_hinted_statement = matches!(block.stmts.last(), Some(syn::Stmt::Macro(node))
            if node.semi_token.is_some() && is_hinted(&node.mac));
        if !ends_in_hinted_statement {
            return visit_mut::visit_block_mut(self, block);
        }
        let Some(syn::Stmt::Macro(mut last)) = block.stmts.pop() else { unreachable!("a macro statement") };
        visit_mut::visit_block_mut(self, block);
        let span = last.mac.path.span();
        let attrs = std::mem::take(&mut last.attrs);
        let value = self.awaited_apart(quote_spanned!(span=> { #last }), false, span);
        block.stmts.push(syn::parse_quote_spanned!(span=> #(#attrs)* #value));
    }

    fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
        if let syn::Stmt::Macro(node) = stmt
            && is_hinted(&node.mac)
        {
            let span = node.mac.path.span();
            let attrs = std::mem::take(&mut node.attrs);
            let expr = self.awaited_apart(stmt.to_token_stream(), true, span);
            *stmt = syn::parse_quote_spanned!(span=> #(#attrs)* #expr);
            return;
        }
        visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        crate::classic::syntax::std_macros::visit_arguments(mac, |argument| self.visit_expr_mut(argument));
    }

    // A closure's, an async block's or an item's code is plain Rust: a macro there awaits and
    // returns in its context, not the function's.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

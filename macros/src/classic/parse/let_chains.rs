//! Awaits in `let` chains (edition 2024): `if let Some(a) = x && let Some(b) = f(a).await`.
//! A chain is one test, and a state machine cannot resume inside a test, so an `if` (or a
//! `while`) whose chain awaits is written as the nested `if`s it means before the lowering
//! sees it, each with one condition, whose awaits the lowering then computes first:
//!
//! ```text
//! 'chain: {                                   // if C1 && let P = E2.await && C3 { A } else { B }
//!     if C1 { if let P = E2.await { if C3 { break 'chain { A }; } } }
//!     { B }
//! }
//! ```
//!
//! The conditions run in order and stop at the first that fails, as a chain's do; the `then`
//! block runs with every binding in scope, each condition's temporaries alive until the block
//! leaves, and are dropped before the `else` block runs, as in edition 2024. A `while` becomes
//! `loop { if C { body } else { break } }` first.

use proc_macro2::Span;
use quote::{format_ident, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use super::awaits;

use crate::classic::syntax::chain_operands;

/// Rewrites every `if` and `while` of `block` whose `let` chain awaits (not inside closures,
/// async blocks or items).
pub(crate) fn rewrite(block: &mut syn::Block) {
    Rewriter { chains: 0 }.visit_block_mut(block);
}

struct Rewriter {
    /// How many chains were rewritten so far (their labels' suffix).
    chains: usize,
}

impl VisitMut for Rewriter {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        visit_mut::visit_expr_mut(self, expr);
        match expr {
            syn::Expr::If(node) if is_awaiting_chain(&node.cond) => {
                *expr = self.nested(node);
            }
            syn::Expr::While(node) if is_awaiting_chain(&node.cond) => {
                let span = node.while_token.span;
                let (label, cond, body, attrs) = (&node.label, &node.cond, &node.body, &node.attrs);
                let mut looped: syn::ExprIf = syn::parse_quote_spanned!(span=> if #cond #body else { break });
                let inner = self.nested(&mut looped);
                *expr = syn::parse_quote_spanned!(span=> #(#attrs)* #label loop { #inner });
            }
            _ => {}
        }
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Rewriter {
    fn nested(&mut self, node: &mut syn::ExprIf) -> syn::Expr {
        let span = node.if_token.span;
        let label = syn::Lifetime {
            apostrophe: Span::mixed_site(),
            ident: format_ident!("__lowering_chain{}", self.chains, span = Span::mixed_site()),
        };
        self.chains += 1;
        let then_branch = &node.then_branch;
        let mut inner: syn::Expr = syn::parse_quote_spanned!(then_branch.span()=> break #label #then_branch);
        for condition in chain_operands(&node.cond).into_iter().rev() {
            inner = syn::parse_quote_spanned!(condition.span()=> if #condition { #inner; });
        }
        let otherwise = match &node.else_branch {
            Some((_, other)) => quote_spanned!(span=> #other),
            None => quote_spanned!(span=> ()),
        };
        let attrs = &node.attrs;
        syn::parse_quote_spanned!(span=> #(#attrs)* #label: { #inner; #otherwise })
    }
}

/// A condition that is a `let` chain (`&&` with a `let` among its operands) and awaits.
fn is_awaiting_chain(cond: &syn::Expr) -> bool {
    let conditions = chain_operands(cond);
    conditions.len() > 1
        && conditions.iter().any(|condition| matches!(condition, syn::Expr::Let(_)))
        && awaits::in_expr(cond)
}

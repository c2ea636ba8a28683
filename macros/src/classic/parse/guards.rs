//! Awaits in match guards (`n if check(n).await => ..`). A guard is part of the `match`'s
//! test, and a state machine cannot resume inside a test, so a `match` with such a guard is
//! written in two steps before the lowering sees it:
//!
//! ```text
//! let __arm = 'arm: {                         // 1. which arm: in order, each guard once
//!     if let &P0 = &place { if g0.await { break 'arm 0; } }
//!     if let &P1 = &place { break 'arm 1; }
//!     unreachable!()
//! };
//! match place { P0 if __arm == 0 => a0, P1 if __arm == 1 => a1, _ => unreachable!() }
//! ```
//!
//! Step 1 tests the patterns through a shared reference, so nothing moves until step 2 binds
//! the chosen arm as the original `match` does. `&P` against `&place` gives each binding the
//! type the guard sees in Rust: a copy of a `Copy` value, a reference where the scrutinee is
//! one. (A guard that uses a binding of a non-`Copy` value by value is rustc's E0507 at that
//! binding; `ref name` in the pattern, which rustc suggests, gives the guard the reference it
//! sees in Rust too.) The scrutinee is evaluated once: a place (`x`, `self.state`, `*r`) is
//! matched where it is; any other value is bound first by a `match` of one arm around both
//! steps (`match value { __scrutinee => { 1; 2 } }`), so that its temporaries live to the end
//! of the whole `match`, as they do in Rust.

use std::collections::HashSet;

use proc_macro2::Span;
use quote::{ToTokens, format_ident, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use super::awaits;

/// Rewrites every `match` of `block` (not inside closures, async blocks or items; inside a
/// standard macro's arguments too) with an await in a guard.
pub(crate) fn rewrite(block: &mut syn::Block) {
    Rewriter { matches: 0 }.visit_block_mut(block);
}

struct Rewriter {
    /// How many `match`es were rewritten so far (their hidden names' suffix).
    matches: usize,
}

impl VisitMut for Rewriter {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        // Inner expressions first: a `match` in an arm is rewritten on its own.
        visit_mut::visit_expr_mut(self, expr);
        if let syn::Expr::Match(node) = expr
            && node.arms.iter().any(|arm| guard(arm).is_some_and(awaits::in_expr))
        {
            *expr = self.two_steps(node);
        }
    }

    /// A `match` inside a standard macro's arguments (`panic!("{}", match ..)`) is lowered
    /// like any other.
    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        crate::classic::syntax::std_macros::visit_arguments(mac, |expr| self.visit_expr_mut(expr));
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

fn guard(arm: &syn::Arm) -> Option<&syn::Expr> {
    match &arm.pat {
        syn::Pat::Guard(guarded) => Some(&guarded.guard),
        _ => None,
    }
}

fn unguarded(pat: &syn::Pat) -> &syn::Pat {
    match pat {
        syn::Pat::Guard(guarded) => &guarded.pat,
        pat => pat,
    }
}

impl Rewriter {
    fn two_steps(&mut self, node: &syn::ExprMatch) -> syn::Expr {
        let span = node.match_token.span;
        let hidden =
            |name: &str| format_ident!("__{}{}", name, self.matches, span = Span::mixed_site().located_at(span));
        let arm_index = hidden("arm");
        let scrutinee_local = hidden("scrutinee");
        let label = syn::Lifetime::new(&format!("'__arm{}", self.matches), Span::mixed_site().located_at(span));
        self.matches += 1;

        let scrutinee = &node.expr;
        // A value is bound by a `match` of its own rather than a `let`: the temporaries of
        // the scrutinee then live to the end of the whole `match`, as in Rust.
        let place: syn::Expr =
            if is_place(scrutinee) { (**scrutinee).clone() } else { syn::parse_quote!(#scrutinee_local) };

        let tests = node.arms.iter().enumerate().map(|(index, arm)| {
            let pat = &only_bindings_of(unguarded(&arm.pat), guard(arm));
            let pat_span = pat.span();
            match guard(arm) {
                Some(guard) => quote_spanned!(pat_span=>
                    if let &(#pat) = &#place {
                        if #guard {
                            break #label #index;
                        }
                    }
                ),
                None => quote_spanned!(pat_span=>
                    if let &(#pat) = &#place {
                        break #label #index;
                    }
                ),
            }
        });
        let arms = node.arms.iter().enumerate().map(|(index, arm)| {
            let (attrs, pat, body) = (&arm.attrs, unguarded(&arm.pat), &arm.body);
            quote_spanned!(arm.pat.span()=> #(#attrs)* #pat if #arm_index == #index => #body,)
        });
        let attrs = &node.attrs;
        let steps = |matched: &syn::Expr| -> syn::Expr {
            syn::parse_quote_spanned!(span=> {
                #[allow(irrefutable_let_patterns, unused_variables, unreachable_code)]
                let #arm_index: usize = #label: {
                    #(#tests)*
                    ::core::unreachable!("lowering: no arm of a match took its value")
                };
                #(#attrs)*
                match #matched {
                    #(#arms)*
                    #[allow(unreachable_patterns)]
                    _ => ::core::unreachable!("lowering: no arm of a match took its value"),
                }
            })
        };
        if is_place(scrutinee) {
            steps(&place)
        } else {
            // The value is matched by value in step 2, as the original temporary was: its
            // arms may move parts of it and bind others by `ref`.
            let steps = steps(&syn::parse_quote!({ #place }));
            syn::parse_quote_spanned!(span=> match #scrutinee { #scrutinee_local => #steps })
        }
    }
}

/// `pat` for step 1: the bindings `guard` does not name become `_`, so that testing the
/// pattern through a reference moves nothing (a binding used by value only in its arm, as
/// `Some(word) => consume(word)`, is bound in step 2). A name that starts with an upper-case
/// letter is kept: it is a constant or a unit variant.
fn only_bindings_of(pat: &syn::Pat, guard: Option<&syn::Expr>) -> syn::Pat {
    let mut named = HashSet::new();
    if let Some(guard) = guard {
        crate::classic::syntax::each_ident(guard.to_token_stream(), &mut |ident| {
            named.insert(ident);
        });
    }
    crate::classic::syntax::bindings::blank_bindings(pat, |ident| {
        crate::classic::syntax::bindings::may_bind(ident) && !named.contains(&ident.ident.to_string())
    })
}

/// A place expression without side effects: matched where it is, twice.
fn is_place(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Path(path) => path.qself.is_none(),
        syn::Expr::Field(field) => is_place(&field.base),
        syn::Expr::Paren(paren) => is_place(&paren.expr),
        syn::Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => is_place(&unary.expr),
        _ => false,
    }
}

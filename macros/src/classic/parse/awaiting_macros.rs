//! Macros that expand to their own `.await` (`futures::join!`, `tokio::try_join!`,
//! `select!`): inside a classic body the await would land in `move_next`, which is no `async`
//! context (E0728). `join!` and `try_join!` become an awaited call with their semantics
//! (`lowering::__private::join`: the futures created in order, polled together); `select!`
//! is an error that says what to write instead. A macro inside an `async` block or a closure
//! stays: that code is plain Rust.

use quote::quote_spanned;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

/// Rewrites the `join!`s of `block` and reports the `select!`s.
pub(crate) fn rewrite(block: &mut syn::Block, krate: &syn::Path) -> Vec<syn::Error> {
    let mut rewriter = Rewriter { krate, errors: Vec::new() };
    rewriter.visit_block_mut(block);
    rewriter.errors
}

struct Rewriter<'k> {
    krate: &'k syn::Path,
    errors: Vec<syn::Error>,
}

enum Awaiting {
    Join,
    TryJoin,
    Select,
}

fn awaiting(mac: &syn::Macro) -> Option<Awaiting> {
    let name = mac.path.segments.last()?.ident.to_string();
    match name.as_str() {
        "join" => Some(Awaiting::Join),
        "try_join" => Some(Awaiting::TryJoin),
        "select" | "select_biased" => Some(Awaiting::Select),
        _ => None,
    }
}

impl Rewriter<'_> {
    /// The awaited call for a `join!`/`try_join!`, or `None` after reporting an error.
    fn replacement(&mut self, mac: &syn::Macro) -> Option<syn::Expr> {
        let kind = awaiting(mac)?;
        let name = mac.path.segments.last().map(|segment| segment.ident.to_string()).unwrap_or_default();
        let span = mac.path.span();
        if let Awaiting::Select = kind {
            self.errors.push(syn::Error::new(
                span,
                format!(
                    "classic lowering: `{name}!` expands to its own polling loop and awaits, which a \
                     classic state machine cannot split into states; await an `async` block that \
                     selects (`async {{ {name}! {{ .. }} }}.await`: a `return` or `break` in an arm \
                     then leaves that block, not the function), or await \
                     `futures::future::select(a, b)`"
                ),
            ));
            return None;
        }
        // `tokio::join!(biased; a, b)`: these futures are polled in order anyway.
        let tokens: Vec<proc_macro2::TokenTree> = mac.tokens.clone().into_iter().collect();
        let tokens: proc_macro2::TokenStream = match tokens.as_slice() {
            [proc_macro2::TokenTree::Ident(biased), proc_macro2::TokenTree::Punct(semi), rest @ ..]
                if biased == "biased" && semi.as_char() == ';' =>
            {
                rest.iter().cloned().collect()
            }
            _ => mac.tokens.clone(),
        };
        let futures = match Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(tokens) {
            Ok(futures) => futures,
            Err(error) => {
                self.errors.push(error);
                return None;
            }
        };
        if futures.is_empty() || futures.len() > 6 {
            self.errors.push(syn::Error::new(
                span,
                format!(
                    "classic lowering: `{name}!` is lowered for 1 to 6 futures; join more in \
                     groups (`{name}!({name}!(a, b, ..), ..)` in an `async` block) or in a plain \
                     `async` block awaited by the function"
                ),
            ));
            return None;
        }
        let krate = self.krate;
        let futures = futures.iter();
        let function = match kind {
            Awaiting::TryJoin => quote_spanned!(span=> try_join),
            _ => quote_spanned!(span=> join),
        };
        Some(syn::parse_quote_spanned!(span=> #krate::__private::#function((#(#futures,)*)).await))
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::Macro(node) = expr {
            if let Some(replacement) = self.replacement(&node.mac) {
                *expr = replacement;
            }
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
        if let syn::Stmt::Macro(node) = stmt {
            if let Some(replacement) = self.replacement(&node.mac) {
                let semi = node.semi_token;
                *stmt = syn::Stmt::Expr(replacement, semi);
            }
            return;
        }
        visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

//! Macros that expand to their own `.await` (`futures::join!`, `tokio::try_join!`,
//! `select!`): inside a classic body the await would land in `move_next`, which is no `async`
//! context (E0728). `join!` and `try_join!` become an awaited call with their semantics
//! (`lowering::__private::join`: the futures created in order, polled together); `select!`
//! becomes an awaited `selectN(..)` and a `match` (`select`); the pinning macros become the
//! `let`s they expand to, so that the lowering sees the locals they declare (`pinning`). A
//! macro inside an `async` block or a closure stays: that code is plain Rust.

use quote::quote_spanned;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use super::{pinning, select};

/// Rewrites the awaiting and pinning macros of `block`; the errors are what cannot be lowered.
pub(crate) fn rewrite(block: &mut syn::Block, krate: &syn::Path) -> Vec<syn::Error> {
    let mut rewriter = Rewriter { krate, errors: Vec::new(), pinned: 0 };
    rewriter.visit_block_mut(block);
    rewriter.errors
}

struct Rewriter<'k> {
    krate: &'k syn::Path,
    errors: Vec<syn::Error>,
    /// How many values `pin!` has put in locals of their own so far (their names' suffix).
    pinned: usize,
}

enum Awaiting {
    Join,
    TryJoin,
    Select,
}

/// Does the macro expand to an await of its own (`join!`, `try_join!`, `select!`)?
pub(crate) fn is_awaiting(mac: &syn::Macro) -> bool {
    awaiting(mac).is_some()
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
            return match select::expand(mac, self.krate) {
                Ok(expr) => Some(expr),
                Err(error) => {
                    self.errors.push(error);
                    None
                }
            };
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

impl Rewriter<'_> {
    /// A standard macro's arguments (`format!`, `vec!`, `assert!`, ..) are expressions the
    /// lowering takes apart: the awaiting macros among them are rewritten too
    /// (`vec![join!(a, b).0]`). Any other macro's tokens stay as written.
    fn inside_standard_macro(&mut self, mac: &mut syn::Macro) {
        crate::classic::syntax::std_macros::visit_arguments(mac, |expr| self.visit_expr_mut(expr));
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::Macro(node) = expr {
            if let Some(replacement) = self.replacement(&node.mac) {
                *expr = replacement;
                // The futures and handlers it holds may hold more such macros.
                visit_mut::visit_expr_mut(self, expr);
            } else {
                self.inside_standard_macro(&mut node.mac);
            }
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        self.inside_standard_macro(mac);
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let stmts = std::mem::take(&mut block.stmts);
        for stmt in stmts {
            match pinning::expand(&stmt, &mut self.pinned) {
                Some(Ok(lets)) => pinning::merge(&mut block.stmts, lets),
                Some(Err(error)) => {
                    self.errors.push(error);
                    block.stmts.push(stmt);
                }
                None => block.stmts.push(stmt),
            }
        }
        visit_mut::visit_block_mut(self, block);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
        if let syn::Stmt::Macro(node) = stmt {
            if let Some(replacement) = self.replacement(&node.mac) {
                let semi = node.semi_token;
                *stmt = syn::Stmt::Expr(replacement, semi);
                visit_mut::visit_stmt_mut(self, stmt);
            } else {
                self.inside_standard_macro(&mut node.mac);
            }
            return;
        }
        visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

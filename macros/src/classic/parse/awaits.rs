//! Where this function's awaits are: not inside closures, async blocks or nested items, which
//! own their awaits.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::visit::{self, Visit};

use crate::classic::syntax::std_macros;

pub(crate) fn in_expr(expr: &syn::Expr) -> bool {
    let mut finder = Finder { found: None };
    finder.visit_expr(expr);
    finder.found.is_some()
}

pub(crate) fn in_block(block: &syn::Block) -> bool {
    let mut finder = Finder { found: None };
    finder.visit_block(block);
    finder.found.is_some()
}

pub(crate) fn in_stmt(stmt: &syn::Stmt) -> bool {
    let mut finder = Finder { found: None };
    finder.visit_stmt(stmt);
    finder.found.is_some()
}

/// This function's first await among a macro's arguments: only a standard macro's are
/// (see `Finder::visit_macro`).
pub(crate) fn in_macro(mac: &syn::Macro) -> bool {
    let mut finder = Finder { found: None };
    finder.visit_macro(mac);
    finder.found.is_some()
}

/// The span of the first `.await` in a token stream (inside a macro invocation).
pub(crate) fn in_tokens(tokens: &TokenStream) -> Option<Span> {
    let mut previous_dot = false;
    for token in tokens.clone() {
        match &token {
            TokenTree::Ident(ident) if previous_dot && ident == "await" => {
                return Some(ident.span());
            }
            TokenTree::Group(group) => {
                if let Some(span) = in_tokens(&group.stream()) {
                    return Some(span);
                }
            }
            _ => {}
        }
        previous_dot = matches!(&token, TokenTree::Punct(punct) if punct.as_char() == '.');
    }
    None
}

struct Finder {
    found: Option<Span>,
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_expr_await(&mut self, node: &'ast syn::ExprAwait) {
        self.found.get_or_insert(node.await_token.span);
    }

    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}

    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}

    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        match std_macros::parse(mac) {
            // A standard macro whose arguments parse: look at them as expressions.
            Some(Ok(parsed)) => parsed.exprs().into_iter().for_each(|expr| self.visit_expr(expr)),
            // A standard macro whose arguments do not parse: rustc will say why; a `.await`
            // among them is this function's (and `lower` reports that it cannot be lowered).
            Some(Err(_)) => {
                if let Some(span) = in_tokens(&mac.tokens) {
                    self.found.get_or_insert(span);
                }
            }
            // Any other macro is left as written (`stream! { .. }`, `debug!(?value)`): the
            // awaits among its tokens are its own, inside the async block it expands to. One
            // that was this function's after all (a macro that pastes its argument) lands in
            // `move_next`, which is no async context: rustc refuses it there (E0728), at the
            // user's `.await`.
            None => {}
        }
    }

    fn visit_expr(&mut self, node: &'ast syn::Expr) {
        if self.found.is_none() {
            visit::visit_expr(self, node);
        }
    }
}

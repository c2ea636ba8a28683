//! Where this function's awaits are: not inside closures, async blocks or nested items, which
//! own their awaits.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::visit::{self, Visit};

use super::std_macros;

pub(crate) fn in_expr(expr: &syn::Expr) -> bool {
    let mut finder = Finder { found: None };
    finder.visit_expr(expr);
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
            // Any other macro: a `.await` among its tokens is this function's (and `lower`
            // reports that it cannot be lowered).
            _ => {
                if let Some(span) = in_tokens(&mac.tokens) {
                    self.found.get_or_insert(span);
                }
            }
        }
    }

    fn visit_expr(&mut self, node: &'ast syn::Expr) {
        if self.found.is_none() {
            visit::visit_expr(self, node);
        }
    }
}

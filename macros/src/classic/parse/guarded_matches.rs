//! `matches!(value, pattern if guard)` written as the `match` it stands for (`match value {
//! pattern if guard => true, _ => false }`, the standard macro's own expansion). The guard is
//! code of the function's that names its locals (`matches!(upstream, Some((a, _)) if *a ==
//! origin)`): as an arm's guard it is lowered, and a local living in place rewritten in it, as
//! anywhere else, with the pattern's bindings hiding the locals of their names. Kept as the
//! macro's tokens it would name the local's raw place (`Place<SocketAddr>`) instead.
//!
//! A `matches!` without a guard names no local outside its scrutinee, which the lowering reads
//! as an argument of the macro (`syntax::std_macros`): it stays as written.

use proc_macro2::{TokenStream, TokenTree};
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use crate::classic::syntax::std_macros;

/// Rewrites every guarded `matches!` of `block`, in closures and async blocks too (their code
/// is rewritten like the body's), not in items.
pub(crate) fn rewrite(block: &mut syn::Block) {
    Rewriter.visit_block_mut(block);
}

struct Rewriter;

impl VisitMut for Rewriter {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        visit_mut::visit_expr_mut(self, expr);
        if let syn::Expr::Macro(node) = expr
            && let Some(written) = as_match(&node.mac)
        {
            *expr = written;
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        std_macros::visit_arguments(mac, |expr| self.visit_expr_mut(expr));
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The `match` a guarded `matches!` stands for; `None` for any other macro.
fn as_match(mac: &syn::Macro) -> Option<syn::Expr> {
    let Some(Ok(parsed)) = std_macros::parse(mac) else { return None };
    let std_macros::Kind::Matches { expr, rest } = parsed.kind else { return None };
    let mut arm: Vec<TokenTree> = rest.into_iter().collect();
    if matches!(arm.last(), Some(TokenTree::Punct(punct)) if punct.as_char() == ',') {
        arm.pop();
    }
    if !arm.iter().any(|token| matches!(token, TokenTree::Ident(ident) if ident == "if")) {
        return None;
    }
    let arm: TokenStream = arm.into_iter().collect();
    let span = mac.span();
    syn::parse2(quote_spanned!(span=> match #expr { #arm => true, _ => false })).ok()
}

//! Destructuring assignments (`(buf, last) = f().await?;`, `[a, _] = ..`, `Pair { a, .. } =
//! ..`), written as Rust defines them before the lowering sees them:
//!
//! ```text
//! { let (__assigned0, __assigned1) = RIGHT; buf = __assigned0; last = __assigned1; }
//! ```
//!
//! The right side is evaluated first, then each place on the left is assigned in order, its
//! old value dropped there, as the reference desugars it. Every assignment the lowering then
//! meets is to one place (a local, kept in place or not, a field, an index), which it already
//! knows how to write.

use proc_macro2::Span;
use quote::{format_ident, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

/// Rewrites every destructuring assignment of `block` (not inside closures, async blocks or
/// items, whose code the lowering leaves as written; inside a standard macro's arguments too).
pub(crate) fn rewrite(block: &mut syn::Block) {
    Rewriter { next: 0 }.visit_block_mut(block);
}

struct Rewriter {
    /// How many places were bound so far (the hidden names' suffix).
    next: usize,
}

impl VisitMut for Rewriter {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        visit_mut::visit_expr_mut(self, expr);
        if let syn::Expr::Assign(node) = expr
            && destructures(&node.left)
        {
            let span = node.eq_token.span;
            let mut assignments = Vec::new();
            let pattern = self.pattern(&node.left, &mut assignments);
            let (attrs, right) = (&node.attrs, &node.right);
            let assignments = assignments.iter().map(|(place, bound)| quote_spanned!(place.span()=> #place = #bound;));
            *expr = syn::parse_quote_spanned!(span=> #(#attrs)* { let #pattern = #right; #(#assignments)* });
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        crate::classic::syntax::std_macros::visit_arguments(mac, |expr| self.visit_expr_mut(expr));
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Is this the left side of a destructuring assignment (a tuple, an array, a struct or a tuple
/// struct of places)?
fn destructures(left: &syn::Expr) -> bool {
    match left {
        syn::Expr::Paren(node) => destructures(&node.expr),
        syn::Expr::Tuple(_) | syn::Expr::Array(_) | syn::Expr::Struct(_) | syn::Expr::Call(_) => true,
        _ => false,
    }
}

impl Rewriter {
    /// The pattern `left` stands for, a hidden binding at each place it assigns; the places,
    /// with their bindings, in order.
    fn pattern(&mut self, left: &syn::Expr, places: &mut Vec<(syn::Expr, syn::Ident)>) -> proc_macro2::TokenStream {
        let span = left.span();
        match left {
            syn::Expr::Paren(node) => self.pattern(&node.expr, places),
            syn::Expr::Tuple(node) => {
                let elems: Vec<_> = node.elems.iter().map(|elem| self.pattern(elem, places)).collect();
                quote_spanned!(span=> (#(#elems,)*))
            }
            syn::Expr::Array(node) => {
                let elems: Vec<_> = node.elems.iter().map(|elem| self.pattern(elem, places)).collect();
                quote_spanned!(span=> [#(#elems),*])
            }
            syn::Expr::Call(node) => {
                let func = &node.func;
                let args: Vec<_> = node.args.iter().map(|arg| self.pattern(arg, places)).collect();
                quote_spanned!(span=> #func(#(#args),*))
            }
            syn::Expr::Struct(node) => {
                let path = &node.path;
                let fields: Vec<_> = node
                    .fields
                    .iter()
                    .map(|field| {
                        let member = &field.member;
                        let pattern = self.pattern(&field.expr, places);
                        quote_spanned!(field.span()=> #member: #pattern)
                    })
                    .collect();
                let rest = node.dot2_token.map(|dots| quote_spanned!(dots.span()=> ..));
                let comma = (!fields.is_empty() && rest.is_some()).then(|| quote_spanned!(span=> ,));
                quote_spanned!(span=> #path { #(#fields),* #comma #rest })
            }
            syn::Expr::Infer(_) => quote_spanned!(span=> _),
            syn::Expr::Range(range) if range.start.is_none() && range.end.is_none() => quote_spanned!(span=> ..),
            place => {
                let bound = format_ident!("__assigned{}", self.next, span = Span::mixed_site().located_at(span));
                self.next += 1;
                places.push((place.clone(), bound.clone()));
                quote_spanned!(span=> #bound)
            }
        }
    }
}

//! An awaited value used inside an expression (`f(ready(a).await)`, `Point { x: g().await }`,
//! `h().await?`) is computed into a temporary of the lowering (`parse::lower` spills it:
//! `let __t0 = ..; f(__t0)`), and the state machine's copy of the user's code reads the
//! temporary there. Written as a bare name, a type error at that operand would be rustc's
//! error at the argument check, pointing at the `.await` only ("arguments to this function are
//! incorrect"), where the plain function's, and so the twin's, is an error inside the await's
//! desugaring, at the whole `ready(a).await`, with no label. The temporary is read there as
//! the desugaring gives its value instead, `match __t0 { v => (v,).0 }`, spanned from the
//! operand's first token to the `await` keyword: the expected type then reaches the match arm,
//! the mismatch is reported there in the twin's words at the twin's place, and `cargo` prints
//! the two once.
//!
//! Only operands taken by value are read so (call and method arguments, fields of a struct
//! literal, elements of a tuple or an array, the operand of `?`, of an arithmetic operator, of
//! a cast or of `-`/`!`, an assigned, returned or `break` value): the `match` moves the
//! temporary, as the operand does. A place (a receiver, a borrowed or compared operand) stays
//! the temporary itself.

use std::collections::HashMap;

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream};
use quote::{ToTokens, quote};
use syn::visit_mut::{self, VisitMut};

use crate::classic::parse::lower::is_comparison;
use crate::classic::syntax::assignments;

/// Where the user wrote an await whose value a temporary holds.
#[derive(Clone, Copy)]
pub(super) struct AwaitedAt {
    /// The first token of the awaited operand.
    pub first: Span,
    /// The `await` keyword.
    pub keyword: Span,
}

impl AwaitedAt {
    pub(super) fn of(operand: &syn::Expr, keyword: Span) -> Self {
        let first = operand.to_token_stream().into_iter().next().map_or(keyword, |token| token.span());
        AwaitedAt { first, keyword }
    }
}

/// The value of `operand.await`, held by `hidden`, written so that rustc gives it the span of
/// the user's `operand.await` (`(hidden,).0`, from the operand's first token to the `await`
/// keyword): an error about it points where the twin's does, not at the attribute.
pub(super) fn as_user_value(hidden: &Ident, at: AwaitedAt) -> syn::Expr {
    let mut tuple = Group::new(Delimiter::Parenthesis, quote!(#hidden,));
    tuple.set_span(at.first);
    let mut index = proc_macro2::Literal::usize_unsuffixed(0);
    index.set_span(at.keyword);
    let mut dot = proc_macro2::Punct::new('.', proc_macro2::Spacing::Alone);
    dot.set_span(at.keyword);
    syn::Expr::Verbatim(quote!(#tuple #dot #index))
}

/// `match value { __lowering_awaited => (__lowering_awaited,).0 }`, the whole of it spanned as
/// the user's `operand.await`: a value an await's desugaring gives, whose type the context
/// checks at the arm, as rustc checks the plain function's.
pub(super) fn as_awaited(value: TokenStream, at: AwaitedAt) -> syn::Expr {
    let bound = Ident::new("__lowering_awaited", Span::mixed_site());
    let arm_value = as_user_value(&bound, at);
    let keyword = syn::Token![match](at.first);
    let mut arms = Group::new(Delimiter::Brace, quote!(#bound => #arm_value));
    arms.set_span(at.keyword);
    syn::Expr::Verbatim(quote!(#keyword #value #arms))
}

/// `expr` with each operand taken by value that names a temporary holding an awaited value
/// read as that value (`as_awaited`).
pub(super) fn read_as_awaited(mut expr: syn::Expr, temporaries: &HashMap<String, AwaitedAt>) -> syn::Expr {
    if !temporaries.is_empty() {
        Operands { temporaries }.visit_expr_mut(&mut expr);
    }
    expr
}

struct Operands<'t> {
    temporaries: &'t HashMap<String, AwaitedAt>,
}

impl Operands<'_> {
    fn by_value(&self, operand: &mut syn::Expr) {
        let syn::Expr::Path(path) = operand else { return };
        let Some(ident) = path.path.get_ident() else { return };
        if path.qself.is_some() || !path.attrs.is_empty() {
            return;
        }
        if let Some(at) = self.temporaries.get(&ident.to_string()) {
            *operand = as_awaited(ident.to_token_stream(), *at);
        }
    }
}

impl VisitMut for Operands<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        // The operands inside first: an operand replaced here is not visited again.
        visit_mut::visit_expr_mut(self, expr);
        match expr {
            syn::Expr::Call(node) => node.args.iter_mut().for_each(|arg| self.by_value(arg)),
            syn::Expr::MethodCall(node) => node.args.iter_mut().for_each(|arg| self.by_value(arg)),
            syn::Expr::Struct(node) => node.fields.iter_mut().for_each(|field| self.by_value(&mut field.expr)),
            syn::Expr::Tuple(node) => node.elems.iter_mut().for_each(|elem| self.by_value(elem)),
            syn::Expr::Array(node) => node.elems.iter_mut().for_each(|elem| self.by_value(elem)),
            syn::Expr::Try(node) => self.by_value(&mut node.expr),
            syn::Expr::Cast(node) => self.by_value(&mut node.expr),
            syn::Expr::Unary(node) if !matches!(node.op, syn::UnOp::Deref(_)) => self.by_value(&mut node.expr),
            // A comparison borrows its operands; `&&` and `||` are taken apart by the lowering.
            syn::Expr::Binary(node)
                if is_comparison(&node.op) || matches!(node.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {}
            // The left side of a compound assignment is a place.
            syn::Expr::Binary(node) if assignments::is_compound(&node.op) => self.by_value(&mut node.right),
            syn::Expr::Binary(node) => {
                self.by_value(&mut node.left);
                self.by_value(&mut node.right);
            }
            syn::Expr::Assign(node) => self.by_value(&mut node.right),
            syn::Expr::Return(node) => {
                if let Some(value) = node.expr.as_mut() {
                    self.by_value(value);
                }
            }
            syn::Expr::Break(node) => {
                if let Some(value) = node.expr.as_mut() {
                    self.by_value(value);
                }
            }
            _ => {}
        }
    }

    // Code that runs elsewhere, or later, holds no temporary of this statement.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

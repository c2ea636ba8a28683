//! Code under `#[cfg(..)]`: parameters (`async fn f(a: u32, #[cfg(feature = "x")] b: u32)`)
//! and, in the body, statements, struct literal fields and match arms
//! (`#[cfg(feature = "metrics")] let timer = start();`).
//!
//! A proc macro cannot evaluate a `cfg`, and the classic lowering names every local in the
//! code it generates (the state machine's fields, the saves and restores at each await, the
//! twin's bindings): a name that exists only under a feature would be named where it does not
//! exist. So a function with such code is lowered once per combination of its `cfg`
//! predicates, each copy under the `cfg` that selects it, with the code its combination leaves
//! out removed: exactly one copy survives, with exactly the code rustc keeps. (Code inside
//! closures, async blocks and nested items is emitted as written, and rustc's own `cfg`
//! applies there; it is pruned with the rest all the same.)

use std::collections::HashSet;

use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};

use crate::func::Function;

/// More distinct predicates than this would multiply the copies beyond reason.
const MAX_PREDICATES: usize = 4;

/// The copies of `function` to lower, or `None` when nothing in it is under `cfg`.
pub(crate) fn variants(function: &Function) -> syn::Result<Option<Vec<Function>>> {
    let mut found = Predicates::default();
    for input in &function.sig.inputs {
        let attrs = match input {
            syn::FnArg::Typed(typed) => &typed.attrs,
            syn::FnArg::Receiver(receiver) => &receiver.attrs,
        };
        found.note(attrs);
    }
    found.visit_block(&function.block);
    if found.all.is_empty() {
        return Ok(None);
    }
    if found.all.len() > MAX_PREDICATES {
        let span = found.spans[MAX_PREDICATES];
        return Err(syn::Error::new(
            span,
            format!(
                "classic lowering: at most {MAX_PREDICATES} distinct `#[cfg(..)]` conditions in one function (it is \
                 lowered once per combination of them); put the code under one `cfg` in a function or a struct of \
                 its own, or write the variants as functions of their own"
            ),
        ));
    }
    let predicates: Vec<TokenStream> = found.all.iter().map(|text| text.parse().expect("a predicate")).collect();
    let mut copies = Vec::new();
    for mask in 0..(1u32 << predicates.len()) {
        let holds: HashSet<String> = found
            .all
            .iter()
            .enumerate()
            .filter(|(bit, _)| mask & (1 << bit) != 0)
            .map(|(_, text)| text.clone())
            .collect();
        let mut copy = function.clone_parts();
        copy.sig.inputs = copy
            .sig
            .inputs
            .into_pairs()
            .filter_map(|mut pair| {
                let attrs = match pair.value_mut() {
                    syn::FnArg::Typed(typed) => &mut typed.attrs,
                    syn::FnArg::Receiver(receiver) => &mut receiver.attrs,
                };
                keeps(attrs, &holds).then_some(pair)
            })
            .collect();
        Prune { holds: &holds }.visit_block_mut(&mut copy.block);
        let selectors = predicates.iter().enumerate().map(|(bit, predicate)| {
            if mask & (1 << bit) != 0 { quote::quote!(#predicate) } else { quote::quote!(not(#predicate)) }
        });
        copy.attrs.push(syn::parse_quote!(#[cfg(all(#(#selectors),*))]));
        copies.push(copy);
    }
    Ok(Some(copies))
}

/// The text of a `#[cfg(..)]` attribute's predicate.
fn predicate(attr: &syn::Attribute) -> Option<String> {
    if !attr.path().is_ident("cfg") {
        return None;
    }
    let syn::Meta::List(list) = &attr.meta else { return None };
    Some(list.tokens.to_string())
}

/// Whether code with these attributes is there when the predicates in `holds` hold (and no
/// other does); its `cfg`s are removed, being decided.
fn keeps(attrs: &mut Vec<syn::Attribute>, holds: &HashSet<String>) -> bool {
    let kept = attrs.iter().filter_map(predicate).all(|text| holds.contains(&text));
    attrs.retain(|attr| predicate(attr).is_none());
    kept
}

/// The distinct predicates, in the order they appear, with where each first does.
#[derive(Default)]
struct Predicates {
    all: Vec<String>,
    spans: Vec<proc_macro2::Span>,
}

impl Predicates {
    fn note(&mut self, attrs: &[syn::Attribute]) {
        for attr in attrs {
            if let Some(text) = predicate(attr)
                && !self.all.contains(&text)
            {
                self.all.push(text);
                self.spans.push(attr.span());
            }
        }
    }
}

impl<'ast> Visit<'ast> for Predicates {
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        self.note(std::slice::from_ref(attr));
    }
    // Closures, async blocks and items are emitted as written: rustc's `cfg` applies there.
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Removes the code a combination of predicates leaves out.
struct Prune<'h> {
    holds: &'h HashSet<String>,
}

impl VisitMut for Prune<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let holds = self.holds;
        block.stmts.retain_mut(|stmt| match stmt {
            syn::Stmt::Local(local) => keeps(&mut local.attrs, holds),
            syn::Stmt::Macro(mac) => keeps(&mut mac.attrs, holds),
            syn::Stmt::Expr(expr, _) => expr_attrs_mut(expr).is_none_or(|attrs| keeps(attrs, holds)),
            syn::Stmt::Item(_) => true,
        });
        visit_mut::visit_block_mut(self, block);
    }
    fn visit_expr_struct_mut(&mut self, node: &mut syn::ExprStruct) {
        let holds = self.holds;
        node.fields = std::mem::take(&mut node.fields)
            .into_pairs()
            .filter_map(|mut pair| keeps(&mut pair.value_mut().attrs, holds).then_some(pair))
            .collect();
        visit_mut::visit_expr_struct_mut(self, node);
    }
    fn visit_expr_match_mut(&mut self, node: &mut syn::ExprMatch) {
        let holds = self.holds;
        node.arms.retain_mut(|arm| keeps(&mut arm.attrs, holds));
        visit_mut::visit_expr_match_mut(self, node);
    }
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The outer attributes of an expression statement (`#[cfg(..)] call();`).
fn expr_attrs_mut(expr: &mut syn::Expr) -> Option<&mut Vec<syn::Attribute>> {
    use syn::Expr::*;
    Some(match expr {
        Array(node) => &mut node.attrs,
        Assign(node) => &mut node.attrs,
        Async(node) => &mut node.attrs,
        Await(node) => &mut node.attrs,
        Binary(node) => &mut node.attrs,
        Block(node) => &mut node.attrs,
        Break(node) => &mut node.attrs,
        Call(node) => &mut node.attrs,
        Cast(node) => &mut node.attrs,
        Closure(node) => &mut node.attrs,
        Continue(node) => &mut node.attrs,
        Field(node) => &mut node.attrs,
        ForLoop(node) => &mut node.attrs,
        If(node) => &mut node.attrs,
        Index(node) => &mut node.attrs,
        Let(node) => &mut node.attrs,
        Lit(node) => &mut node.attrs,
        Loop(node) => &mut node.attrs,
        Macro(node) => &mut node.attrs,
        Match(node) => &mut node.attrs,
        MethodCall(node) => &mut node.attrs,
        Paren(node) => &mut node.attrs,
        Path(node) => &mut node.attrs,
        Range(node) => &mut node.attrs,
        Reference(node) => &mut node.attrs,
        Return(node) => &mut node.attrs,
        Struct(node) => &mut node.attrs,
        Try(node) => &mut node.attrs,
        Tuple(node) => &mut node.attrs,
        Unary(node) => &mut node.attrs,
        Unsafe(node) => &mut node.attrs,
        While(node) => &mut node.attrs,
        _ => return None,
    })
}

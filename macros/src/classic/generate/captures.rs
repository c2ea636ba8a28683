//! Fields that a closure or a non-`move` async block takes by value when it is made.
//!
//! Since edition 2021 such code captures the precise place it uses (`v.b`, not `v`): a field
//! it uses by value (`consume(v.b)`) moves into it when it is made, and is dropped with it if
//! it never runs, before the rest of `v`. The classic lowering reaches a local kept in place
//! through its place at run time, so such a field is taken first, into a binding of its own
//! that the code then names instead (`{ let __captured0 = <take v.b>; async move { .. } }`).
//!
//! Such code drops the fields it took, if it never runs, in the order the local's type
//! declares them: rustc sorts a closure's captures of one local by field. The macro knows
//! that order for a tuple's elements only: those of one local go into one tuple binding, in
//! their order (`let __captured0 = (<take v.0>, <take v.1>)`, named `__captured0.1` for `v.1`),
//! whose elements rustc captures one by one and sorts as it sorted the local's. Named fields
//! keep a binding each and drop in the order the code names them (the README's "Where the
//! lowerings differ").

use std::cmp::Ordering;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::visit::Visit;

use crate::classic::syntax::assignments;
pub(crate) use crate::classic::syntax::field_chain;

/// The fields to take first, from the field paths `code` uses by value (`found`: the local's
/// name and the path): one per distinct path, none inside another one taken (`v.b` covers
/// `v.b.c`). A local that `code` also names whole or through an ancestor of such a path
/// (`&v`, `&v.b` beside `v.b.a`: Rust then captures the ancestor) is left as it was. Each
/// comes with the name it gets; `Places` names it where the code mentions the path and no
/// binding inside hides the local (`found` holds only such mentions already).
pub(crate) fn plan(code: &syn::Expr, found: Vec<(String, Vec<syn::Member>)>, first_index: usize) -> Vec<TakenField> {
    let mut paths: Vec<(String, Vec<syn::Member>)> = Vec::new();
    for (local, members) in found {
        if !paths.iter().any(|(other, path)| *other == local && *path == members) {
            paths.push((local, members));
        }
    }
    let covered = |local: &String, members: &[syn::Member]| {
        paths.iter().any(|(other, path)| other == local && path.len() < members.len() && members.starts_with(path))
    };
    let mut kept: Vec<(String, Vec<syn::Member>)> =
        paths.iter().filter(|(local, members)| !covered(local, members)).cloned().collect();
    let mut others = OtherMentions { paths: &kept, found: Vec::new() };
    others.visit_expr(code);
    let named_otherwise = others.found;
    kept.retain(|(local, _)| !named_otherwise.contains(local));
    // A field the code also changes (`v.n += 1`, `v.b = ..`, `&mut v.b`, a method on it) is
    // borrowed mutably by Rust's capture when it is `Copy`, which the macro cannot tell: such
    // a field stays where it is, reached through its place when the code runs.
    let mut changed = Changed(Vec::new());
    changed.visit_expr(code);
    kept.retain(|(local, path)| {
        !changed
            .0
            .iter()
            .any(|(root, members)| root == local && (members.starts_with(path) || path.starts_with(members)))
    });
    holders(kept, first_index)
}

/// A field that code took when it was made, and the binding that holds it.
#[derive(Clone)]
pub(crate) struct TakenField {
    /// The hidden binding (`__captured0`).
    pub(crate) holder: Ident,
    /// Where the binding is a tuple of a local's elements: this one's index in it.
    pub(crate) element: Option<usize>,
    /// The local the field is of, and the path to it.
    pub(crate) local: String,
    pub(crate) members: Vec<syn::Member>,
}

impl TakenField {
    /// The binding's name (spanned at `span`), and the element of it, if any, that holds
    /// this field.
    pub(crate) fn named_at(&self, span: Span) -> TokenStream {
        let mut holder = self.holder.clone();
        holder.set_span(holder.span().located_at(span));
        match self.element {
            Some(element) => {
                let element = syn::Index { index: element as u32, span };
                quote!(#holder.#element)
            }
            None => quote!(#holder),
        }
    }
}

/// The bindings that hold the field paths `taken` (distinct, none inside another), numbered
/// from `first_index`, in the order of the paths: one per path, but one tuple for all the
/// paths of a local that are told apart by an element's index (`v.1`, `v.0.1`, `v.0.0`: the
/// tuple holds them sorted, `v.0.0` first).
pub(crate) fn holders(taken: Vec<(String, Vec<syn::Member>)>, first_index: usize) -> Vec<TakenField> {
    let mut fields: Vec<TakenField> = Vec::new();
    let mut next = first_index;
    for (position, (local, members)) in taken.iter().enumerate() {
        if fields.iter().any(|field| field.local == *local && field.members == *members) {
            continue;
        }
        let holder = Ident::new(&format!("__captured{next}"), Span::mixed_site());
        next += 1;
        let siblings: Vec<&Vec<syn::Member>> =
            taken[position..].iter().filter(|(other, _)| other == local).map(|(_, path)| path).collect();
        let ordered = siblings.len() > 1
            && siblings
                .iter()
                .enumerate()
                .all(|(index, path)| siblings[index + 1..].iter().all(|other| element_order(path, other).is_some()));
        if !ordered {
            fields.push(TakenField { holder, element: None, local: local.clone(), members: members.clone() });
            continue;
        }
        let mut sorted = siblings;
        sorted.sort_by(|a, b| element_order(a, b).expect("told apart by an element"));
        for (element, path) in sorted.into_iter().enumerate() {
            fields.push(TakenField {
                holder: holder.clone(),
                element: Some(element),
                local: local.clone(),
                members: path.clone(),
            });
        }
    }
    fields
}

/// The order of two field paths of one local where the first member they differ in is a
/// tuple's element in both (`v.0.1` before `v.1`); `None` where it is a named field (whose
/// order the macro cannot see), or where one path is inside the other.
fn element_order(a: &[syn::Member], b: &[syn::Member]) -> Option<Ordering> {
    let (x, y) = a.iter().zip(b).find(|(x, y)| x != y)?;
    match (x, y) {
        (syn::Member::Unnamed(x), syn::Member::Unnamed(y)) => Some(x.index.cmp(&y.index)),
        _ => None,
    }
}

/// The field paths code assigns, borrows mutably or calls a method on.
struct Changed(Vec<(String, Vec<syn::Member>)>);

impl Changed {
    fn note(&mut self, place: &syn::Expr) {
        self.0.extend(field_chain(place));
    }
}

impl<'ast> Visit<'ast> for Changed {
    fn visit_expr_assign(&mut self, node: &'ast syn::ExprAssign) {
        self.note(&node.left);
        syn::visit::visit_expr_assign(self, node);
    }

    fn visit_expr_binary(&mut self, node: &'ast syn::ExprBinary) {
        if assignments::is_compound(&node.op) {
            self.note(&node.left);
        }
        syn::visit::visit_expr_binary(self, node);
    }

    fn visit_expr_reference(&mut self, node: &'ast syn::ExprReference) {
        if node.mutability.is_some() {
            self.note(&node.expr);
        }
        syn::visit::visit_expr_reference(self, node);
    }

    fn visit_expr_method_call(&mut self, node: &'ast syn::ExprMethodCall) {
        self.note(&node.receiver);
        syn::visit::visit_expr_method_call(self, node);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The locals of `paths` that code names whole or through an ancestor of one of the paths.
struct OtherMentions<'p> {
    paths: &'p [(String, Vec<syn::Member>)],
    found: Vec<String>,
}

impl<'ast> Visit<'ast> for OtherMentions<'_> {
    fn visit_expr(&mut self, expr: &'ast syn::Expr) {
        if let Some((root, members)) = field_chain(expr) {
            let paths = self.paths.iter().filter(|(local, _)| *local == root);
            // A path inside a planned one, or beside it (`&v.b.b` beside `v.b.a`), is one
            // of its own; only an ancestor (`v.b`) makes Rust capture more.
            if paths.clone().all(|(_, path)| !path.starts_with(&members) || members.starts_with(path)) {
                return;
            }
            self.found.push(root);
            return;
        }
        if let syn::Expr::Path(path) = expr
            && let Some(ident) = path.path.get_ident()
        {
            let name = ident.to_string();
            if self.paths.iter().any(|(local, _)| *local == name) {
                self.found.push(name);
            }
        }
        syn::visit::visit_expr(self, expr);
    }

    /// `let _ = v;` reads no place: Rust captures nothing for it (a `_` pattern binds
    /// nothing, and moves nothing out of a place), so `v` is not named whole by it.
    fn visit_local(&mut self, local: &'ast syn::Local) {
        let mut pat = &local.pat;
        while let syn::Pat::Type(typed) = pat {
            pat = &typed.pat;
        }
        let reads_no_place = matches!(pat, syn::Pat::Wild(_))
            && local.init.as_ref().is_some_and(|init| {
                init.diverge.is_none() && {
                    let value = crate::classic::syntax::strip_parens(&init.expr);
                    field_chain(value).is_some()
                        || matches!(value, syn::Expr::Path(path) if path.path.get_ident().is_some())
                }
            });
        if !reads_no_place {
            syn::visit::visit_local(self, local);
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

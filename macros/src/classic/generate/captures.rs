//! Fields that a closure or a non-`move` async block takes by value when it is made.
//!
//! Since edition 2021 such code captures the precise place it uses (`v.b`, not `v`): a field
//! it uses by value (`consume(v.b)`) moves into it when it is made, and is dropped with it if
//! it never runs, before the rest of `v`. The classic lowering reaches a local kept in place
//! through its place at run time, so such a field is taken first, into a binding of its own
//! that the code then names instead (`{ let __captured0 = <take v.b>; async move { .. } }`).

use proc_macro2::{Ident, Span};
use syn::visit::Visit;

use crate::classic::syntax::assignments;
pub(crate) use crate::classic::syntax::field_chain;

/// The fields to take first, from the field paths `code` uses by value (`found`: the local's
/// name and the path): one per distinct path, none inside another one taken (`v.b` covers
/// `v.b.c`). A local that `code` also names whole or through an ancestor of such a path
/// (`&v`, `&v.b` beside `v.b.a`: Rust then captures the ancestor) is left as it was. Each
/// comes with the name it gets; `Places` names it where the code mentions the path and no
/// binding inside hides the local (`found` holds only such mentions already).
pub(crate) fn plan(
    code: &syn::Expr,
    found: Vec<(String, Vec<syn::Member>)>,
    first_index: usize,
) -> Vec<(Ident, String, Vec<syn::Member>)> {
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
    kept.into_iter()
        .enumerate()
        .map(|(index, (local, members))| {
            (Ident::new(&format!("__captured{}", first_index + index), Span::mixed_site()), local, members)
        })
        .collect()
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

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

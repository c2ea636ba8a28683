//! The variables a pattern binds.

use syn::{Ident, Pat};

pub(crate) struct Binding {
    pub ident: Ident,
    pub mutable: bool,
    pub by_ref: bool,
}

/// The bindings a pattern introduces. A bare identifier starting with an uppercase letter is
/// taken for a constant or unit variant (`None`, `MAX`), as rustc's naming lints assume.
pub(crate) fn pattern_bindings(pat: &Pat, out: &mut Vec<Binding>) {
    match pat {
        Pat::Ident(ident) => {
            let is_binding = ident.by_ref.is_some()
                || ident.mutability.is_some()
                || ident.subpat.is_some()
                || !starts_uppercase(&ident.ident);
            if is_binding {
                out.push(Binding {
                    ident: ident.ident.clone(),
                    mutable: ident.mutability.is_some(),
                    by_ref: ident.by_ref.is_some(),
                });
            }
            if let Some((_, subpat)) = &ident.subpat {
                pattern_bindings(subpat, out);
            }
        }
        Pat::Tuple(tuple) => tuple.elems.iter().for_each(|pat| pattern_bindings(pat, out)),
        Pat::TupleStruct(tuple) => tuple.elems.iter().for_each(|pat| pattern_bindings(pat, out)),
        Pat::Slice(slice) => slice.elems.iter().for_each(|pat| pattern_bindings(pat, out)),
        Pat::Struct(strukt) => strukt.fields.iter().for_each(|field| pattern_bindings(&field.pat, out)),
        Pat::Reference(reference) => pattern_bindings(&reference.pat, out),
        Pat::Paren(paren) => pattern_bindings(&paren.pat, out),
        Pat::Type(typed) => pattern_bindings(&typed.pat, out),
        Pat::Guard(guarded) => pattern_bindings(&guarded.pat, out),
        // Every alternative binds the same names.
        Pat::Or(or) => {
            if let Some(first) = or.cases.first() {
                pattern_bindings(first, out);
            }
        }
        _ => {}
    }
}

pub(crate) fn starts_uppercase(ident: &Ident) -> bool {
    ident.to_string().trim_start_matches("r#").starts_with(|c: char| c.is_uppercase())
}

/// Rename the bindings `renames` lists in `pat` (and their uses in a guard), leaving every
/// other identifier alone.
pub(crate) fn rename_bindings(pat: &mut Pat, renames: &[(Ident, Ident)]) {
    struct Renamer<'r>(&'r [(Ident, Ident)]);
    impl Renamer<'_> {
        fn renamed(&self, ident: &Ident) -> Option<Ident> {
            self.0.iter().find(|(from, _)| from == ident).map(|(_, to)| to.clone())
        }
    }
    impl syn::visit_mut::VisitMut for Renamer<'_> {
        fn visit_pat_ident_mut(&mut self, node: &mut syn::PatIdent) {
            if let Some(to) = self.renamed(&node.ident) {
                node.ident = to;
            }
            syn::visit_mut::visit_pat_ident_mut(self, node);
        }
        fn visit_field_pat_mut(&mut self, node: &mut syn::FieldPat) {
            // A shorthand field (`Msg::Get { id, reply }`) names the field with its binding:
            // renamed, it is written out (`reply: __bound2`).
            if node.colon_token.is_none()
                && let Pat::Ident(binding) = &*node.pat
                && self.renamed(&binding.ident).is_some()
            {
                node.colon_token = Some(Default::default());
            }
            syn::visit_mut::visit_field_pat_mut(self, node);
        }
        fn visit_expr_path_mut(&mut self, node: &mut syn::ExprPath) {
            if let Some(ident) = node.path.get_ident()
                && let Some(to) = self.renamed(ident)
            {
                node.path = to.into();
            }
        }
        fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    }
    syn::visit_mut::VisitMut::visit_pat_mut(&mut Renamer(renames), pat);
}

/// The names that patterns inside `expr` bind (`let`s, arms, `for`, `if let`, closure
/// parameters excepted: closures and items are not entered).
pub(crate) fn names_bound_in(expr: &syn::Expr) -> Vec<String> {
    struct Finder(Vec<Binding>);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_pat(&mut self, pat: &'ast Pat) {
            pattern_bindings(pat, &mut self.0);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(Vec::new());
    syn::visit::Visit::visit_expr(&mut finder, expr);
    finder.0.into_iter().map(|binding| binding.ident.to_string()).collect()
}

/// The patterns of the `let`s in an `if` condition (`let P = e`, or a `&&` chain of them).
pub(crate) fn let_patterns(cond: &syn::Expr) -> Vec<&syn::Pat> {
    crate::classic::syntax::let_chain(cond).into_iter().map(|node| &*node.pat).collect()
}

/// `pat` with each binding that `blank` picks replaced by `_` (by its sub-pattern, for
/// `name @ sub`): a pattern that tests a value without binding (or moving) those parts.
pub(crate) fn blank_bindings(pat: &Pat, blank: impl Fn(&syn::PatIdent) -> bool) -> Pat {
    struct Blank<F>(F);
    impl<F: Fn(&syn::PatIdent) -> bool> syn::visit_mut::VisitMut for Blank<F> {
        fn visit_pat_mut(&mut self, pat: &mut Pat) {
            if let Pat::Ident(ident) = pat
                && (self.0)(ident)
            {
                *pat = match ident.subpat.take() {
                    Some((_, subpat)) => *subpat,
                    None => Pat::Wild(syn::PatWild { attrs: Vec::new(), underscore_token: Default::default() }),
                };
            }
            syn::visit_mut::visit_pat_mut(self, pat);
        }
    }
    let mut pat = pat.clone();
    syn::visit_mut::VisitMut::visit_pat_mut(&mut Blank(blank), &mut pat);
    pat
}

/// A name a pattern may bind: not one starting with an upper-case letter, which is taken to
/// be a constant or a unit variant (`None`, `Msg::Quit`, `MAX`).
pub(crate) fn may_bind(ident: &syn::PatIdent) -> bool {
    !ident.ident.to_string().starts_with(|c: char| c.is_ascii_uppercase())
}

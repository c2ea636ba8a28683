//! Shadowing: a binding that hides locals of the same name. A hidden local that a later
//! transition must save moves to a hidden name in a state of its own (`bind_let` begins it),
//! so that it keeps its place for the drop order; one holding nothing is renamed in place; a
//! `match` arm or `if let` pattern that hides a live local binds a hidden local first, which
//! a `let` at the start of the arm gives the user's name.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::{Emitter, Init, VarId};
use crate::classic::analyse::liveness;
use crate::classic::syntax::bindings::{Binding, pattern_bindings, rename_bindings};

impl Emitter<'_> {
    /// Initialized locals that the bindings of `pat` hide, when code that may save them
    /// follows: an await, or (for a local of an enclosing scope) the jump that
    /// leaves this nested scope for a merge point, a loop head or a block's exit. (The
    /// function body's own scope is left by returning.)
    pub(super) fn shadowed_by(&self, pat: &syn::Pat) -> Vec<VarId> {
        let await_later = liveness::transition_later(&self.position.rest) || self.hiding_later(pat);
        let nested = self.scopes.len() > 2;
        let innermost = &self.scopes.last().expect("a scope is open").vars;
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        bindings
            .iter()
            .filter_map(|binding| self.lookup(&binding.ident.to_string()))
            .filter(|&id| self.init[id].holds_value())
            .filter(|id| await_later || (nested && !innermost.contains(id)))
            .collect()
    }

    /// Does a later plain `let` of the code still to run hide a local that may hold a value
    /// then (one holding a value now, or one `pat` binds)? Such a `let` begins a state of its
    /// own (`bind_let`), whose jump saves what lives there: a local `pat` hides must then
    /// have been saved under a name the code binds, not only renamed in the walk.
    fn hiding_later(&self, pat: &syn::Pat) -> bool {
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        let binds_now: Vec<String> = bindings.iter().map(|binding| binding.ident.to_string()).collect();
        let may_hold = |name: &str| {
            binds_now.iter().any(|bound| bound == name) || self.lookup(name).is_some_and(|id| self.init[id] != Init::No)
        };
        liveness::later_let_patterns(&self.position.rest).into_iter().any(|later| {
            let mut hidden = Vec::new();
            pattern_bindings(later, &mut hidden);
            hidden.iter().any(|binding| may_hold(&binding.ident.to_string()))
        })
    }

    /// A pattern of a `match` arm or an `if let` that hides locals holding a value here:
    /// those bindings are renamed to hidden locals, which `bind_rebound` binds to the user's
    /// names by `let`s at the start of the arm (where `bind_let` saves the hidden locals the
    /// way it does for any `let` that hides them). Returns the pattern to emit and the renames.
    pub(super) fn rebinding(&mut self, pat: &syn::Pat) -> (syn::Pat, Vec<(Binding, Ident)>) {
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        // A binding of a local that lives in place is bound by a `let` too (`bind_let` puts it
        // in place).
        bindings.retain(|binding| {
            self.lookup(&binding.ident.to_string()).is_some_and(|id| self.init[id] != Init::No)
                || self.in_place_reason(&binding.ident).is_some()
        });
        let rebound: Vec<(Binding, Ident)> = bindings
            .into_iter()
            .map(|binding| {
                let hidden = self.hidden("bound");
                let hidden = Ident::new(&hidden.to_string(), Span::mixed_site().located_at(binding.ident.span()));
                (binding, hidden)
            })
            .collect();
        let mut pat = pat.clone();
        if !rebound.is_empty() {
            let renames: Vec<(Ident, Ident)> =
                rebound.iter().map(|(binding, hidden)| (binding.ident.clone(), hidden.clone())).collect();
            rename_bindings(&mut pat, &renames);
        }
        (pat, rebound)
    }

    /// `rebinding` for the `let` patterns of an `if` condition.
    pub(super) fn rebinding_in_condition(&mut self, cond: &syn::Expr) -> (syn::Expr, Vec<(Binding, Ident)>) {
        let mut cond = cond.clone();
        let mut all = Vec::new();
        for node in crate::classic::syntax::let_chain_mut(&mut cond) {
            let (pat, rebound) = self.rebinding(&node.pat);
            *node.pat = pat;
            all.extend(rebound);
        }
        (cond, all)
    }

    /// The user's bindings that `rebinding` renamed, bound from their hidden locals.
    pub(super) fn bind_rebound(&mut self, rebound: Vec<(Binding, Ident)>) {
        for (binding, hidden) in rebound {
            let ident = &binding.ident;
            let pat: syn::Pat = if binding.mutable { syn::parse_quote!(mut #ident) } else { syn::parse_quote!(#ident) };
            let init: syn::Expr = syn::parse_quote!(#hidden);
            self.bind_let(&[], &pat, &init, None, ident.span(), false);
            if binding.by_ref {
                let id = self.lookup(&ident.to_string()).expect("just declared");
                self.vars[id].holds_no_drop();
            }
        }
    }

    /// Locals of the names `pat` binds that are not in `live` (they hold no value here, or
    /// maybe one, kept in their hidden `Option`): hidden too, under hidden names until the
    /// scope ends, so that nothing later takes the new bindings' mentions for theirs.
    pub(super) fn hide_dead(&mut self, pat: &syn::Pat, live: &[VarId]) {
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        for binding in bindings {
            let Some(id) = self.lookup(&binding.ident.to_string()) else {
                continue;
            };
            if live.contains(&id) {
                continue;
            }
            let alias = self.hidden("hidden");
            let name = std::mem::replace(&mut self.vars[id].name, alias);
            self.vars[id].walk.hidden = true;
            self.scopes.last_mut().expect("a scope is open").renamed.push((id, name));
        }
    }
}

/// A `let` that hides live locals binds its pattern in a state of its own, after its
/// initializer's statement has ended. A pattern that leaves parts of the value unbound
/// (`let (_, v) = (Loud::new("a"), f(&Loud::new("t")));`) would then drop those parts after
/// the statement's temporaries, where Rust drops them first (the value is the statement's
/// last temporary). Such a pattern is matched where the initializer runs instead, and only
/// its bindings cross into the next state, as a tuple: returns the `match` arm's pattern,
/// the tuple it builds, and the pattern binding that tuple in the next state. `None` for a
/// pattern that binds the whole value, binds by reference (the reference would outlive the
/// temporary) or carries a type (not allowed in an arm).
pub(super) fn matched_before_state(pat: &syn::Pat) -> Option<(syn::Pat, TokenStream, syn::Pat)> {
    if !crate::classic::syntax::mentions::leaves_parts(pat) {
        return None;
    }
    bound_before_state(pat)
}

/// `matched_before_state` for any pattern: a `let .. else` is matched where its initializer
/// runs, its `else` block there too, where the locals the pattern hides still have their names.
pub(super) fn bound_before_state(pat: &syn::Pat) -> Option<(syn::Pat, TokenStream, syn::Pat)> {
    if matches!(pat, syn::Pat::Type(_)) {
        return None;
    }
    let mut bindings = Vec::new();
    pattern_bindings(pat, &mut bindings);
    if bindings.iter().any(|binding| binding.by_ref) {
        return None;
    }
    let idents: Vec<&Ident> = bindings.iter().map(|binding| &binding.ident).collect();
    let rebound: Vec<TokenStream> = bindings
        .iter()
        .map(|binding| {
            let ident = &binding.ident;
            if binding.mutable { quote!(mut #ident) } else { quote!(#ident) }
        })
        .collect();
    let tuple = quote!((#(#idents,)*));
    let rebind: syn::Pat = syn::parse_quote!((#(#rebound,)*));
    Some((pat.clone(), tuple, rebind))
}

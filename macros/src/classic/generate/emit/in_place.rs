//! Locals that live in place (`analyse::loans`): how a state's code names them (a `Place`
//! bound under the local's name, with a guard that drops the local where its scope ends), how
//! patterns bind them, and the user code that mentions them (`generate::places`).

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use super::{Emitter, VarId, sm};
use crate::classic::analyse::in_place::Reason;
use crate::classic::generate::places::{InPlace, Places, matched_whole};
use crate::classic::syntax::assignments;
use crate::classic::syntax::bindings::pattern_bindings;
use crate::classic::syntax::mentions;
use crate::classic::syntax::receivers;

impl Emitter<'_> {
    /// Why the local this binding declares lives in place, if it does (`Config::in_place`).
    /// A hidden local of the lowering's own is in the table only when the lowering or the
    /// walk put it there (a hoisted temporary, a pattern parameter partly moved).
    pub(super) fn in_place_reason(&self, binding: &Ident) -> Option<Reason> {
        if *binding == mentions::SELF_LOCAL {
            return self.config.in_place.reason(&Ident::new("self", binding.span()));
        }
        self.config.in_place.reason(binding)
    }

    /// `let v = Place::of(..);` and its drop guard: how a state's code names a local that lives
    /// in place.
    pub(super) fn place_binding(&mut self, id: VarId) -> TokenStream {
        let sm = sm();
        let krate = self.config.krate;
        let var = &mut self.vars[id];
        var.walk.slotted = true;
        let (name, field, guard) = (&var.name, &var.field, &var.names.guard);
        quote! {
            #[allow(unused_variables)]
            let #name = #krate::__private::Place::of(&raw mut #sm.#field);
            #[allow(unused_variables)]
            let #guard = #name.guard();
        }
    }

    /// A pattern whose bindings of locals that live in place bind hidden temporaries instead,
    /// with those temporaries by name (`bind_places` moves them into place).
    pub(super) fn place_temps(&self, pat: &syn::Pat) -> (syn::Pat, Vec<(String, Ident)>) {
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        // All of them, if one lives in place: the locals are then declared one after the other,
        // in the pattern's order, so that they drop in the reverse of it, as Rust drops them.
        if !bindings.iter().any(|binding| self.in_place_reason(&binding.ident).is_some()) {
            return (pat.clone(), Vec::new());
        }
        let temps: Vec<(String, Ident)> = bindings
            .iter()
            .map(|binding| {
                let name = binding.ident.to_string();
                let temp = format_ident!("__place_{}", name.trim_start_matches("r#"), span = Span::mixed_site());
                (name, temp)
            })
            .collect();
        let mut pat = pat.clone();
        if !temps.is_empty() {
            let renames: Vec<(Ident, Ident)> = bindings
                .iter()
                .filter_map(|binding| {
                    let name = binding.ident.to_string();
                    temps
                        .iter()
                        .find(|(known, _)| *known == name)
                        .map(|(_, temp)| (binding.ident.clone(), temp.clone()))
                })
                .collect();
            crate::classic::syntax::bindings::rename_bindings(&mut pat, &renames);
        }
        (pat, temps)
    }

    /// The locals just declared that live in place: their places, holding the values their
    /// pattern bound to temporaries (`place_temps`).
    pub(super) fn bind_places(&mut self, ids: &[VarId], temps: &[(String, Ident)]) {
        for &id in ids {
            let name = self.vars[id].name.to_string();
            if !self.vars[id].lives_in_place() {
                if let Some((_, temp)) = temps.iter().find(|(known, _)| *known == name) {
                    let var = &self.vars[id];
                    let (ident, mutability) = (&var.name, if var.mutable { quote!(mut) } else { quote!() });
                    self.emit(quote!(#[allow(unused_mut, unused_variables)] let #mutability #ident = #temp;));
                }
                continue;
            }
            let binding = self.place_binding(id);
            let ident = self.vars[id].name.clone();
            let value = temps.iter().find(|(known, _)| *known == name).map(|(_, temp)| quote!(#ident.assign(#temp);));
            self.emit(quote!(#binding #value));
        }
    }

    /// `let (label, _) = pair;` with `pair` in place: the pattern moves parts out and leaves
    /// the rest in place, which a raw pointer's place cannot do (E0507). Bound instead as
    /// `let (label,) = (pair.0,);`, each part moved out by itself (`Place::take_field`).
    pub(super) fn parts_of_in_place(&self, pat: &syn::Pat, init: &syn::Expr) -> Option<(syn::Pat, syn::Expr)> {
        let syn::Expr::Path(path) = init else { return None };
        let name = path.path.get_ident()?.to_string();
        let id = self.lookup(&name)?;
        if !self.vars[id].lives_in_place() || !mentions::leaves_parts(pat) {
            return None;
        }
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        if bindings.is_empty() || bindings.iter().any(|binding| binding.by_ref) {
            return None;
        }
        let mut places = Vec::new();
        if !mentions::parts_bound(pat, init, mentions::Patterns::Irrefutable, &mut places)
            || places.len() != bindings.len()
        {
            return None;
        }
        let names = bindings.iter().map(|binding| {
            let ident = &binding.ident;
            if binding.mutable { quote!(mut #ident) } else { quote!(#ident) }
        });
        Some((syn::parse_quote!((#(#names,)*)), syn::parse_quote!((#(#places,)*))))
    }

    /// The locals living in place that user code here names, and the others in scope.
    pub(super) fn visible_places(&self) -> (HashMap<String, InPlace>, HashSet<String>) {
        let mut visible = HashMap::new();
        let mut others = HashSet::new();
        for scope in self.scopes.iter().rev() {
            for &id in scope.vars.iter().rev() {
                let var = &self.vars[id];
                if var.walk.hidden {
                    continue;
                }
                let name = var.name.to_string();
                let key = mentions::written_name(&name).to_owned();
                if visible.contains_key(&key) || others.contains(&key) {
                    continue;
                }
                if var.lives_in_place() {
                    visible.insert(
                        key,
                        InPlace {
                            ident: var.name.clone(),
                            field: var.field.to_string(),
                            reason: var.in_place,
                            reference: var.declared_reference(),
                            holds_reference: var.declared_reference_type().is_some(),
                            called_by_value: var.calls == super::Calls::TakeIt,
                        },
                    );
                } else if !(var.param() && var.no_drop() && !var.exclusive_ref()) {
                    // (A shared-reference parameter, `&self` included, is not among them: it
                    // is `Copy`, so a closure that takes it by value, as one made `move` over
                    // the places it captures does, sees the same reference.)
                    others.insert(key);
                }
            }
        }
        (visible, others)
    }

    /// The locals living in place (of `visible`) that no code after the current statement
    /// names: a macro the lowering cannot see into may be lent their values
    /// (`Places::lent_macro`).
    ///
    /// With them, `root.field` for each field of `fields` (`receivers::hinted_fields_in_expr`)
    /// that no code after
    /// the statement names, nor the local whole: a method called on it that the user's
    /// `moves` hint says takes it gets its value.
    pub(super) fn last_uses(
        &self,
        visible: &HashMap<String, InPlace>,
        fields: Vec<(String, String)>,
    ) -> HashSet<String> {
        let id_of = |name: &str| self.lookup(if name == "self" { mentions::SELF_LOCAL } else { name });
        let mut last_uses: HashSet<String> = visible
            .keys()
            .filter(|name| {
                id_of(name)
                    .is_some_and(|id| !self.var_named_after_statement(id) && !self.borrower_named_after_statement(id))
            })
            .cloned()
            .collect();
        for (root, field) in fields {
            if visible.contains_key(&root)
                && id_of(&root).is_some_and(|id| {
                    !self.field_named_after_statement(id, &field) && !self.borrower_named_after_statement(id)
                })
            {
                last_uses.insert(format!("{root}.{field}"));
            }
        }
        last_uses
    }

    /// The locals living in place (of `visible`) a field of which code after the current
    /// statement names (`Places`' `fields_named_after`).
    fn fields_named_after(&self, visible: &HashMap<String, InPlace>) -> HashSet<String> {
        visible
            .keys()
            .filter(|name| self.fields_named_later(if *name == "self" { mentions::SELF_LOCAL } else { name }))
            .cloned()
            .collect()
    }

    /// Does code after the statement name a local that holds a borrow of `id` (`let held =
    /// &v;`, a reference its initializer borrows from, a closure that captures it), directly
    /// or through another such local? Then the borrow is alive past the statement, and what
    /// the statement does with `id` can only borrow it too.
    fn borrower_named_after_statement(&self, id: VarId) -> bool {
        let mut borrowed = vec![id];
        let mut next = 0;
        while let Some(&of) = borrowed.get(next) {
            for (other, var) in self.vars.iter().enumerate() {
                let borrows = var.loan.of.is_some_and(|(lent, _)| lent == of)
                    || var.loan.root == Some(of)
                    || var.loan.captures.contains(&of);
                if borrows && !borrowed.contains(&other) {
                    borrowed.push(other);
                }
            }
            next += 1;
        }
        borrowed[1..].iter().any(|&borrower| self.var_named_after_statement(borrower))
    }

    /// `places_expr` for an expression matched against patterns (`Places::matched`).
    pub(super) fn places_matched(&mut self, expr: &syn::Expr, patterns: Option<&[&syn::Pat]>) -> syn::Expr {
        self.places_in(expr, |places, expr| match patterns {
            Some(patterns) => places.matched(expr, patterns),
            None => places.expr(expr),
        })
    }

    /// A local that a local living in place borrows must live in place too: the borrow is
    /// held in a field of the state machine, past this run of `move_next` (`__h0 = v.iter()`,
    /// a hoisted temporary). For each assignment in `expr` that runs where it does
    /// (`syntax::assignments`) of a value that may borrow a local to a local that lives in place.
    pub(super) fn keep_what_places_borrow(&mut self, expr: &syn::Expr) {
        for (place, value) in assignments::assigned_values(expr, assignments::Reach::HereAndNow) {
            let syn::Expr::Path(path) = crate::classic::syntax::strip_parens(&place) else { continue };
            let Some(assigned) = path.path.get_ident().and_then(|ident| self.lookup(&ident.to_string())) else {
                continue;
            };
            if self.vars[assigned].lives_in_place() {
                self.keep_borrowed_in_place(&value);
            }
        }
    }

    /// The local a value that a local living in place holds may borrow lives in place too
    /// (`keep_what_places_borrow`).
    pub(super) fn keep_borrowed_in_place(&mut self, value: &syn::Expr) {
        let Some((root, _)) = receivers::borrow_root(value) else { return };
        let root = root.to_string();
        let Some(id) = self.lookup(if root == "self" { mentions::SELF_LOCAL } else { &root }) else { return };
        if !self.vars[id].lives_in_place() {
            self.keep_in_place(id, Reason::BorrowedByLocalInPlace);
        }
    }

    /// `Places::matched_whole`: a `match` on a local that lives in place which takes it whole
    /// and gives back what each arm leaves.
    pub(super) fn matched_whole(
        &self,
        scrutinee: &syn::Expr,
        patterns: &[&syn::Pat],
    ) -> Option<(Ident, Vec<matched_whole::ArmTake>)> {
        let (visible, others) = self.visible_places();
        Places::new(&visible, &others, &self.found.parts, self.config.krate).matched_whole(scrutinee, patterns)
    }

    /// `places_matched` for an await's operand (`Places::awaited`).
    pub(super) fn places_awaited(&mut self, expr: &syn::Expr) -> syn::Expr {
        self.places_in(expr, |places, expr| places.awaited(expr))
    }

    fn places_in(&mut self, expr: &syn::Expr, rewrite: impl FnOnce(&mut Places, &syn::Expr) -> syn::Expr) -> syn::Expr {
        let (visible, others) = self.visible_places();
        let fields = receivers::hinted_fields_in_expr(expr);
        let last_uses = self.last_uses(&visible, fields);
        let fields_named_after = self.fields_named_after(&visible);
        let mut places = Places::new(&visible, &others, &self.found.parts, self.config.krate)
            .with_last_uses(last_uses, fields_named_after);
        let rewritten = rewrite(&mut places, expr);
        let found = std::mem::take(&mut places.found_parts);
        self.found.lent_by_value.extend(std::mem::take(&mut places.lent_by_value));
        self.add_parts(found);
        rewritten
    }

    /// `Places::stmt`, with the `let`s that take what a macro statement is lent by value
    /// written before it.
    pub(super) fn places_stmt(&mut self, stmt: &syn::Stmt) -> syn::Stmt {
        let (visible, others) = self.visible_places();
        let fields = receivers::hinted_fields_in_stmt(stmt);
        let last_uses = self.last_uses(&visible, fields);
        let fields_named_after = self.fields_named_after(&visible);
        let mut places = Places::new(&visible, &others, &self.found.parts, self.config.krate)
            .with_last_uses(last_uses, fields_named_after);
        let stmt = places.stmt(stmt);
        let found = std::mem::take(&mut places.found_parts);
        let preludes = std::mem::take(&mut places.preludes);
        self.found.lent_by_value.extend(std::mem::take(&mut places.lent_by_value));
        self.add_parts(found);
        for prelude in preludes {
            self.emit(prelude);
        }
        stmt
    }

    /// A match arm's pattern with its guard's mentions of locals kept in place rewritten
    /// (the arm's own bindings hide those of the same name).
    pub(super) fn places_in_guard(&mut self, pat: &syn::Pat) -> syn::Pat {
        let syn::Pat::Guard(guarded) = pat else {
            return pat.clone();
        };
        let (visible, others) = self.visible_places();
        if visible.is_empty() {
            return pat.clone();
        }
        let mut places = Places::new(&visible, &others, &self.found.parts, self.config.krate);
        let mut guarded = guarded.clone();
        *guarded.guard = places.guard(&guarded.pat, &guarded.guard);
        let found = std::mem::take(&mut places.found_parts);
        self.add_parts(found);
        syn::Pat::Guard(guarded)
    }

    pub(super) fn add_parts(&mut self, found: Vec<(String, String)>) {
        for (field, path) in found {
            let known = self.found.parts.entry(field).or_default();
            if !known.contains(&path) {
                known.push(path);
            }
        }
    }
}

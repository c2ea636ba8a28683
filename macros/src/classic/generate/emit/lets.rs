//! `let` statements: the initializer, run in the state it begins in or taken apart for its
//! awaits, and the pattern bound to it, in a state of its own where it hides live locals.

use super::*;

impl<'a> Emitter<'a> {
    pub(super) fn let_stmt(&mut self, node: &'a ir::Let) {
        // Until the pattern binds, the statements after the `let` name the new bindings,
        // not the locals of the same names its initializer uses (`bind_let` ends this).
        let mark = self.position.initializing.len();
        if node.init.is_some() && !self.position.rest.is_empty() {
            let mut bindings = Vec::new();
            pattern_bindings(&node.pat, &mut bindings);
            let names = bindings.iter().map(|binding| binding.ident.to_string()).collect();
            self.position.initializing.push((self.position.rest.len() - 1, names));
        }
        self.let_stmt_inner(node);
        self.position.initializing.truncate(mark);
    }

    pub(super) fn let_stmt_inner(&mut self, node: &'a ir::Let) {
        let attrs = &node.attrs;
        match &node.init {
            None if !self.place_temps(&node.pat).1.is_empty() => {
                // Its place is all it needs (the value's type is inferred where it is assigned).
                let (pat, _) = self.place_temps(&node.pat);
                if !matches!(&pat, syn::Pat::Ident(_)) {
                    self.emit(quote!(#(#attrs)* #[allow(unused_variables)] let #pat;));
                }
                let ids = self.declare_pattern(&node.pat, Init::No, None);
                self.bind_places(&ids, &[]);
            }
            None => {
                let pat = &node.pat;
                let declaration = quote!(#(#attrs)* let #pat;);
                match pat {
                    // Kept only if this state's code names it: without a type, rustc infers
                    // it from an assignment, which may be in another state.
                    syn::Pat::Ident(ident) if ident.subpat.is_none() => {
                        self.declare_where_assigned(ident.ident.clone(), declaration)
                    }
                    _ => self.emit(declaration),
                }
                self.declare_pattern(&node.pat, Init::No, None);
            }
            Some(Expr::Await(awaited_node)) => {
                self.await_expr(awaited_node);
                if self.position.reachable {
                    let at = AwaitedAt::of(&awaited_node.operand, awaited_node.span);
                    let value = match node.diverge {
                        // A `match` arm, as the await's desugaring gives the value: a mismatch
                        // with the `let`'s type is then the twin's diagnostic, in its words,
                        // and the local's type an error, as after the plain function's await
                        // (no follow-on errors).
                        None => awaited_values::as_awaited(awaited().into_token_stream(), at),
                        Some(_) => as_user_value(&awaited(), at),
                    };
                    // A temporary the lowering spilled the await into (`f(g().await)`): where
                    // an operand reads it, it reads as the awaited value.
                    if let Some(temporary) = lowering_temporary(&node.pat) {
                        self.found.awaited_temporaries.insert(temporary, at);
                    }
                    self.bind_let(attrs, &node.pat, &value, node.diverge.as_ref(), node.span, true);
                }
            }
            Some(init) => match init.source() {
                Some(source) if !self.must_split(init) => {
                    // The same value moved into another temporary (an operand read before a
                    // later one awaits).
                    if let (Some(temporary), syn::Expr::Path(path)) = (lowering_temporary(&node.pat), source)
                        && let Some(held) = path.path.get_ident()
                        && let Some(at) = self.found.awaited_temporaries.get(&held.to_string())
                    {
                        self.found.awaited_temporaries.insert(temporary, *at);
                    }
                    self.bind_let(attrs, &node.pat, source, node.diverge.as_ref(), node.span, true)
                }
                _ => {
                    // The `else` block runs after the construct when the pattern does not
                    // match: what it reads is read later, for the jumps inside the construct
                    // too (`let Ok(v) = check(loop { break p; }) else { panic!("{p}") };`).
                    if let Some(diverge) = &node.diverge {
                        self.push_rest(Rest::Paths(vec![Path::Else(diverge), Path::Empty]));
                    }
                    let declared = match &node.pat {
                        syn::Pat::Type(typed) => Some(&*typed.ty),
                        _ => None,
                    };
                    let hidden = self.construct_value(init, declared);
                    if node.diverge.is_some() {
                        self.pop_rest();
                    }
                    if let Some(hidden) = hidden {
                        let value = as_value(&hidden);
                        self.bind_let(attrs, &node.pat, &value, node.diverge.as_ref(), node.span, true);
                    }
                }
            },
        }
    }

    /// `let pat = init else { diverge };` with an await-free `init`. `of_let`: the user's `let`
    /// statement being walked (`let_stmt`), whose bindings the code after it names from here
    /// on; not a binding the lowering makes the same way inside its initializer (the single arm
    /// a `match` binds its scrutinee by) or before the body (a pattern parameter).
    pub(super) fn bind_let(
        &mut self,
        attrs: &[syn::Attribute],
        pat: &syn::Pat,
        init: &syn::Expr,
        diverge: Option<&syn::Block>,
        span: Span,
        of_let: bool,
    ) {
        let split = if diverge.is_none() { self.parts_of_in_place(pat, init) } else { None };
        let (pat, init) = match &split {
            Some((pat, init)) => (pat, init),
            None => (pat, init),
        };
        let mut rewritten = self.rewrite_matched(init, Some(&[pat]));
        let diverge_block = diverge.map(|block| {
            let expr: syn::Expr =
                syn::Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: block.clone() });
            self.rewrite_expr(&expr)
        });
        let diverge_code = diverge_block.as_ref().map(|block| quote!(else #block));
        // The `else` block always leaves (rustc checks): what it moves or assigns is not so
        // where the code after the `let` goes on (its jumps save what is alive there).
        let found = if diverge.is_some() { mentions::of_expr(init) } else { mentions::of_let_init(pat, init) };
        let mut replaced = self.apply(&found);
        self.drop_on_assignment(&mut rewritten, &mut replaced);
        // From here on, the statements after the `let` name its bindings.
        let initialized = if of_let
            && self
                .position
                .initializing
                .last()
                .is_some_and(|(index, _)| Some(*index) == self.position.rest.len().checked_sub(1))
        {
            self.position.initializing.pop()
        } else {
            None
        };
        let shadowed = self.shadowed_by(pat);
        if shadowed.is_empty() {
            self.hide_dead(pat, &shadowed);
        }
        let (emitted_pat, temps) = self.place_temps(pat);
        if shadowed.is_empty() {
            self.emit(quote_spanned!(span=> #(#attrs)* let #emitted_pat = #rewritten #diverge_code;));
        } else {
            // The new bindings hide live locals that a later transition must save. The
            // initializer runs first (it may read them); then a state of its own begins, which
            // restores the hidden locals under hidden names in their own places, so that they
            // still drop in declaration order, and binds the pattern there.
            let value = self.hidden("init");
            // A `let .. else` is matched here, and its `else` block runs here, where the
            // locals the pattern hides still have their names.
            let by_parts = match &diverge_block {
                None => shadowing::matched_before_state(&emitted_pat),
                Some(_) => shadowing::bound_before_state(&emitted_pat),
            };
            match (&by_parts, &diverge_block) {
                (Some((arm, tuple, _)), None) => {
                    self.emit(quote_spanned!(span=> let #value = match #rewritten { #arm => #tuple };))
                }
                // The initializer's temporaries drop before the `else` block runs, as a
                // `let .. else` drops them: it is computed by a `let` of its own.
                (Some((arm, tuple, _)), Some(otherwise)) => {
                    let scrutinee = self.hidden("scrutinee");
                    self.emit(quote_spanned!(span=>
                        let #value = match { let #scrutinee = #rewritten; #scrutinee } { #arm => #tuple, _ => #otherwise };
                    ))
                }
                (None, _) => self.emit(quote_spanned!(span=> let #value = #rewritten;)),
            }
            let matched_here = by_parts.is_some();
            let init_var = self.declare(value.clone(), false, Init::Yes);
            // A value that may borrow a local (`let v = &w;`, `w.iter()`, `w` a literal or a
            // reference too) is saved by that jump as an await's operand would be: the local
            // lives in place in the next walk.
            if let Some(borrowed) = borrow_root(init).and_then(|(root, _)| self.lookup(&root.to_string())) {
                self.keep_in_place(borrowed, Reason::BorrowedByHidingLet);
            }
            let state = self.new_state();
            // The jump saves the hidden locals, which code after the `let` may read once the
            // scope that hides them ends; there the `let`'s names still mean the new bindings
            // (`v = 6;` assigns the new `v`, not the hidden one, which a reference would not
            // be saved for).
            let mark = self.position.initializing.len();
            self.position.initializing.extend(initialized);
            self.jump(state, None);
            self.position.initializing.truncate(mark);
            // Renamed once the jump saved them under the names this state bound them by.
            self.hide_dead(pat, &shadowed);
            for id in shadowed {
                let alias = self.hidden("shadowed");
                let name = std::mem::replace(&mut self.vars[id].name, alias);
                self.vars[id].walk.hidden = true;
                self.scopes.last_mut().expect("a scope is open").renamed.push((id, name));
            }
            self.begin(state, TokenStream::new(), false);
            self.init[init_var] = Init::No;
            let value = as_value(&value);
            let emitted_pat = by_parts.map_or(emitted_pat, |(_, _, rebind)| rebind);
            // Otherwise (a pattern that binds by reference or has a type) the `else` block
            // runs in this state, where the hidden locals have their hidden names (a jump out
            // of it saves them by those).
            let diverge_code = match diverge {
                Some(block) if !matched_here => {
                    let expr: syn::Expr =
                        syn::Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: block.clone() });
                    let rewritten = self.rewrite_expr(&expr);
                    Some(quote!(else #rewritten))
                }
                _ => None,
            };
            self.emit(quote_spanned!(span=> #(#attrs)* let #emitted_pat = #value #diverge_code;));
        }
        self.drop_replaced(replaced);
        let borrows = self.borrowed_local(init);
        let borrow_root = borrow_root(init).and_then(|(root, _)| {
            let root = root.to_string();
            self.lookup(mentions::counted_name(&root))
        });
        let ids = self.declare_pattern(pat, Init::Yes, borrows);
        for &id in &ids {
            self.vars[id].loan.root = borrow_root;
        }
        if ids.iter().any(|&id| self.vars[id].lives_in_place()) {
            self.keep_borrowed_in_place(init);
        }
        self.bind_places(&ids, &temps);
        // A borrow of a local (`v.iter()`, `s.as_str()`) holds nothing to drop either.
        if is_no_drop(init) || borrows.is_some() {
            for &id in &ids {
                self.vars[id].holds_no_drop();
            }
        }
        if let syn::Expr::Closure(closure) = crate::classic::syntax::strip_parens(init) {
            if closure.capture.is_none() {
                let body = &closure.body;
                let body: syn::Block = syn::parse_quote!({ #body });
                let params: Vec<&syn::Pat> = closure.inputs.iter().collect();
                let captures: Vec<VarId> = crate::classic::analyse::free_names::of_block(&body, &params)
                    .iter()
                    .filter_map(|name| self.lookup(mentions::counted_name(name)))
                    .collect();
                for &id in &ids {
                    self.vars[id].loan.captures = captures.clone();
                }
            }
            if !mentions::closure_moves_captures(closure) {
                for id in ids {
                    self.vars[id].calls = Calls::LeaveIt;
                }
            }
        }
    }

    pub(super) fn declare_pattern(&mut self, pat: &syn::Pat, init: Init, borrows: Option<(VarId, Span)>) -> Vec<VarId> {
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        bindings
            .into_iter()
            .map(|binding| {
                let id = self.declare(binding.ident, binding.mutable, init);
                self.vars[id].loan.of = borrows;
                if binding.by_ref {
                    self.vars[id].holds_no_drop();
                }
                id
            })
            .collect()
    }

    /// The owned local that `init` borrows directly (`&v`, `&mut v.field`, `v.iter()`), if any.
    pub(super) fn borrowed_local(&self, init: &syn::Expr) -> Option<(VarId, Span)> {
        let (root, span) = borrow_root(init)?;
        let id = self.lookup(&root.to_string())?;
        let var = &self.vars[id];
        if var.no_drop() || var.exclusive_ref() {
            // Borrowing through a reference does not borrow the state machine.
            return None;
        }
        Some((id, span))
    }
}

/// The name of a temporary of the lowering's that `pat` binds (`mut __t0`), if it is one.
pub(super) fn lowering_temporary(pat: &syn::Pat) -> Option<String> {
    match pat {
        syn::Pat::Ident(binding) if binding.subpat.is_none() && is_operand_temporary(&binding.ident) => {
            Some(binding.ident.to_string())
        }
        _ => None,
    }
}

/// Is a value computed by `init` one without a destructor of its own, that holds nothing
/// after its last use: a literal, a reference, a closure that borrows what it captures
/// (without `move`, and using none of it by value; rustc borrows a captured `Copy` value
/// too)? Saved only where read later.
pub(super) fn is_no_drop(init: &syn::Expr) -> bool {
    match init {
        syn::Expr::Lit(_) | syn::Expr::Reference(_) => true,
        // One that uses a captured value by value takes it (since edition 2021).
        syn::Expr::Closure(node) => node.capture.is_none() && !mentions::closure_moves_captures(node),
        syn::Expr::Paren(node) => is_no_drop(&node.expr),
        syn::Expr::Unary(node) => matches!(node.op, syn::UnOp::Neg(_)) && is_no_drop(&node.expr),
        _ => false,
    }
}

pub(super) fn let_scrutinee<'e>(cond: &'e syn::Expr, pat: &syn::Pat) -> Option<&'e syn::Expr> {
    match cond {
        syn::Expr::Let(node) if std::ptr::eq(&*node.pat, pat) => Some(&node.expr),
        syn::Expr::Binary(node) => let_scrutinee(&node.left, pat).or_else(|| let_scrutinee(&node.right, pat)),
        syn::Expr::Paren(node) => let_scrutinee(&node.expr, pat),
        _ => None,
    }
}

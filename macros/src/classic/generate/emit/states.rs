//! States and their segments: a new state, the jump into it (what it saves of each local, by
//! what the code after it reads), where a segment begins (what every edge into it saved,
//! restored), and the loop heads whose entry states the walk settles.

use super::*;

impl<'a> Emitter<'a> {
    pub(super) fn new_state(&mut self) -> StateId {
        let state = self.states.next_state;
        self.states.next_state += 1;
        state
    }

    pub(super) fn finish(&mut self, mut segment: Segment) {
        while segment.levels.len() > 1 {
            let level = segment.levels.pop().expect("checked");
            let code = self.close_level(level);
            segment.levels.last_mut().expect("checked").body.extend(code);
        }
        let body = segment.levels.pop().expect("the root level").code();
        // An unsafe operation of the user's outside `unsafe` is the twin's error (E0133, once,
        // as for the plain function): the state machine's copy of the code runs in an `unsafe`
        // block. Without it, rustc would report it a second time in other words ("requires
        // unsafe function or block": rustc words E0133 so where `unsafe_op_in_unsafe_fn` is
        // allowed, which the segment's `allow(warnings)` does to the edition 2024 default).
        // The block draws no `unsafe_code` lint, which rustc does not report in code an
        // attribute macro writes (its span is the macro's), so that a crate with
        // `#![forbid(unsafe_code)]` can lower its functions; an `allow(unsafe_code)` here would
        // be E0453 in such a crate, for every function.
        let body = quote!(#[allow(unused_unsafe)] unsafe { #body });
        self.states.segments.push((segment.order, segment.state, body));
    }

    /// Code that saves what is alive in `scopes[..depth]` and moves to `target`. Records the
    /// edge for the target's entry states. A `break` or `continue` (`leaving`: the length of
    /// `rest` where it goes on) skips the code after it: what is alive is what the code it
    /// leads to reads (a `break` out of the test of an awaiting guard is followed, in `rest`,
    /// by the `unreachable!()` no arm reaches), and, as an assignment there that would make
    /// the value dead may never run, a reference or literal named later at all is kept.
    pub(super) fn jump_code(
        &mut self,
        target: StateId,
        depth: usize,
        await_span: Option<Span>,
        leaving: Option<usize>,
    ) -> TokenStream {
        let sm = sm();
        let mut saves = TokenStream::new();
        let mut edge = self.init.clone();
        let in_scope: Vec<VarId> = self.scopes[..depth].iter().flat_map(|scope| scope.vars.clone()).collect();
        for &id in &in_scope {
            let var = &self.vars[id];
            let span = await_span.unwrap_or(var.span);
            if var.lives_in_place() {
                // It stays where it is; its guard must not drop it as the state's code ends.
                let guard = &var.names.guard;
                saves.extend(quote_spanned!(span=> ::core::mem::forget(#guard);));
                continue;
            }
            match self.init[id] {
                Init::No => {}
                Init::InSlot => edge[id] = Init::Yes,
                Init::Yes | Init::FieldsUsed(_) | Init::UsedByValue => {
                    let needed = match leaving {
                        Some(rest_len) => self.var_mentioned_after_leaving(id, rest_len) || self.var_named_later(id),
                        None => self.var_mentioned_later(id),
                    };
                    if var.no_drop() && !needed {
                        edge[id] = Init::No;
                        continue;
                    }
                    if let Init::FieldsUsed(_) | Init::UsedByValue = self.init[id] {
                        // A field, or the value, may have moved out: it lives in place in the
                        // next walk.
                        self.keep_in_place(id, Reason::PartlyMovedAcrossState);
                    }
                    // What it borrows must not move out and back in (a state that does not
                    // await, at a loop's head, saves it too): in place in the next walk.
                    if let Some(root) = self.vars[id].loan.root.filter(|&root| !self.vars[root].lives_in_place()) {
                        self.keep_in_place(root, Reason::BorrowedBySavedLocal);
                    }
                    for captured in self.vars[id].loan.captures.clone() {
                        if !self.vars[captured].lives_in_place() {
                            self.keep_in_place(captured, Reason::CapturedBySavedClosure);
                        }
                    }
                    let var = &mut self.vars[id];
                    var.walk.slotted = true;
                    let (field, name) = (&var.field, &var.name);
                    saves.extend(quote_spanned!(span=> #sm.#field = ::core::option::Option::Some(#name);));
                }
                Init::Maybe => {
                    let var = &mut self.vars[id];
                    var.walk.slotted = true;
                    let (field, maybe) = (&var.field, &var.names.maybe);
                    saves.extend(quote_spanned!(span=> #sm.#field = #maybe;));
                }
            }
        }
        self.states.edges.push((target, edge));
        let label = dispatch_label();
        quote!(#saves #sm.state = #target; continue #label;)
    }

    /// Asks for the next walk to keep `id` in place (a user's local, a parameter or `self`),
    /// for `reason`.
    pub(super) fn keep_in_place(&mut self, id: VarId, reason: Reason) {
        let var = &self.vars[id];
        let name = var.name.to_string();
        if name == mentions::SELF_LOCAL {
            self.found.wants_in_place.insert(Binding::SelfValue, reason);
        } else if !var.walk.hidden && (!name.starts_with("__") || var.param()) {
            // This binding, not every one of its name.
            self.found.wants_in_place.insert(Binding::of(&var.name), reason);
        }
    }

    pub(super) fn jump(&mut self, target: StateId, await_span: Option<Span>) {
        if !self.position.reachable {
            return;
        }
        let depth = self.scopes.len();
        let code = self.jump_code(target, depth, await_span, None);
        self.emit(code);
        self.position.reachable = false;
    }

    /// Start the segment of `state`, at the current scope depth, entered by the edges
    /// recorded so far. `prologue` runs before anything is restored.
    pub(super) fn begin(&mut self, state: StateId, prologue: TokenStream, loop_head: bool) -> bool {
        let in_scope: Vec<VarId> = self.scopes.iter().flat_map(|scope| scope.vars.clone()).collect();
        let mut entry: Option<Vec<Init>> = None;
        let var_count = self.vars.len();
        for (_, edge) in self.states.edges.iter().filter(|(target, _)| *target == state) {
            let mut edge = edge.clone();
            edge.resize(var_count, Init::No);
            entry = Some(match entry {
                None => edge,
                Some(mut joined) => {
                    for &id in &in_scope {
                        joined[id] = joined[id].join(edge[id]);
                    }
                    joined
                }
            });
        }
        if loop_head {
            if let (Some(entry), Some(assumed)) = (entry.as_mut(), self.config.assumed.get(&state)) {
                for &id in &in_scope {
                    if let Some(&assumed) = assumed.get(&self.keys[id]) {
                        entry[id] = entry[id].join(assumed);
                    }
                }
            }
            if let Some(entry) = &entry {
                let keyed = in_scope.iter().map(|&id| (self.keys[id].clone(), entry[id])).collect();
                self.states.heads.insert(state, keyed);
                self.states.loop_heads.push((state, in_scope.clone()));
            }
        }
        let Some(entry) = entry else {
            // Nothing reaches this state: what follows is dead code, kept out.
            self.position.reachable = false;
            return false;
        };
        let old = std::mem::replace(
            &mut self.states.segment,
            Segment { state, order: self.states.begun + 1, levels: vec![Level::new(TokenStream::new(), prologue)] },
        );
        self.states.begun += 1;
        if self.states.pinned.contains(&old.state) {
            self.states.parked.push(old);
        } else {
            self.finish(old);
        }
        for &id in &in_scope {
            self.init[id] = entry[id];
        }
        let sm = sm();
        let scopes: Vec<(bool, Vec<VarId>)> =
            self.scopes.iter().map(|scope| (scope.unsafety, scope.vars.clone())).collect();
        for (depth, (unsafety, vars)) in scopes.into_iter().enumerate() {
            if depth > 0 {
                let head = if unsafety { quote!(unsafe) } else { quote!() };
                self.push_level(head);
            }
            for id in vars {
                if self.vars[id].lives_in_place() {
                    let binding = self.place_binding(id);
                    self.emit(binding);
                    continue;
                }
                let var = &self.vars[id];
                let mutability = if var.mutable { quote!(mut) } else { quote!() };
                let (name, field, maybe) = (var.name.clone(), var.field.clone(), var.names.maybe.clone());
                // A local that holds no value here, or maybe one (kept in its hidden
                // `Option`), is declared under its own name too where code here may assign
                // it (nothing can read it before); `drop_replaced` drops a maybe-held value
                // where the assignment is.
                let uninit = matches!(self.init[id], Init::No | Init::Maybe) && !var.sink() && self.var_named_later(id);
                if uninit {
                    let declaration = quote! {
                        #[allow(unused_mut, unused_variables)]
                        let #mutability #name;
                    };
                    self.declare_where_assigned(name.clone(), declaration);
                }
                let code = match self.init[id] {
                    Init::Yes | Init::FieldsUsed(_) | Init::UsedByValue => Some(quote! {
                        #[allow(unused_mut, unused_variables)]
                        let #mutability #name = ::core::option::Option::take(&mut #sm.#field).unwrap_or_else(|| ::core::unreachable!());
                    }),
                    Init::Maybe => Some(quote! {
                        #[allow(unused_mut, unused_variables)]
                        let mut #maybe = ::core::option::Option::take(&mut #sm.#field);
                    }),
                    Init::InSlot | Init::No => None,
                };
                self.emit(code.unwrap_or_default());
            }
        }
        self.position.reachable = true;
        true
    }

    /// After a branch: back to the segment the construct started in, with its levels closed
    /// down to `depth`.
    pub(super) fn back_to(&mut self, origin: StateId, depth: usize) {
        if self.states.segment.state != origin {
            let position =
                self.states.parked.iter().rposition(|segment| segment.state == origin).expect("the origin is parked");
            let origin = self.states.parked.remove(position);
            let current = std::mem::replace(&mut self.states.segment, origin);
            self.finish(current);
        }
        while self.states.segment.levels.len() > depth {
            self.pop_level();
        }
    }

    /// A loop head's entry state joins every edge into it, the back edges the walk found
    /// after beginning it included: the next round of the fixpoint starts from that.
    pub(super) fn join_back_edges(&mut self) {
        for (state, in_scope) in std::mem::take(&mut self.states.loop_heads) {
            let Some(entry) = self.states.heads.get_mut(&state) else {
                continue;
            };
            for (_, edge) in self.states.edges.iter().filter(|(target, _)| *target == state) {
                for &id in &in_scope {
                    if let (Some(joined), Some(&seen)) = (entry.get_mut(&self.keys[id]), edge.get(id)) {
                        *joined = joined.join(seen);
                    }
                }
            }
        }
    }

    /// State 0 takes a parameter out of the slot the stub filled.
    pub(super) fn restore_param(&mut self, id: VarId) {
        let sm = sm();
        self.vars[id].role = Role::Param;
        if self.vars[id].lives_in_place() {
            let binding = self.place_binding(id);
            self.emit(binding);
            return;
        }
        let var = &mut self.vars[id];
        var.walk.slotted = true;
        let mutability = if var.mutable { quote!(mut) } else { quote!() };
        let (name, field) = (&var.name, &var.field);
        let code = quote! {
            #[allow(unused_mut, unused_variables)]
            let #mutability #name = ::core::option::Option::take(&mut #sm.#field).unwrap_or_else(|| ::core::unreachable!());
        };
        self.emit(code);
    }
}

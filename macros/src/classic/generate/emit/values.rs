//! Expressions the walk writes: plain code as it is, an await as a state's end and the next
//! one's beginning, a construct taken apart; and where each value goes (its `Sink`).

use super::*;

impl<'a> Emitter<'a> {
    /// Hand a value to where it goes.
    pub(super) fn deliver(&mut self, value: TokenStream, sink: &Sink, span: Span) {
        match sink {
            Sink::Discard => {
                let value = match syn::parse2::<syn::Expr>(value.clone()) {
                    Ok(expr) => syntax::expression_statement(expr).into_token_stream(),
                    Err(_) => value,
                };
                self.emit(quote_spanned!(span=> #value;))
            }
            Sink::Assign(var, _, declared) => {
                // Straight into the slot: the merge point restores it. (A local declared
                // before the construct could not be inferred in segments that never assign it.)
                let code = self.sink_code(*var, declared.as_deref(), value, span);
                self.emit(code);
            }
            Sink::Return => {
                // Of the result type, as a tail's value (`close_level`) and a returned one.
                let value = stored_value(value, self.config.result_type.as_ref());
                let code = quote_spanned!(span=> return ::core::task::Poll::Ready(#value););
                self.emit(code);
                self.position.reachable = false;
            }
        }
    }

    /// `value` into the slot of a construct's hidden local `var`, as a value of the type its
    /// `let` declares, if it declares one (`stored_value`).
    pub(super) fn sink_code(
        &mut self,
        var: VarId,
        declared: Option<&syn::Type>,
        value: TokenStream,
        span: Span,
    ) -> TokenStream {
        let value = stored_value(value, declared);
        let sm = sm();
        let variable = &mut self.vars[var];
        variable.walk.slotted = true;
        let field = &variable.field;
        self.init[var] = Init::InSlot;
        quote_spanned!(span=> #sm.#field = ::core::option::Option::Some(#value);)
    }

    /// An `if` or `match` statement whose branches give values (`if c { Some(x) } else { None
    /// };`), taken apart: each branch's value goes to one hidden local, as in a `let`, so that
    /// rustc infers one type from all of them (a branch's value alone, `None;`, has none), and
    /// it drops where the statement ends, as the plain statement's value does.
    pub(super) fn discarded_construct(&mut self, expr: &'a Expr) {
        if let Some(hidden) = self.construct_value(expr, None) {
            self.emit(quote!(::core::mem::drop(#hidden);));
        }
    }

    /// A construct's value, in a hidden local bound under the name this returns where the code
    /// after the construct is reachable (`None` where every path left it).
    /// `declared`: the type the `let` it initializes declares (`stored_value`).
    pub(super) fn construct_value(&mut self, expr: &'a Expr, declared: Option<&syn::Type>) -> Option<Ident> {
        let hidden = self.hidden("v");
        let var = self.declare(hidden.clone(), false, Init::No);
        // Slotted once something stores a value into it: a construct that always diverges
        // never does, and an unused slot's type could not be inferred.
        self.vars[var].role = Role::Sink;
        let field = self.vars[var].field.clone();
        self.expr(expr, Sink::Assign(var, field, declared.map(|ty| Rc::new(ty.clone()))));
        if !self.position.reachable {
            return None;
        }
        if self.init[var] == Init::InSlot {
            // The construct did not end in a new state (a block): take the value back out of
            // its slot here.
            let sm = sm();
            let field = &self.vars[var].field;
            self.emit(quote!(let #hidden = ::core::option::Option::take(&mut #sm.#field).unwrap_or_else(|| ::core::unreachable!());));
        }
        self.init[var] = Init::No;
        Some(hidden)
    }

    /// Does this construct move a variable declared outside it on some of its paths only, or
    /// assign one that is not surely initialized on some of them, so that each path must
    /// save its own set of locals?
    pub(super) fn must_split(&self, expr: &Expr) -> bool {
        let Some(source) = expr.source() else {
            return true;
        };
        if matches!(expr, Expr::Plain(_)) {
            return false;
        }
        // A jump out of it saves the locals by name: not where a binding of its own hides one.
        let breaks_out = crate::classic::syntax::jumps::jumps_out_of(source);
        if breaks_out && names_bound_in(source).iter().any(|name| self.lookup(name).is_some()) {
            return true;
        }
        let found = mentions::of_expr(source);
        let assigned = |name: &str| found.iter().any(|other| other.kind == Kind::Assign && other.name == name);
        // A path that moves a local and then jumps out (`consume(p); break;`) reads nothing
        // after the move, whatever the code after the construct does: only a walk sees that.
        let jumps_out = breaks_out || has_return(source);
        found.iter().enumerate().any(|(index, mention)| {
            let Some(id) = self.lookup(&mention.name) else {
                return false;
            };
            // Moved before, in the construct's own evaluation (`if { consume(p); c } { .. }
            // else { p = .. }`): the local may hold nothing where a path assigns it.
            let moved_before =
                || found[..index].iter().any(|earlier| earlier.name == mention.name && earlier.kind == Kind::Move);
            match mention.kind {
                // A move before a jump out (`if (p? == 1) { break }`) too: the jump saves what
                // is alive when it runs, which only a walk knows.
                Kind::Move => {
                    (mention.conditional || jumps_out)
                        && self.init[id].holds_value()
                        && !self.vars[id].no_drop()
                        && (jumps_out || !self.mentioned_later(&mention.name))
                }
                Kind::Assign => mention.conditional && (!self.init[id].holds_value() || moved_before()),
                // A field used on a path that then assigns the whole local: only that path's
                // walk sees the local whole again.
                Kind::MoveField => mention.conditional && assigned(&mention.name),
                Kind::Read => false,
            }
        })
    }

    pub(super) fn expr(&mut self, expr: &'a Expr, sink: Sink) {
        if let Some(source) = expr.source()
            && !self.must_split(expr)
        {
            return self.plain(source, sink);
        }
        match expr {
            Expr::Plain(source) => self.plain(source, sink),
            Expr::Await(node) => {
                self.await_expr(node);
                if self.position.reachable {
                    self.deliver(awaited().into_token_stream(), &sink, node.span);
                }
            }
            Expr::Block(block) => self.block(block, sink),
            Expr::If(node) => self.if_expr(node, sink),
            Expr::Match(node) => self.match_expr(node, sink),
            Expr::Loop(node) => self.loop_expr(node, sink),
        }
    }

    pub(super) fn plain(&mut self, source: &syn::Expr, sink: Sink) {
        self.plain_value(source, sink, None);
    }

    /// Code without an await, its value handed to `sink`. With `block_tail` (the span of the
    /// user's block whose tail it is, straight in that block's level), it stays the block's
    /// tail, the level handing the block's value to the sink (`close_level`), unless code must
    /// follow the value (a drop of what it replaced).
    pub(super) fn plain_value(&mut self, source: &syn::Expr, sink: Sink, block_tail: Option<Span>) {
        self.keep_what_places_borrow(source);
        let mut rewritten = self.rewrite_expr(source);
        let mut replaced = self.apply(&mentions::of_expr(source));
        self.drop_on_assignment(&mut rewritten, &mut replaced);
        // (`return`, `break`, `continue`, a panic, or a block of the user's that ends in one.)
        let diverges = crate::classic::syntax::jumps::expr_leaves(source).is_some();
        match block_tail {
            _ if diverges => {
                self.emit(quote!(#rewritten;));
                self.position.reachable = false;
            }
            Some(span) if replaced.is_empty() => {
                // Nothing more goes into this level: the block ends here (`stmts`, `block`).
                self.emit(rewritten.into_token_stream());
                self.position.reachable = !matches!(sink, Sink::Return);
                self.states.segment.levels.last_mut().expect("a level is open").tail = Some((sink, span));
            }
            _ => self.deliver(rewritten.into_token_stream(), &sink, source.span()),
        }
        self.drop_replaced(replaced);
    }

    /// `operand.await`: make the awaiter, save, and continue in the await's own state, which
    /// polls it. Leaves the result in `__awaited`.
    pub(super) fn await_expr(&mut self, node: &'a ir::Await) {
        // `Box::pin(f(..)).await` (which the plain `async fn` needs to recurse) awaits the task
        // directly: each classic call is its own heap task already.
        let operand = recursive_call(&node.operand, self.config.function, self.config.bare_name_recursion)
            .unwrap_or(&node.operand);
        self.keep_what_places_borrow(operand);
        let mut operand = {
            let operand = &self.places_awaited(operand);
            let jumps = self.rewriter().scan_expr(operand);
            let jumps = self.jumps_for(jumps);
            let mut rewriter = self.rewriter();
            rewriter.jumps = jumps;
            rewriter.expr(operand)
        };
        let mut replaced = self.apply(&mentions::of_awaited(&node.operand));
        self.drop_on_assignment(&mut operand, &mut replaced);
        self.drop_replaced(replaced);
        let state = self.new_state();
        let field = self.field_name(&format!("awaiter_{state}"));
        self.found.awaiters.push(Awaiter { field: field.clone(), seq: self.naming.next_seq });
        self.naming.next_seq += 1;
        let sm = sm();
        let krate = self.config.krate;
        let span = node.span;
        self.emit(quote_spanned! {span=>
            #krate::__private::fill_awaiter(&mut #sm.#field, {
                #[allow(unused_imports)]
                use #krate::__private::AwaitAnyFuture as _;
                (#operand).__lowering_awaiter()
            });
        });
        self.jump(state, Some(span));
        let cx = cx();
        let awaited = awaited();
        let prologue = quote_spanned! {span=>
            let #awaited = match #krate::__private::poll_awaiter(&mut #sm.#field, #cx) {
                ::core::task::Poll::Ready(value) => value,
                ::core::task::Poll::Pending => return ::core::task::Poll::Pending,
            };
        };
        self.begin(state, prologue, false);
    }
}

//! User code that names locals living in place (`analyse::loans`): each mention becomes the
//! place it denotes in the pinned state machine.
//!
//! Such a local `v` is, in `move_next`, a `Place` (a raw pointer to its `Slot` field), bound
//! under the user's own name where each state's code begins. A mention of `v` becomes:
//!
//! - `(*v.get())` where the code uses it as a place: borrowed (`&v`, `&mut v`, a method call,
//!   a field, an index, a format argument, a call of a closure) or assigned through
//!   (`v.f = x`, `v += 1`);
//! - `(&ByValue(v)).by_value()` where it is used by value: rustc picks a copy for a `Copy`
//!   type, a reborrow for a `&mut`, a move otherwise, exactly as it does for the plain local (a
//!   move clears the slot's drop flag, as the plain `async fn` clears its own);
//! - `(&FieldByValue::new(v, ..)).field_by_value()` for a field used by value
//!   (`consume(pair.a)`): a copy of a `Copy` field, a reborrow of a `&mut` one, and otherwise a
//!   move (`Place::take_field`): the field's bit in the slot says it moved, and the rest of
//!   the value drops without it (a slot has a bit for each field the function moves out of
//!   its local, however many: `Slot<T, [u32; N]>` past 32);
//! - `v.assign(x)` for `v = x` (the old value, if any, drops first, as in Rust), and
//!   `v.assign_field(..)` for a field that may have moved.
//!
//! Closures and async blocks that capture only such locals capture their places (`move`);
//! a `move` closure gets the values (by value, as above) before it is made.
//!
//! A macro is code the lowering sees only as tokens. A standard one (`format!`, `vec!`,
//! `assert!`, ..) has a known grammar: its arguments are expressions, rewritten as above. So
//! are the fields of tracing's and log's macros, which borrow what they name and whose values
//! hold no borrow. Any other macro may keep what it is handed past the call (it may expand to
//! a `move` closure or an `async move` block that it stores): it is *lent* the local
//! (`Places::lent_macro`):
//!
//! - by value, where the macro is the local's last use (no code after the statement names it,
//!   nothing else in the statement does, and the macro runs once, as part of the statement):
//!   `let v = <v by value>;` before the macro, whose tokens then name the value, as the plain
//!   function's macro names the local itself;
//! - otherwise as `(*lend(v, __lent_run))`: a `&'run mut` reference whose lifetime is that of
//!   a borrow of a local of the current run of `move_next` (or of the closure or async block
//!   around the macro, where that code runs where it is made: awaited or called there).
//!
//!
//! # Soundness
//!
//! The generated code dereferences raw pointers into the state machine. It relies on:
//!
//! 1. **The state machine never moves once `move_next` has run.** `builder::start_pinned`
//!    puts it in its heap task first; the task drops it in place (`Core::set_machine`). Checked
//!    by `borrows_across_awaits::address_is_stable`, and by valgrind over those tests.
//! 2. **Every borrow the code takes is one rustc accepted.** The user's body is also emitted
//!    unchanged as a plain `async` block (the twin, `classic::twin`) that rustc borrow-checks
//!    and never runs: a body whose borrows rustc rejects is rejected there, at the user's line.
//!    A body it accepts borrows only what a plain coroutine, whose locals never move either,
//!    may borrow.
//! 3. **The classic code moves, drops and assigns exactly what the plain body does, in the
//!    same order**, so that (2) carries over: locals are dropped by a `SlotGuard` where their
//!    scope ends, or by their `Slot` when a suspended state machine is dropped (fields in
//!    reverse declaration order, awaiters first). Checked by the differential tests
//!    (`tests/tests/borrows_across_awaits.rs` and the fuzzer), which compare event logs and
//!    drop orders with the plain `async fn`, the future dropped at every suspension included.
//! 4. **No local is read after it moved.** `Place::get` and `Place::take` check the slot's
//!    drop flag and panic rather than read a moved value, should (3) ever fail.
//! 5. **User code gets no `unsafe` it did not write.** `move_next` of a pinned state machine
//!    runs in an `unsafe` block (for the place dereferences), which would also accept the
//!    user's own unsafe operations; the twin, which is not in an `unsafe` block, rejects those.
//! 6. **No place outlives its state machine.** A place (`Place`, a raw pointer) is only ever
//!    captured by code the lowering sees and the twin checks: a closure or async block that
//!    the plain body lets borrow the local cannot outlive the local's scope, which ends before
//!    the state machine is freed. Code the lowering cannot see into (a macro of the user's)
//!    never receives a raw place: it is lent the value, or a reference bounded by a run that
//!    ends before the state machine can be freed (a run of `move_next`, or of a closure or
//!    async block that is gone before its statement ends), so that keeping the borrow longer
//!    (storing the macro's closure past the call, or holding it across one of the function's
//!    awaits) is rustc's error, not a pointer into freed memory. An await among a macro's
//!    tokens is the macro's own (`parse::awaits`): it never makes a local live in place.
//!    Checked by `tests/tests/escaping_captures.rs` (the macro's closure and async block run
//!    after the task is gone, under valgrind too), and by the ui tests
//!    `macro_capture_used_after` and `macro_borrow_held_across_an_await`.
//!
//! Lending by value is exact for a macro that moves the local (what the plain function's
//! macro does with it) and for a `Copy` one; a macro that only borrows it leaves the value to
//! drop where its statement ends instead of where the local's scope ends (`docs/classic-lowering.md`, "Where the
//! lowerings differ"; `escaping_captures::a_borrowing_macro_at_a_last_use_drops_the_value_early`).

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use super::captures;
use crate::classic::analyse::{assignments, mentions};
use crate::classic::parse::bindings::pattern_bindings;
use crate::classic::parse::lower::is_comparison;
use crate::classic::parse::macro_bindings;
use crate::classic::parse::std_macros;
use crate::classic::parse::tracing_macros::{has_tracing_fields, is_single_eq};
use crate::classic::syntax;

/// The name of the reference that bounds what `move_next` lends to macros it cannot see into
/// (`Places::lend`): a borrow of a local of the closure, declared where it begins.
pub(crate) const LENT_RUN: &str = "__lent_run";

/// A local living in place, as user code names it here.
pub(crate) struct InPlace {
    /// The identifier its place is bound to (the user's, or the hidden one for `self`).
    pub ident: Ident,
    /// Its field in the state machine: names it among the locals of the function (`parts`).
    pub field: String,
}

pub(crate) struct Places<'a> {
    /// By the name user code writes (`self` for the receiver).
    pub visible: &'a HashMap<String, InPlace>,
    /// The other locals in scope: a closure that captures one of them keeps its capture mode.
    pub others: &'a HashSet<String>,
    /// Names bound inside the code being rewritten, innermost last.
    bound: Vec<String>,
    /// The fields each local (by state-machine field) has moved out of it anywhere in the
    /// function, as known so far (`parts`, then those found here): a field's index is its bit
    /// in the local's `Slot`.
    pub parts: &'a HashMap<String, Vec<String>>,
    pub found_parts: Vec<(String, String)>,
    krate: &'a syn::Path,
    /// The visible locals used by value so far (whole, not a field of them).
    used_by_value: Vec<String>,
    /// The fields of visible locals used by value so far: the local's name and the path.
    fields_by_value: Vec<(String, Vec<syn::Member>)>,
    /// How many hidden bindings closures and async blocks took first so far (fields, and
    /// locals whose capture rustc picks): their names number them.
    hidden_captures: usize,
    /// The fields the closure or async block being rewritten took first (`captures::plan`):
    /// a mention of one, where its local is not hidden, names the binding it was taken into.
    taken_fields: Vec<(Ident, String, Vec<syn::Member>)>,
    /// The visible locals that no code after the statement being rewritten names: a macro
    /// the lowering cannot see into, which names one of them and nothing else in the
    /// statement does, gets its value (`lent_values`).
    last_uses: HashSet<String>,
    /// How many times each name is mentioned in the statement being rewritten (as
    /// `mentions` counts): a local all of whose mentions are in one macro is lent by value.
    mentions_here: HashMap<String, usize>,
    /// How deep the rewrite is inside code that may run more than once or later than the
    /// statement (a loop body, a closure, an async block): no value is lent there.
    deferred: usize,
    /// `let v = <v by value>;` for a statement that is a macro lent values (`stmt`): what
    /// the caller writes before it.
    pub preludes: Vec<TokenStream>,
    /// Each lending by value, by `lent_key`: the twin takes the same values at the same
    /// macros, so that rustc checks the move it makes (`classic::twin`).
    pub lent_by_value: Vec<String>,
    /// Rewriting the tokens of one of tracing's or log's macros, whose grammar borrows every
    /// local it names and whose value holds none: they get places as visible code does.
    tracing_tokens: bool,
    /// The closure or async block about to be rewritten runs where it is made (awaited or
    /// called there): it cannot outlive the statement, so what it lends to macros is
    /// bounded by its own run rather than by `move_next`'s.
    runs_where_made: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    Place,
    Value,
}

impl<'a> Places<'a> {
    pub(crate) fn new(
        visible: &'a HashMap<String, InPlace>,
        others: &'a HashSet<String>,
        parts: &'a HashMap<String, Vec<String>>,
        krate: &'a syn::Path,
    ) -> Self {
        Places {
            visible,
            others,
            bound: Vec::new(),
            parts,
            found_parts: Vec::new(),
            krate,
            used_by_value: Vec::new(),
            fields_by_value: Vec::new(),
            hidden_captures: 0,
            taken_fields: Vec::new(),
            last_uses: HashSet::new(),
            mentions_here: HashMap::new(),
            deferred: 0,
            preludes: Vec::new(),
            lent_by_value: Vec::new(),
            tracing_tokens: false,
            runs_where_made: false,
        }
    }

    /// The visible locals that code after the statement to rewrite does not name.
    pub(crate) fn with_last_uses(mut self, last_uses: HashSet<String>) -> Self {
        self.last_uses = last_uses;
        self
    }

    fn count_mentions(&mut self, found: Vec<mentions::Mention>) {
        self.mentions_here.clear();
        for mention in found {
            *self.mentions_here.entry(mention_name(mention)).or_default() += 1;
        }
    }

    /// `v.a.b` (fields only) with `v` a visible local: that local and the path (`a.b`).
    fn field_path(&self, expr: &syn::Expr) -> Option<(&'a InPlace, Vec<syn::Member>)> {
        let (root, members) = captures::field_chain(expr)?;
        Some((self.lookup(&root)?, members))
    }

    /// The number of a moved field (`path`) of `local` among the fields the function moves out
    /// of it (its bit in the local's `Slot`), recording the field if it is new.
    fn part_index(&mut self, local: &InPlace, path: &str, record: bool) -> Option<u32> {
        let known = self.parts.get(&local.field).map(Vec::as_slice).unwrap_or_default();
        let index = match known.iter().position(|known| known == path) {
            Some(index) => index,
            None => {
                let new: Vec<String> = self
                    .found_parts
                    .iter()
                    .filter(|(field, _)| *field == local.field)
                    .map(|(_, path)| path.clone())
                    .collect();
                match new.iter().position(|known| known == path) {
                    Some(index) => known.len() + index,
                    None if record => {
                        self.found_parts.push((local.field.clone(), path.to_owned()));
                        known.len() + new.len()
                    }
                    None => return None,
                }
            }
        };
        Some(u32::try_from(index).expect("fewer than 2^32 fields"))
    }

    /// What drops the rest of `local` when fields were moved out of it: every field but
    /// the moved ones, as Rust drops a partly moved value.
    fn rest_dropper(&self, local: &InPlace) -> TokenStream {
        let mut paths: Vec<&String> =
            self.parts.get(&local.field).map(|known| known.iter().collect()).unwrap_or_default();
        paths.extend(self.found_parts.iter().filter(|(field, _)| *field == local.field).map(|(_, path)| path));
        let whole = Ident::new("__whole", Span::mixed_site());
        let moved = Ident::new("__moved", Span::mixed_site());
        let krate = self.krate;
        let forgets = paths.iter().enumerate().map(|(index, path)| {
            let index = u32::try_from(index).expect("fewer than 2^32 fields");
            let members = path.split('.').map(|member| syn::parse_str::<syn::Member>(member).expect("a field name"));
            quote! {
                if #krate::__private::MovedFields::contains(&#moved, #index) {
                    ::core::mem::forget(#whole #(.#members)*);
                }
            }
        });
        quote! {
            |#whole, #moved| {
                #[allow(unused_unsafe)]
                let #whole = unsafe { ::core::ptr::read(#whole) };
                #(#forgets)*
            }
        }
    }

    pub(crate) fn expr(&mut self, expr: &syn::Expr) -> syn::Expr {
        let mut expr = expr.clone();
        if !self.visible.is_empty() {
            self.count_mentions(mentions::of_expr(&expr));
            self.value(&mut expr);
        }
        expr
    }

    /// An await's operand: a closure or async block written there runs where it is made.
    pub(crate) fn awaited(&mut self, expr: &syn::Expr) -> syn::Expr {
        let mut expr = expr.clone();
        if !self.visible.is_empty() {
            self.count_mentions(mentions::of_expr(&expr));
            self.runs_where_made = is_code_literal(&expr);
            self.value(&mut expr);
            self.runs_where_made = false;
        }
        expr
    }

    /// `expr` matched against `patterns` (a `let` initializer, a `match` scrutinee): used by
    /// value if some pattern binds by value and none leaves parts of it in place (`(n, _)`
    /// copies or moves `n` only, and the rest stays).
    pub(crate) fn matched(&mut self, expr: &syn::Expr, patterns: &[&syn::Pat]) -> syn::Expr {
        let mut expr = expr.clone();
        if !self.visible.is_empty() {
            self.count_mentions(mentions::of_expr(&expr));
            self.rewrite(&mut expr, matched_use(patterns));
        }
        expr
    }

    /// A match arm's guard, where the names `pat` binds hide the locals of those names.
    pub(crate) fn guard(&mut self, pat: &syn::Pat, guard: &syn::Expr) -> syn::Expr {
        let mut guard = guard.clone();
        // (A guard may run for each arm it is tried on: nothing is lent by value there.)
        self.mentions_here.clear();
        self.with_bound(binding_names(pat), |this| this.value(&mut guard));
        guard
    }

    /// A statement; a macro statement lent values leaves `preludes` to write before it.
    pub(crate) fn stmt(&mut self, stmt: &syn::Stmt) -> syn::Stmt {
        let mut stmt = stmt.clone();
        if !self.visible.is_empty() {
            self.count_mentions(mentions::of_stmt(&stmt));
            match &mut stmt {
                syn::Stmt::Macro(node) => {
                    let lent = self.lent_macro(&mut node.mac);
                    self.preludes.push(lent);
                }
                _ => self.visit_stmt_mut(&mut stmt),
            }
            if let syn::Stmt::Expr(expr, _) = &mut stmt {
                *expr = syntax::expression_statement(expr.clone());
            }
        }
        stmt
    }

    fn lookup(&self, name: &str) -> Option<&'a InPlace> {
        if self.bound.iter().any(|bound| bound == name) {
            return None;
        }
        self.visible.get(name)
    }

    fn path_name(expr: &syn::Expr) -> Option<String> {
        match expr {
            syn::Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => path
                .path
                .get_ident()
                .map(|ident| ident.to_string())
                .or_else(|| path.path.is_ident("self").then(|| "self".to_owned())),
            _ => None,
        }
    }

    /// A use by value of the local whose place is `ident`: a copy if its type is `Copy`, a
    /// reborrow if it is a `&mut`, a move otherwise, as Rust decides (rustc picks which,
    /// `lowering::__private::ByValue`). A move leaves the slot empty: its drop flag clears.
    fn by_value(&self, ident: &Ident, span: Span) -> syn::Expr {
        let krate = self.krate;
        // The traits are imported once, where `move_next` begins (`classic::expand`):
        // a block here would end an expression statement that starts with it (`{..} | 3;`).
        syn::parse_quote_spanned!(span=> (&#krate::__private::ByValue(#ident)).by_value())
    }

    fn rewrite(&mut self, expr: &mut syn::Expr, usage: Use) {
        if let Some(taken) = self.taken_field(expr) {
            *expr = taken;
            return;
        }
        // (Inside a closure or an async block too: the value moves when that code runs, where
        // Rust moves it into the closure when it is made; the same for one that runs at once.)
        if usage == Use::Value
            && let Some((local, members)) = self.field_path(expr)
        {
            // A field used by value: copied, reborrowed or moved out, as rustc picks
            // (`FieldByValue`); its bit is numbered in case it moves.
            if let Some((name, _)) = captures::field_chain(expr) {
                self.fields_by_value.push((name, members.clone()));
            }
            let path = members_text(&members);
            let index = self.part_index(local, &path, true).expect("recorded");
            let rest = self.rest_dropper(local);
            let span = expr.span();
            let ident = with_span(&local.ident, span);
            let krate = self.krate;
            *expr = syn::parse_quote_spanned!(span=>
                (&#krate::__private::FieldByValue::new(#ident, #index, &raw const (*#ident.get()) #(.#members)*, #rest)).field_by_value()
            );
            return;
        }
        if let Some(name) = Self::path_name(expr)
            && let Some(local) = self.lookup(&name)
        {
            let span = expr.span();
            let ident = with_span(&local.ident, span);
            *expr = if usage == Use::Value {
                self.used_by_value.push(name.clone());
                self.by_value(&ident, span)
            } else {
                syn::parse_quote_spanned!(span=> (*#ident.get()))
            };
            return;
        }
        match expr {
            syn::Expr::Reference(node) => self.rewrite(&mut node.expr, Use::Place),
            syn::Expr::RawAddr(node) => self.rewrite(&mut node.expr, Use::Place),
            syn::Expr::Field(node) => self.rewrite(&mut node.base, Use::Place),
            syn::Expr::Index(node) => {
                self.rewrite(&mut node.expr, Use::Place);
                self.value(&mut node.index);
            }
            syn::Expr::Unary(node) if matches!(node.op, syn::UnOp::Deref(_)) => {
                self.rewrite(&mut node.expr, Use::Place)
            }
            syn::Expr::Paren(node) => self.rewrite(&mut node.expr, usage),
            syn::Expr::Group(node) => self.rewrite(&mut node.expr, usage),
            syn::Expr::MethodCall(node) => {
                // `moves(name)`: at its last use, the user says the method takes it; the twin
                // takes it there too (`lent_by_value`), so that rustc checks the move.
                let hinted = Self::path_name(&node.receiver).filter(|name| {
                    self.deferred == 0
                        && crate::classic::hints::moves(name)
                        && self.last_uses.contains(name)
                        && self.lookup(name).is_some()
                });
                if let Some(name) = &hinted
                    && let Some(key) = receiver_key(&node.receiver, name)
                {
                    self.lent_by_value.push(key);
                }
                let receiver_use = if hinted.is_some() || mentions::consumes_receiver(&node.method.to_string()) {
                    Use::Value
                } else {
                    Use::Place
                };
                self.rewrite(&mut node.receiver, receiver_use);
                for arg in node.args.iter_mut() {
                    self.value(arg);
                }
            }
            syn::Expr::Assign(node) => {
                self.value(&mut node.right);
                if let Some((local, members)) = self.field_path(&node.left)
                    && let Some(index) = self.part_index(local, &members_text(&members), false)
                {
                    let span = node.left.span();
                    let ident = with_span(&local.ident, span);
                    let right = &node.right;
                    *expr = syn::parse_quote_spanned!(span=> #ident.assign_field(#index, &raw mut (*#ident.get()) #(.#members)*, #right));
                    return;
                }
                if let Some(name) = Self::path_name(&node.left)
                    && let Some(local) = self.lookup(&name)
                {
                    let span = node.left.span();
                    let ident = with_span(&local.ident, span);
                    let right = &node.right;
                    *expr = syn::parse_quote_spanned!(span=> #ident.assign(#right));
                    return;
                }
                self.rewrite(&mut node.left, Use::Place);
            }
            syn::Expr::Binary(node) if assignments::is_compound(&node.op) => {
                self.rewrite(&mut node.left, Use::Place);
                self.value(&mut node.right);
            }
            // `a == b` is `PartialEq::eq(&a, &b)`: both operands are borrowed, never moved (a
            // closure comparing with a kept local borrows it, as `mentions` reads it too).
            syn::Expr::Binary(node) if is_comparison(&node.op) => {
                self.rewrite(&mut node.left, Use::Place);
                self.rewrite(&mut node.right, Use::Place);
            }
            syn::Expr::Await(node) if is_code_literal(&node.base) => {
                self.runs_where_made = true;
                self.value(&mut node.base);
                self.runs_where_made = false;
            }
            syn::Expr::Call(node) if is_code_literal(&node.func) => {
                self.runs_where_made = true;
                self.rewrite(&mut node.func, Use::Place);
                self.runs_where_made = false;
                for arg in node.args.iter_mut() {
                    self.value(arg);
                }
            }
            syn::Expr::Call(node) => {
                // A local called (a closure, an `impl AsyncFn`) is borrowed by the call.
                self.rewrite(&mut node.func, Use::Place);
                for arg in node.args.iter_mut() {
                    self.value(arg);
                }
            }
            syn::Expr::Match(node) => {
                let patterns: Vec<&syn::Pat> = node.arms.iter().map(|arm| &arm.pat).collect();
                let usage = matched_use(&patterns);
                self.rewrite(&mut node.expr, usage);
                for arm in node.arms.iter_mut() {
                    let names = binding_names(&arm.pat);
                    self.with_bound(names, |this| {
                        if let syn::Pat::Guard(guard) = &mut arm.pat {
                            this.value(&mut guard.guard);
                        }
                        this.value(&mut arm.body);
                    });
                }
            }
            syn::Expr::Let(node) => {
                let usage = matched_use(&[&node.pat]);
                self.rewrite(&mut node.expr, usage);
                // Its bindings are in scope in what follows in the condition and the branch:
                // `If` and `While` handle them.
            }
            syn::Expr::If(node) => {
                let names = let_names(&node.cond);
                self.value(&mut node.cond);
                self.with_bound(names, |this| this.block(&mut node.then_branch));
                if let Some((_, other)) = &mut node.else_branch {
                    self.value(other);
                }
            }
            syn::Expr::While(node) => {
                let names = let_names(&node.cond);
                self.deferred(|this| {
                    this.value(&mut node.cond);
                    this.with_bound(names, |this| this.block(&mut node.body));
                });
            }
            syn::Expr::Loop(node) => {
                self.deferred(|this| this.block(&mut node.body));
            }
            syn::Expr::ForLoop(node) => {
                self.value(&mut node.expr);
                let names = binding_names(&node.pat);
                self.deferred(|this| this.with_bound(names, |this| this.block(&mut node.body)));
            }
            syn::Expr::Block(node) => self.block(&mut node.block),
            syn::Expr::Unsafe(node) => self.block(&mut node.block),
            syn::Expr::Const(_) => {}
            syn::Expr::Closure(node) => {
                let own_run = std::mem::take(&mut self.runs_where_made);
                if let Some((captured, others)) = self.capturing(&syn::Expr::Closure(node.clone())) {
                    if node.capture.is_some() {
                        self.moved_into(expr, &captured);
                    } else {
                        let original = node.clone();
                        self.runs_where_made = own_run;
                        let (moved, fields) = self.moves_inside(|this| this.closure(node, others));
                        // One it also assigns (`v = ..`, `v += ..`), Rust's closure borrows
                        // mutably if it is `Copy` and takes otherwise: rustc picks (`chosen`).
                        let original = syn::Expr::Closure(original);
                        let assigned = assigned_in(&original);
                        let (chosen, moved): (Vec<String>, Vec<String>) =
                            moved.into_iter().partition(|name| assigned.contains(name));
                        let captures = self.fields_to_capture(&original, fields, &moved, &assigned);
                        if (!moved.is_empty() || !captures.is_empty() || !chosen.is_empty()) && !others {
                            // What it uses by value, it takes when it is made, as Rust's closure
                            // captures it; the rest it reaches through places.
                            let syn::Expr::Closure(original) = original else { unreachable!() };
                            *node = original;
                            self.runs_where_made = own_run;
                            self.with_taken_fields(&captures, |this| {
                                this.with_bound(moved.clone(), |this| this.closure(node, false))
                            });
                            let chosen = self.chosen_captures(&chosen);
                            let places = Self::chosen_places(&chosen);
                            let body = &node.body;
                            *node.body = syn::parse2(quote!({ #places #body })).expect("a block");
                            self.taken_first(expr, &moved, &captures, &chosen);
                        }
                    }
                }
            }
            syn::Expr::Async(node) => {
                let own_run = std::mem::take(&mut self.runs_where_made);
                if let Some((captured, others)) = self.capturing(&syn::Expr::Async(node.clone())) {
                    if node.capture.is_some() {
                        self.moved_into(expr, &captured);
                    } else {
                        let original = node.clone();
                        self.runs_where_made = own_run;
                        let (moved, fields) = self.moves_inside(|this| this.async_block(node, others));
                        let original = syn::Expr::Async(original);
                        let assigned = assigned_in(&original);
                        let (chosen, moved): (Vec<String>, Vec<String>) =
                            moved.into_iter().partition(|name| assigned.contains(name));
                        let captures = self.fields_to_capture(&original, fields, &moved, &assigned);
                        if (!moved.is_empty() || !captures.is_empty() || !chosen.is_empty()) && !others {
                            let syn::Expr::Async(original) = original else { unreachable!() };
                            *node = original;
                            self.runs_where_made = own_run;
                            self.with_taken_fields(&captures, |this| {
                                this.with_bound(moved.clone(), |this| this.async_block(node, false))
                            });
                            let chosen = self.chosen_captures(&chosen);
                            let places = Self::chosen_places(&chosen);
                            node.block.stmts.insert(0, syn::Stmt::Item(syn::Item::Verbatim(places)));
                            self.taken_first(expr, &moved, &captures, &chosen);
                        }
                    }
                }
            }
            syn::Expr::Macro(node) => {
                let lent = self.lent_macro(&mut node.mac);
                if !lent.is_empty() {
                    // The values are taken where the macro is evaluated; the braces are the
                    // user's (the macro's path), so the block's tail follows the user's edition.
                    let span = node.mac.path.span();
                    *expr = syn::parse2(quote_spanned!(span=> { #lent #expr })).expect("a block");
                }
            }
            _ => self.visit_children(expr),
        }
    }

    fn value(&mut self, expr: &mut syn::Expr) {
        self.rewrite(expr, Use::Value);
    }

    /// The operands of any other expression, each used by value.
    fn visit_children(&mut self, expr: &mut syn::Expr) {
        struct Children<'p, 'a>(&'p mut Places<'a>);
        impl VisitMut for Children<'_, '_> {
            fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
                self.0.value(expr);
            }
            fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
                self.0.visit_macro_mut(mac);
            }
            fn visit_field_value_mut(&mut self, field: &mut syn::FieldValue) {
                // `Out { entry }` names the local `entry`: written out (`entry: entry`), so that
                // the value a local kept in place gives has a place to go.
                if field.colon_token.is_none() {
                    field.colon_token = Some(Default::default());
                }
                visit_mut::visit_field_value_mut(self, field);
            }
            fn visit_item_mut(&mut self, _: &mut syn::Item) {}
        }
        visit_mut::visit_expr_mut(&mut Children(self), expr);
    }

    fn block(&mut self, block: &mut syn::Block) {
        let mark = self.bound.len();
        // A statement of the block has run to its end before the next one begins: a macro
        // may be lent by value what those before it named (`{ let r = &v; } m!(v);`), where
        // a borrow still alive is the twin's error at the macro.
        let counted = self.mentions_here.clone();
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            let ran = mentions::of_stmt(&stmt);
            if let syn::Stmt::Macro(node) = &mut stmt {
                // A macro statement lent values: they are taken by a `let` before it, so that
                // the locals the macro declares stay in scope after it.
                let lent = self.lent_macro(&mut node.mac);
                if !lent.is_empty() {
                    stmts.push(syn::Stmt::Item(syn::Item::Verbatim(lent)));
                }
            } else {
                self.visit_stmt_mut(&mut stmt);
            }
            stmts.push(stmt);
            for mention in ran {
                if let Some(count) = self.mentions_here.get_mut(&mention_name(mention)) {
                    *count = count.saturating_sub(1);
                }
            }
        }
        block.stmts = stmts;
        self.bound.truncate(mark);
        self.mentions_here = counted;
    }

    fn deferred(&mut self, f: impl FnOnce(&mut Self)) {
        self.deferred += 1;
        f(self);
        self.deferred -= 1;
    }

    /// `expr` as the code that took fields first names it: `__captured0.c` for `v.b.c` when
    /// `v.b` was taken into `__captured0`, unless a binding inside hides `v` there.
    fn taken_field(&self, expr: &syn::Expr) -> Option<syn::Expr> {
        if self.taken_fields.is_empty() {
            return None;
        }
        let (root, members) = captures::field_chain(expr)?;
        self.lookup(&root)?;
        let (ident, _, path) = self
            .taken_fields
            .iter()
            .find(|(_, local, path)| *local == root && members.len() >= path.len() && members.starts_with(path))?;
        let rest = &members[path.len()..];
        let span = expr.span();
        let ident = with_span(ident, span);
        Some(syn::parse_quote_spanned!(span=> #ident #(.#rest)*))
    }

    fn with_taken_fields(&mut self, taken: &[(Ident, String, Vec<syn::Member>)], f: impl FnOnce(&mut Self)) {
        let mark = self.taken_fields.len();
        self.taken_fields.extend(taken.iter().cloned());
        f(self);
        self.taken_fields.truncate(mark);
    }

    fn with_bound(&mut self, names: Vec<String>, f: impl FnOnce(&mut Self)) {
        let mark = self.bound.len();
        self.bound.extend(names);
        f(self);
        self.bound.truncate(mark);
    }

    /// The visible locals a closure or async block (`expr`) mentions, not counting names its
    /// parameters or its own `let`s bind (a `let` inside that hides an outer local captures
    /// nothing), and whether it mentions other locals of the function too.
    fn captured(&self, expr: &syn::Expr) -> (Vec<String>, bool) {
        let mut places = Vec::new();
        let mut others = false;
        for mention in mentions::of_expr(expr) {
            let name = if mention.name == mentions::SELF_LOCAL { "self".to_owned() } else { mention.name };
            if self.bound.contains(&name) {
                // A local of the code around it (one an enclosing async block took by value,
                // a `let` of an enclosing block): captured as rustc captures it, so the code
                // must not become `move`.
                others = true;
                continue;
            }
            if self.visible.contains_key(&name) {
                if !places.contains(&name) {
                    places.push(name);
                }
            } else if self.others.contains(&name) {
                others = true;
            }
        }
        (places, others)
    }

    /// A closure or async block: the visible locals it captures, or `None` when it captures
    /// none.
    fn capturing(&self, expr: &syn::Expr) -> Option<(Vec<String>, bool)> {
        let (captured, others) = self.captured(expr);
        (!captured.is_empty()).then_some((captured, others))
    }

    /// A `move` closure or async block: it takes the values of the places it names when it
    /// is made, as the plain closure would take the locals; of a local it names only through
    /// fields, those fields alone (`move || v.0` takes `v.0`, as edition 2021 captures, and
    /// the rest of `v` stays in place, to drop where its scope ends).
    fn moved_into(&mut self, expr: &mut syn::Expr, captured: &[String]) {
        let paths = syntax::moved_paths(expr, captured);
        let whole: Vec<String> = paths.iter().filter(|(_, path)| path.is_none()).map(|(local, _)| local.clone()).collect();
        let fields: Vec<(String, Vec<syn::Member>)> = paths
            .into_iter()
            .filter_map(|(local, path)| path.map(|path| (local, path)))
            .filter(|(local, _)| self.lookup(local).is_some())
            .collect();
        if !fields.is_empty() {
            let captures: Vec<(Ident, String, Vec<syn::Member>)> = fields
                .into_iter()
                .enumerate()
                .map(|(index, (local, members))| {
                    let name = format!("__captured{}", self.hidden_captures + index);
                    (Ident::new(&name, Span::mixed_site()), local, members)
                })
                .collect();
            self.hidden_captures += captures.len();
            self.with_taken_fields(&captures, |this| {
                this.with_bound(whole.clone(), |this| match expr {
                    syn::Expr::Closure(node) => this.closure(node, false),
                    syn::Expr::Async(node) => this.async_block(node, false),
                    _ => {}
                })
            });
            self.taken_first(expr, &whole, &captures, &[]);
            return;
        }
        let prelude = self.capture_values(captured);
        let span = expr.span();
        // A block the rewriters after this one see into (`self` inside it becomes the local
        // that holds it there).
        *expr = syn::parse2(quote_spanned!(span=> { #prelude #expr })).expect("a block");
    }

    /// The visible locals that code rewritten by `f` uses by value (whole), and the fields of
    /// visible locals it uses by value.
    #[allow(clippy::type_complexity)]
    fn moves_inside(&mut self, f: impl FnOnce(&mut Self)) -> (Vec<String>, Vec<(String, Vec<syn::Member>)>) {
        let mark = self.used_by_value.len();
        let fields_mark = self.fields_by_value.len();
        f(self);
        let mut moved: Vec<String> = self.used_by_value.drain(mark..).collect();
        moved.sort();
        moved.dedup();
        (moved, self.fields_by_value.drain(fields_mark..).collect())
    }

    /// The fields a closure or async block (`code`) takes when it is made (`captures`): of
    /// the fields it uses by value, those of locals it neither takes whole (`moved`) nor
    /// assigns.
    fn fields_to_capture(
        &mut self,
        code: &syn::Expr,
        fields: Vec<(String, Vec<syn::Member>)>,
        moved: &[String],
        assigned: &[String],
    ) -> Vec<(Ident, String, Vec<syn::Member>)> {
        let fields = fields
            .into_iter()
            .filter(|(local, _)| !moved.contains(local) && !assigned.contains(local) && self.lookup(local).is_some())
            .collect();
        let captures = captures::plan(code, fields, self.hidden_captures);
        self.hidden_captures += captures.len();
        captures
    }

    /// `{ let v = <v by value>; let __captured0 = <v.b by value>; <expr> }` for the locals in
    /// `moved` and the fields in `captures`.
    fn taken_first(
        &mut self,
        expr: &mut syn::Expr,
        moved: &[String],
        captures: &[(Ident, String, Vec<syn::Member>)],
        chosen: &[(Ident, Ident)],
    ) {
        let prelude = self.capture_values(moved);
        let krate = self.krate;
        let chosen = chosen.iter().map(|(hidden, local)| {
            let span = local.span();
            quote_spanned!(span=> let #hidden = (&#krate::__private::Capture(#local)).capture();)
        });
        let fields: Vec<TokenStream> = captures
            .iter()
            .map(|(ident, local, members)| {
                let span = self.visible[local].ident.span();
                // The path as user code writes it, rewritten as any use by value of it is.
                let local: syn::Expr = if local == "self" {
                    syn::parse_quote_spanned!(span=> self)
                } else {
                    let ident = Ident::new(local, span);
                    syn::parse_quote!(#ident)
                };
                let mut field: syn::Expr = syn::parse_quote_spanned!(span=> #local #(.#members)*);
                self.value(&mut field);
                quote!(let #ident = #field;)
            })
            .collect();
        let span = expr.span();
        *expr = syn::parse2(quote_spanned!(span=> { #prelude #(#fields)* #(#chosen)* #expr })).expect("a block");
    }

    /// For each local in `chosen` (one a closure or async block both assigns and uses by
    /// value), the hidden name of what it captures of it (`lowering::__private::Captured`) and
    /// the local's own name, which the code binds to the place that capture gives.
    fn chosen_captures(&mut self, chosen: &[String]) -> Vec<(Ident, Ident)> {
        chosen
            .iter()
            .map(|name| {
                let hidden = Ident::new(&format!("__captured{}", self.hidden_captures), Span::mixed_site());
                self.hidden_captures += 1;
                (hidden, self.visible[name].ident.clone())
            })
            .collect()
    }

    /// `let v = __captured0.place();`: where the code begins (each call of a closure, the first
    /// poll of an async block), the places of the locals it captured as `chosen_captures` says.
    fn chosen_places(chosen: &[(Ident, Ident)]) -> TokenStream {
        chosen.iter().map(|(hidden, local)| quote!(let #local = #hidden.place();)).collect()
    }

    fn closure(&mut self, node: &mut syn::ExprClosure, others: bool) {
        let names: Vec<String> = node.inputs.iter().flat_map(binding_names).collect();
        let own_run = std::mem::take(&mut self.runs_where_made);
        self.deferred(|this| this.with_bound(names, |this| this.value(&mut node.body)));
        if own_run {
            let run = own_run_anchor();
            let body = &node.body;
            *node.body = syn::parse2(quote!({ #run #body })).expect("a block");
        }
        if !others {
            // It captures places only, which are `Copy`: by value, so that it does not borrow
            // the code of the state that made it (it may be kept across an await).
            node.capture = Some(Default::default());
        }
    }

    fn async_block(&mut self, node: &mut syn::ExprAsync, others: bool) {
        let own_run = std::mem::take(&mut self.runs_where_made);
        self.deferred(|this| this.block(&mut node.block));
        if own_run {
            node.block.stmts.insert(0, syn::Stmt::Item(syn::Item::Verbatim(own_run_anchor())));
        }
        if !others {
            node.capture = Some(Default::default());
        }
    }

    /// `let v = <v by value>;` for each local a `move` closure or async block takes.
    fn capture_values(&self, captured: &[String]) -> TokenStream {
        captured
            .iter()
            .map(|name| {
                let ident = &self.visible[name].ident;
                let value = self.by_value(ident, ident.span());
                // Mutable as the local may be: the code that takes it mutates it where the user's
                // binding is `mut` (the twin rejects it anywhere else).
                quote!(#[allow(unused_mut)] let mut #ident = #value;)
            })
            .collect()
    }
}

impl VisitMut for Places<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        self.value(expr);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
        match stmt {
            syn::Stmt::Local(local) => {
                if let Some(init) = &mut local.init {
                    let usage = matched_use(&[&local.pat]);
                    self.rewrite(&mut init.expr, usage);
                    if let Some((_, diverge)) = &mut init.diverge {
                        self.value(diverge);
                    }
                }
                self.bound.extend(binding_names(&local.pat));
            }
            syn::Stmt::Expr(expr, _) => self.value(expr),
            syn::Stmt::Macro(mac) => self.visit_macro_mut(&mut mac.mac),
            syn::Stmt::Item(_) => {}
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        // (A macro in no place of its own to take values before: places only.)
        let mark = std::mem::take(&mut self.mentions_here);
        let lent = self.lent_macro(mac);
        debug_assert!(lent.is_empty(), "nothing is lent by value without a count of mentions");
        self.mentions_here = mark;
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Places<'_> {
    /// A macro call, its mentions of visible locals rewritten. A standard one's arguments are
    /// expressions the lowering sees, rewritten as any other. Any other macro is code the
    /// lowering cannot see into, which may keep what it is handed past the call (a `move`
    /// closure it expands to, stored somewhere): it never receives a raw place. A visible
    /// local that only this macro names in the statement, and no code after it, is lent by
    /// value, as the plain function's macro gets the local itself: the `let`s that take those
    /// values are returned, for the caller to write before the macro. Any other mention is a
    /// place whose lifetime is bounded by this run of `move_next` (`lend`), so that a borrow
    /// the macro keeps longer is rustc's error at the user's line.
    fn lent_macro(&mut self, mac: &mut syn::Macro) -> TokenStream {
        if let Some(Ok(mut parsed)) = std_macros::parse(mac) {
            let uses: Vec<std_macros::Use> = parsed.exprs_with_use().into_iter().map(|(_, usage)| usage).collect();
            for (expr, usage) in parsed.exprs_mut().into_iter().zip(uses) {
                match usage {
                    std_macros::Use::Borrowed => self.rewrite(expr, Use::Place),
                    std_macros::Use::Moved => self.value(expr),
                }
            }
            // `"{v}"` captures `v` by name: name the value instead of the place.
            for args in parsed.format_args_mut() {
                for (name, span) in args.inline_captures() {
                    if let Some(local) = self.lookup(&name) {
                        let ident = with_span(&local.ident, span);
                        let arg_name = Ident::new(&name, span);
                        if !args.args.iter().any(|arg| arg.name.as_ref().is_some_and(|known| *known == arg_name)) {
                            args.args.push(std_macros::FormatArg {
                                name: Some(arg_name),
                                expr: syn::parse_quote_spanned!(span=> (*#ident.get())),
                            });
                        }
                    }
                }
            }
            mac.tokens = parsed.arguments();
            return TokenStream::new();
        }
        if has_tracing_fields(mac) {
            let captured = self.message_captures(&mac.tokens);
            self.tracing_tokens = true;
            let mut tokens = self.tokens(mac.tokens.clone(), Fields::Named, &HashSet::new());
            // `"{req:?}"` in the message captures `req` by name, which names its place here:
            // the value is passed as the named argument the capture reads instead.
            for (name, place) in captured {
                let trailing_comma = matches!(tokens.clone().into_iter().last(), Some(TokenTree::Punct(punct)) if punct.as_char() == ',');
                let comma = if trailing_comma { quote!() } else { quote!(,) };
                let arg_name = Ident::new(&name, place.span());
                let lent = self.lend(&place, place.span());
                tokens.extend(quote_spanned!(place.span()=> #comma #arg_name = #lent));
            }
            self.tracing_tokens = false;
            mac.tokens = tokens;
            return TokenStream::new();
        }
        let by_value = self.lent_by_value(mac);
        self.lent_by_value.extend(by_value.iter().map(|name| lent_key(mac, name).expect("a macro with a position")));
        mac.tokens = self.tokens(mac.tokens.clone(), Fields::Sigils, &by_value);
        let krate = self.krate;
        by_value
            .iter()
            .map(|name| {
                let place = &self.visible[name].ident;
                // The user's own identifier: the macro's tokens (and a `"{v}"` among them)
                // name the value, as in the plain function.
                let value = Ident::new(name, place.span());
                let span = place.span();
                quote_spanned!(span=>
                    #[allow(unused_variables, unused_mut)]
                    let mut #value = (&#krate::__private::ByValue(#place)).by_value();
                )
            })
            .collect()
    }

    /// The visible locals a macro the lowering cannot see into is lent by value: those that
    /// no code after the statement names, that the statement names nowhere else, and only
    /// where the macro runs once, as part of the statement (not in a loop, closure or async
    /// block, which may run again or later).
    fn lent_by_value(&self, mac: &syn::Macro) -> HashSet<String> {
        // (Only a macro whose place in the source is known: the twin finds it by that.)
        if self.deferred > 0
            || std_macros::parse(mac).is_some()
            || has_tracing_fields(mac)
            || lent_key(mac, "").is_none()
        {
            return HashSet::new();
        }
        let mut found = Vec::new();
        mentions::of_tokens(&mac.tokens, &mut found, false);
        let mut here: HashMap<String, usize> = HashMap::new();
        for mention in found {
            let name = if mention.name == mentions::SELF_LOCAL { "self".to_owned() } else { mention.name };
            *here.entry(name).or_default() += 1;
        }
        here.into_iter()
            .filter(|(name, count)| {
                // (`self` stays a place: a macro that takes the receiver by value is rare, and
                // its value has no name of the user's to bind.)
                name != "self"
                    && self.last_uses.contains(name)
                    && self.lookup(name).is_some()
                    && self.mentions_here.get(name) == Some(count)
            })
            .map(|(name, _)| name)
            .collect()
    }

    /// The place of the local whose place is `place`, lent to a macro: a reference bounded by
    /// this run of `move_next` (`lowering::__private::lend`), or by the run of the closure or
    /// async block around it that runs where it is made (`own_run`). A `move` closure or async
    /// block the macro expands to captures the run's anchor with it, so that keeping it past
    /// the run is a compile error, never a pointer into a state machine that may be gone.
    /// (One of tracing's macros gets the place itself: `tracing_tokens`.)
    fn lend(&self, place: &Ident, span: Span) -> TokenStream {
        if self.tracing_tokens {
            return quote_spanned!(span=> (*#place.get()));
        }
        let krate = self.krate;
        let run = Ident::new(LENT_RUN, Span::mixed_site().located_at(span));
        quote_spanned!(span=> (*#krate::__private::lend(#place, #run)))
    }

    /// Any other macro: its tokens, with each mention of a visible local (an identifier not
    /// after `.` or `::` and not before `!`, `::` or `(`) made its lent place, except those
    /// `by_value` names, which name the values taken before the macro.
    fn tokens(&self, tokens: TokenStream, fields: Fields, by_value: &HashSet<String>) -> TokenStream {
        let mut shadowed = HashSet::new();
        shadowed.extend(by_value.iter().cloned());
        self.tokens_within(tokens, fields, &shadowed, false)
    }

    /// One level of a macro's tokens: `shadowed` names the function's locals that the
    /// macro's own bindings hide here, `arms` says the tokens are a `match`'s arms
    /// (`macro_bindings`); a pattern's names are never the function's.
    fn tokens_within(
        &self,
        tokens: TokenStream,
        mut fields: Fields,
        shadowed: &HashSet<String>,
        arms: bool,
    ) -> TokenStream {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let scopes = macro_bindings::scopes(&tokens, arms);
        let hidden = |index: usize, name: &str| {
            scopes.pattern[index] || shadowed.contains(name) || scopes.shadowed[index].contains(name)
        };
        let mut out = Vec::new();
        let mut skip_to = 0;
        for (index, token) in tokens.iter().enumerate() {
            if index < skip_to {
                continue;
            }
            // tracing's fields come before its message: what follows the message is format
            // arguments, which are expressions.
            let at_argument_start =
                index == 0 || matches!(&tokens[index - 1], TokenTree::Punct(punct) if punct.as_char() == ',');
            if at_argument_start && matches!(token, TokenTree::Literal(literal) if literal.to_string().starts_with('"'))
            {
                fields = Fields::Sigils;
            }
            if let Some((field, end)) = self.shorthand_field(&tokens, index, fields) {
                out.extend(field);
                skip_to = end;
                continue;
            }
            match token {
                TokenTree::Ident(ident) => {
                    let before = index.checked_sub(1).map(|before| &tokens[before]);
                    let after = tokens.get(index + 1);
                    let is_path_part = matches!(before, Some(TokenTree::Punct(punct)) if punct.as_char() == '.' || punct.as_char() == ':')
                        || matches!(after, Some(TokenTree::Punct(punct)) if punct.as_char() == '!' || punct.as_char() == ':')
                        || matches!(after, Some(TokenTree::Group(group)) if group.delimiter() == proc_macro2::Delimiter::Parenthesis);
                    // `name = value` at the start of an argument is a named argument or a
                    // field (`format_args!("{n}", n = n)`, tracing's `span!(.., n = n)`): the
                    // name is a key, not a mention.
                    let is_key = matches!(before, None | Some(TokenTree::Punct(_)))
                        && !matches!(before, Some(TokenTree::Punct(punct)) if punct.as_char() != ',' && punct.as_char() != ';')
                        && is_single_eq(tokens.get(index + 1), tokens.get(index + 2));
                    let name = ident.to_string();
                    match self.lookup(&name) {
                        Some(local) if !is_path_part && !is_key && !hidden(index, &name) => {
                            let place = with_span(&local.ident, ident.span());
                            out.extend(self.lend(&place, ident.span()));
                        }
                        _ => out.push(token.clone()),
                    }
                }
                TokenTree::Group(group) if scopes.pattern[index] => out.push(TokenTree::Group(group.clone())),
                TokenTree::Group(group) => {
                    let mut inner = shadowed.clone();
                    inner.extend(scopes.shadowed[index].iter().cloned());
                    let stream = self.tokens_within(group.stream(), Fields::Sigils, &inner, scopes.arms[index]);
                    let mut new = proc_macro2::Group::new(group.delimiter(), stream);
                    new.set_span(group.span());
                    out.push(TokenTree::Group(new));
                }
                other => out.push(other.clone()),
            }
        }
        out.into_iter().collect()
    }
}

impl Places<'_> {
    /// The in-place locals a tracing or log macro's message captures inline (`"{req:?}"`),
    /// each once, with its place, unless the macro names the argument itself.
    fn message_captures(&self, tokens: &TokenStream) -> Vec<(String, Ident)> {
        let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
        let at_argument_start = |index: usize| {
            index == 0 || matches!(&tokens[index - 1], TokenTree::Punct(punct) if punct.as_char() == ',')
        };
        let Some((message_at, message)) = (0..tokens.len()).find_map(|index| match &tokens[index] {
            TokenTree::Literal(literal) if at_argument_start(index) => {
                syn::parse2::<syn::LitStr>(TokenTree::Literal(literal.clone()).into()).ok().map(|lit| (index, lit))
            }
            _ => None,
        }) else {
            return Vec::new();
        };
        // The message's own named arguments (`"{n}", n = ..`) follow it; a `key = value` before
        // it is a field, which the format string cannot name.
        let named: HashSet<String> = (message_at + 1..tokens.len())
            .filter(|&index| at_argument_start(index) && is_single_eq(tokens.get(index + 1), tokens.get(index + 2)))
            .filter_map(|index| match &tokens[index] {
                TokenTree::Ident(ident) => Some(ident.to_string()),
                _ => None,
            })
            .collect();
        let mut found: Vec<(String, Ident)> = Vec::new();
        for (name, span) in std_macros::inline_captures(&message) {
            if named.contains(&name) || found.iter().any(|(known, _)| *known == name) {
                continue;
            }
            if let Some(local) = self.lookup(&name) {
                found.push((name, with_span(&local.ident, span)));
            }
        }
        found
    }

    /// `?value` or `%conn.peer` as a whole argument (tracing's field shorthand: a field named
    /// as the local, recorded with `Debug` or `Display`), with `value` living in place. No Rust
    /// expression starts with `?` or `%`, so such a macro wants an identifier there, which a
    /// place is not: written as the field it stands for, `value = ?(*value.get())`, under the
    /// name the user gave it. In a tracing macro's fields a bare `value` is such a shorthand
    /// too (`Fields::Named`). Returns the tokens and where the shorthand ends.
    fn shorthand_field(&self, tokens: &[TokenTree], index: usize, fields: Fields) -> Option<(TokenStream, usize)> {
        let at_argument_start = match index.checked_sub(1).map(|before| &tokens[before]) {
            None => true,
            Some(TokenTree::Punct(punct)) => punct.as_char() == ',',
            Some(_) => false,
        };
        if !at_argument_start {
            return None;
        }
        let (sigil, name_at) = match &tokens[index] {
            TokenTree::Punct(sigil)
                if matches!(sigil.as_char(), '?' | '%') && sigil.spacing() == proc_macro2::Spacing::Alone =>
            {
                (Some(sigil), index + 1)
            }
            TokenTree::Ident(_) if fields == Fields::Named => (None, index),
            _ => return None,
        };
        let TokenTree::Ident(name) = tokens.get(name_at)? else { return None };
        let local = self.lookup(&name.to_string())?;
        // The dotted path that names the field (`conn.peer`), to the end of the argument.
        let mut end = name_at + 1;
        let mut members = Vec::new();
        while let (Some(TokenTree::Punct(dot)), Some(TokenTree::Ident(member))) = (tokens.get(end), tokens.get(end + 1))
        {
            if dot.as_char() != '.' || dot.spacing() != proc_macro2::Spacing::Alone {
                break;
            }
            members.push((dot.clone(), member.clone()));
            end += 2;
        }
        if !matches!(tokens.get(end), None | Some(TokenTree::Punct(_))) {
            return None;
        }
        if let Some(TokenTree::Punct(next)) = tokens.get(end)
            && next.as_char() != ','
        {
            return None;
        }
        let key_members = members.iter().map(|(dot, member)| quote!(#dot #member));
        let value_members = members.iter().map(|(dot, member)| quote!(#dot #member));
        let place = with_span(&local.ident, name.span());
        let lent = self.lend(&place, name.span());
        let field = quote_spanned!(name.span()=> #name #(#key_members)* = #sigil #lent #(#value_members)*);
        Some((field, end))
    }
}

/// Which of a macro's arguments may be field shorthands that want the user's name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fields {
    /// `?value` and `%value`, in any macro (no expression starts so).
    Sigils,
    /// Those, and a bare `value`: the fields of one of tracing's macros, before the message.
    Named,
}

/// The plain names that code assigns (`v = ..`, or a compound `v += ..`), closures and async
/// blocks included.
fn assigned_in(expr: &syn::Expr) -> Vec<String> {
    assignments::assigned_places(expr, assignments::Reach::Nested).iter().filter_map(Places::path_name).collect()
}

/// Which macro lends which local by value: the local's name and where the macro's path
/// starts in the source (`None` where spans carry no position).
pub(crate) fn lent_key(mac: &syn::Macro, name: &str) -> Option<String> {
    let start = mac.path.span().start();
    (start.line != 0).then(|| format!("{name}@{}:{}", start.line, start.column))
}

/// Which method call takes its receiver by value on a `moves` hint: the receiver's name and
/// where it starts in the source (as `lent_key`, with a `receiver ` mark).
pub(crate) fn receiver_key(receiver: &syn::Expr, name: &str) -> Option<String> {
    let start = receiver.span().start();
    (start.line != 0).then(|| format!("receiver {name}@{}:{}", start.line, start.column))
}

/// A closure or async block written where it is (in parentheses or not): awaited or called
/// there, it runs and is gone before the statement ends.
fn is_code_literal(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Paren(node) => is_code_literal(&node.expr),
        syn::Expr::Group(node) => is_code_literal(&node.expr),
        syn::Expr::Async(_) | syn::Expr::Closure(_) => true,
        _ => false,
    }
}

/// The anchor of a closure or async block's own run (`Places::lend`): a local of its body,
/// under the name the lent places bound to `move_next`'s run use, which it hides there.
fn own_run_anchor() -> TokenStream {
    let owner = Ident::new("this_run_of_the_block", Span::mixed_site());
    let run = Ident::new(LENT_RUN, Span::mixed_site());
    quote! {
        #[allow(unused_variables)]
        let #owner = ();
        #[allow(unused_variables)]
        let #run = &#owner;
    }
}

fn members_text(members: &[syn::Member]) -> String {
    members.iter().map(|member| quote!(#member).to_string()).collect::<Vec<_>>().join(".")
}

fn with_span(ident: &Ident, span: Span) -> Ident {
    let mut ident = ident.clone();
    ident.set_span(ident.span().located_at(span));
    ident
}

fn binding_names(pat: &syn::Pat) -> Vec<String> {
    let mut bindings = Vec::new();
    pattern_bindings(pat, &mut bindings);
    bindings.into_iter().map(|binding| binding.ident.to_string()).collect()
}

fn binds_by_value(pat: &syn::Pat) -> bool {
    let mut bindings = Vec::new();
    pattern_bindings(pat, &mut bindings);
    bindings.iter().any(|binding| !binding.by_ref)
}

fn matched_use(patterns: &[&syn::Pat]) -> Use {
    let by_value = patterns.iter().any(|pat| binds_by_value(pat));
    let leaves_parts = patterns.iter().any(|pat| mentions::leaves_parts(pat));
    if by_value && !leaves_parts { Use::Value } else { Use::Place }
}

fn let_names(cond: &syn::Expr) -> Vec<String> {
    match cond {
        syn::Expr::Let(node) => binding_names(&node.pat),
        syn::Expr::Binary(node) => {
            let mut all = let_names(&node.left);
            all.extend(let_names(&node.right));
            all
        }
        syn::Expr::Paren(node) => let_names(&node.expr),
        _ => Vec::new(),
    }
}

/// The name a mention counts under (`self` for the receiver `emit` calls `__self`).
fn mention_name(mention: mentions::Mention) -> String {
    if mention.name == mentions::SELF_LOCAL { "self".to_owned() } else { mention.name }
}

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
//!   around the macro, where that code runs where it is made: awaited or called there). The
//!   macro gets one such reference per local, bound before it (`let __lent_v = lend(v,
//!   __lent_run);`), and each mention is `(*__lent_v)`: a `&mut` made from the raw place per
//!   mention could be alive beside another (`m!(v, v)` with `format!("{} {}", $a, $b)`, or a
//!   macro that pastes `$x` twice: `$x.push($x.len())`), which Rust's aliasing rules forbid
//!   (Miri's stacked borrows reports it); reborrows of one reference are what safe code does,
//!   and rustc checks them. (A macro in no statement of its own, without a place to bind
//!   before it, is lent per mention.)
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
use crate::classic::analyse::in_place::Reason;
use crate::classic::parse::lower::is_comparison;
use crate::classic::parse::macro_bindings;
use crate::classic::syntax;
use crate::classic::syntax::bindings::{let_patterns, pattern_bindings};
use crate::classic::syntax::std_macros;
use crate::classic::syntax::tracing_macros::{has_tracing_fields, is_single_eq};
use crate::classic::syntax::{assignments, mentions};

mod borrowed_where_made;
mod closures;
mod lent;
pub(crate) mod matched_whole;
mod parts;

use crate::classic::syntax::members_text;
pub(crate) use crate::classic::syntax::{lent_key, receiver_key};
use closures::{is_code_literal, runs_where_awaited};

/// The name of the reference that bounds what `move_next` lends to macros it cannot see into
/// (`Places::lend`): a borrow of a local of the closure, declared where it begins.
pub(crate) const LENT_RUN: &str = "__lent_run";

/// A local living in place, as user code names it here.
pub(crate) struct InPlace {
    /// The identifier its place is bound to (the user's, or the hidden one for `self`).
    pub ident: Ident,
    /// Its field in the state machine: names it among the locals of the function (`parts`).
    pub field: String,
    /// Why it lives in place (`analyse::in_place`).
    pub reason: Option<Reason>,
    /// Declared a reference, a parameter's type or the receiver's, and not `mut` (`Some(true)`
    /// for `&mut`): a macro it is lent to is handed a reborrow of the same type under an
    /// identifier (`lent_mention`), as a rule taking `$buf:ident` needs. (A `mut` one may be
    /// assigned another reference by the macro, which must then reach its place.)
    pub reference: Option<bool>,
    /// A parameter or the receiver declared a reference (`mut` or not): a field used by value
    /// is read through it as Rust reads one (copied, or reborrowed where a `&mut` is
    /// expected), never moved out of it (`self.client` of a `&mut self` whose `client` is a
    /// `&'a mut Client`).
    pub holds_reference: bool,
    /// A parameter the signature declares `FnOnce` only: its call takes it (`Calls::TakeIt`).
    pub called_by_value: bool,
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
    /// `let v = <v by value>;` for a statement that is a macro lent values (`stmt`): what
    /// the caller writes before it.
    pub preludes: Vec<TokenStream>,
    /// Each lending by value, by `lent_key`: the twin takes the same values at the same
    /// macros, so that rustc checks the move it makes (`classic::twin`).
    pub lent_by_value: Vec<String>,
    /// What closures and async blocks take when they are made.
    captures: Captures,
    /// What macros the lowering cannot see into are lent, and how.
    lending: Lending,
}

/// What the closures and async blocks of the code being rewritten take when they are made.
#[derive(Default)]
struct Captures {
    /// The visible locals used by value so far (whole, not a field of them).
    used_by_value: Vec<String>,
    /// The fields of visible locals used by value so far: the local's name and the path.
    fields_by_value: Vec<(String, Vec<syn::Member>)>,
    /// How many hidden bindings closures and async blocks took first so far (fields, and
    /// locals whose capture rustc picks): their names number them.
    hidden_captures: usize,
    /// The fields the closure or async block being rewritten took first (`captures::plan`):
    /// a mention of one, where its local is not hidden, names the binding it was taken into.
    taken_fields: Vec<captures::TakenField>,
}

/// The facts the lending to macros reads: the statement's last uses and mentions, and where
/// the rewrite stands (inside code that runs later, or in tracing's grammar).
#[derive(Default)]
struct Lending {
    /// The visible locals that no code after the statement being rewritten names: a macro
    /// the lowering cannot see into, which names one of them and nothing else in the
    /// statement does, gets its value (`lent_values`).
    last_uses: HashSet<String>,
    /// In a block that leaves the function (`syntax::jumps::leaves_the_function`: an arm that
    /// re-raises a panic), the visible locals that no later statement of the block names:
    /// nothing after the block runs, so a method call a `moves` hint names takes them there
    /// too (`guard.finish(); resume_unwind(p);` before `guard.finish()` on the other paths).
    leaving_last_uses: HashSet<String>,
    /// The visible locals a field of which code after the statement names (`pair.1`): a
    /// `match` that moves a part of one out must leave the rest readable
    /// (`matched_whole::by_value`).
    fields_named_after: HashSet<String>,
    /// How many times each name is mentioned in the statement being rewritten (as
    /// `mentions` counts): a local all of whose mentions are in one macro is lent by value.
    mentions_here: HashMap<String, usize>,
    /// How deep the rewrite is inside code that may run more than once or later than the
    /// statement (a loop body, a closure, an async block): no value is lent there.
    deferred: usize,
    /// Rewriting the tokens of one of tracing's or log's macros, whose grammar borrows every
    /// local it names and whose value holds none: they get places as visible code does.
    tracing_tokens: bool,
    /// The closure or async block about to be rewritten runs where it is made (awaited or
    /// called there): it cannot outlive the statement, so what it lends to macros is
    /// bounded by its own run rather than by `move_next`'s.
    runs_where_made: bool,
    /// The `deferred` depth of the body of a closure or async block that runs where it is
    /// made (`deferred_unless`): a macro there runs once, as part of the statement, and is
    /// lent by value a local at its last use that its tokens visibly move (`lent_by_value`).
    runs_once_at: Option<usize>,
    /// While a macro's tokens are rewritten that is handed the receiver's value (`given_back`):
    /// the binding that holds it, which `self` among them names.
    given_self: Option<Ident>,
    /// While a macro's tokens are rewritten with a place to bind before it (`lent_macro`):
    /// the places they lend, each once, with the span of its first mention and, for a local
    /// declared a reference, whether it is `&mut` (`InPlace::reference`); each mention names
    /// the one reference bound for its place (`lent_binding`), or its reborrow
    /// (`reborrow_binding`).
    gathered: std::cell::RefCell<Option<Vec<Lent>>>,
}

/// A place a macro's tokens lend: its identifier, the span of its first mention, and whether
/// it is a reference parameter's (`Some(true)` for `&mut`), handed as a reborrow.
type Lent = (Ident, Span, Option<bool>);

/// How the code around an expression uses it: as a place (borrowed, projected) or by value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PlaceUse {
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
            captures: Captures::default(),
            lending: Lending::default(),
            preludes: Vec::new(),
            lent_by_value: Vec::new(),
        }
    }

    /// The visible locals that code after the statement to rewrite does not name.
    pub(crate) fn with_last_uses(mut self, last_uses: HashSet<String>, fields_named_after: HashSet<String>) -> Self {
        self.lending.fields_named_after = fields_named_after;
        self.lending.last_uses = last_uses;
        self
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
            self.lending.runs_where_made = runs_where_awaited(&expr);
            self.value(&mut expr);
            self.lending.runs_where_made = false;
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
        self.lending.mentions_here.clear();
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
                    let lent = self.lent_macro(&mut node.mac, true);
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

    fn rewrite(&mut self, expr: &mut syn::Expr, usage: PlaceUse) {
        if let Some(taken) = self.taken_field(expr) {
            *expr = taken;
            return;
        }
        // (Inside a closure or an async block too: the value moves when that code runs, where
        // Rust moves it into the closure when it is made; the same for one that runs at once.)
        if usage == PlaceUse::Value
            && let Some((local, members)) = self.field_path(expr)
            && !local.holds_reference
        {
            // A field used by value: copied, reborrowed or moved out, as rustc picks
            // (`FieldByValue`); its bit is numbered in case it moves.
            if let Some((name, _)) = captures::field_chain(expr) {
                self.captures.fields_by_value.push((name, members.clone()));
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
        self.refuse_update_from_a_moved_part(expr);
        if let Some(name) = Self::path_name(expr)
            && let Some(local) = self.lookup(&name)
        {
            self.mention_evaluated(&name);
            let span = expr.span();
            let ident = with_span(&local.ident, span);
            *expr = if usage == PlaceUse::Value {
                self.captures.used_by_value.push(name.clone());
                self.by_value(&ident, span)
            } else {
                syn::parse_quote_spanned!(span=> (*#ident.get()))
            };
            return;
        }
        match expr {
            syn::Expr::Reference(node) => match self.borrowed_where_made(node) {
                Some(borrowed) => *expr = borrowed,
                None => self.rewrite(&mut node.expr, PlaceUse::Place),
            },
            syn::Expr::RawAddr(node) => self.rewrite(&mut node.expr, PlaceUse::Place),
            syn::Expr::Field(node) => self.rewrite(&mut node.base, PlaceUse::Place),
            syn::Expr::Index(node) => {
                self.rewrite(&mut node.expr, PlaceUse::Place);
                self.value(&mut node.index);
            }
            syn::Expr::Unary(node) if matches!(node.op, syn::UnOp::Deref(_)) => {
                self.rewrite(&mut node.expr, PlaceUse::Place)
            }
            syn::Expr::Paren(node) => self.rewrite(&mut node.expr, usage),
            syn::Expr::Group(node) => self.rewrite(&mut node.expr, usage),
            syn::Expr::MethodCall(node) => {
                // `moves(name)`: at its last use, the user says the method takes it; the twin
                // takes it there too (`lent_by_value`), so that rustc checks the move. The same
                // for a field the hint names (`moves(self.txn)` on `self.txn.commit()`), where
                // no later code names that field: it is used by value (`FieldByValue`).
                let hinted = match crate::classic::syntax::receivers::hinted_field_receiver(&node.receiver) {
                    Some((root, member)) => Some(root).filter(|root| {
                        (self.lending.last_uses.contains(&format!("{root}.{member}"))
                            || self.lending.leaving_last_uses.contains(root))
                            && self.lending.deferred == 0
                            && self.lookup(root).is_some()
                    }),
                    None => Self::path_name(&node.receiver).filter(|name| {
                        crate::classic::hints::moves(name)
                            && (self.lending.last_uses.contains(name) || self.lending.leaving_last_uses.contains(name))
                            && self.lending.deferred == 0
                            && self.lookup(name).is_some()
                    }),
                };
                if let Some(name) = &hinted
                    && let Some(key) = receiver_key(&node.receiver, name)
                {
                    self.lent_by_value.push(key);
                }
                let receiver_use = if hinted.is_some()
                    || crate::classic::syntax::receivers::consumes_receiver(&node.method.to_string())
                {
                    PlaceUse::Value
                } else {
                    PlaceUse::Place
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
                self.rewrite(&mut node.left, PlaceUse::Place);
            }
            syn::Expr::Binary(node) if assignments::is_compound(&node.op) => {
                self.rewrite(&mut node.left, PlaceUse::Place);
                self.value(&mut node.right);
            }
            // `a == b` is `PartialEq::eq(&a, &b)`: both operands are borrowed, never moved (a
            // closure comparing with a kept local borrows it, as `mentions` reads it too).
            syn::Expr::Binary(node) if is_comparison(&node.op) => {
                self.rewrite(&mut node.left, PlaceUse::Place);
                self.rewrite(&mut node.right, PlaceUse::Place);
            }
            syn::Expr::Await(node) if runs_where_awaited(&node.base) => {
                self.lending.runs_where_made = true;
                self.value(&mut node.base);
                self.lending.runs_where_made = false;
            }
            syn::Expr::Call(node) if is_code_literal(&node.func) => {
                self.lending.runs_where_made = true;
                self.rewrite(&mut node.func, PlaceUse::Place);
                self.lending.runs_where_made = false;
                for arg in node.args.iter_mut() {
                    self.value(arg);
                }
            }
            syn::Expr::Call(node) => {
                // A local called (a closure, an `impl AsyncFn`) is borrowed by the call; an
                // `FnOnce`, one a `moves` hint names (`moves(f)`) or a parameter the signature
                // declares so, is taken by it, as Rust takes it (inside a closure, which then
                // takes it when it is made).
                let usage = match Self::path_name(&node.func).and_then(|name| Some((self.lookup(&name)?, name))) {
                    Some((local, name)) if local.called_by_value || crate::classic::hints::moves(&name) => {
                        PlaceUse::Value
                    }
                    _ => PlaceUse::Place,
                };
                self.rewrite(&mut node.func, usage);
                for arg in node.args.iter_mut() {
                    self.value(arg);
                }
            }
            syn::Expr::Match(node) => self.rewrite_match(node),
            syn::Expr::Let(node) => {
                let usage = matched_use(&[&node.pat]);
                self.rewrite(&mut node.expr, usage);
                // Its bindings are in scope in what follows in the condition and the branch:
                // `If` and `While` handle them.
            }
            syn::Expr::If(node) => {
                let names = let_names(&node.cond);
                self.value(&mut node.cond);
                // The branches never both run: a macro in one may be lent by value what the
                // other names too (`lent_by_value`).
                let otherwise = node.else_branch.as_ref().map(|(_, other)| mentions::of_expr(other));
                let fork = self.fork(vec![mentions::of_block(&node.then_branch), otherwise.unwrap_or_default()]);
                self.enter_path(&fork, 0);
                self.with_bound(names, |this| this.block(&mut node.then_branch));
                if let Some((_, other)) = &mut node.else_branch {
                    self.enter_path(&fork, 1);
                    self.value(other);
                }
                self.join(fork);
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
            syn::Expr::Closure(_) | syn::Expr::Async(_) => self.code_made(expr),
            syn::Expr::Macro(node) => {
                let (lent, after) = self.lent_macro_around(&mut node.mac, true, true);
                if !after.is_empty() {
                    // The value is the macro's; what it was handed goes back after it.
                    let span = node.mac.path.span();
                    let value = Ident::new("__lowering_macro_value", Span::mixed_site());
                    *expr = syn::parse2(quote_spanned!(span=> ({ #lent let #value = #expr; #after #value })))
                        .expect("a block");
                } else if !lent.is_empty() {
                    // The values are taken where the macro is evaluated; the braces are the
                    // user's (the macro's path), so the block's tail follows the user's edition.
                    // In parentheses: a block first in a statement or a tail would end there
                    // (`{ .. } + 4u32`).
                    let span = node.mac.path.span();
                    *expr = syn::parse2(quote_spanned!(span=> ({ #lent #expr }))).expect("a block");
                }
            }
            _ => self.visit_children(expr),
        }
    }

    fn value(&mut self, expr: &mut syn::Expr) {
        self.rewrite(expr, PlaceUse::Value);
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

    fn deferred(&mut self, f: impl FnOnce(&mut Self)) {
        self.lending.deferred += 1;
        f(self);
        self.lending.deferred -= 1;
    }

    /// The body of a closure or async block: deferred; where it runs where it is made
    /// (`runs_where_made`: called or awaited there, once, as part of the statement), its own
    /// code (not a loop or closure inside it) is `Lending::runs_once_at`.
    fn deferred_unless(&mut self, runs_where_made: bool, f: impl FnOnce(&mut Self)) {
        if !runs_where_made {
            return self.deferred(f);
        }
        self.lending.deferred += 1;
        let outer = self.lending.runs_once_at.replace(self.lending.deferred);
        f(self);
        self.lending.runs_once_at = outer;
        self.lending.deferred -= 1;
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
        let mark = std::mem::take(&mut self.lending.mentions_here);
        let lent = self.lent_macro(mac, false);
        debug_assert!(lent.is_empty(), "nothing is lent by value without a count of mentions");
        self.lending.mentions_here = mark;
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The plain names that code assigns (`v = ..`, or a compound `v += ..`), closures and async
/// blocks included.
fn assigned_in(expr: &syn::Expr) -> Vec<String> {
    assignments::assigned_places(expr, assignments::Reach::Nested).iter().filter_map(Places::path_name).collect()
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

fn matched_use(patterns: &[&syn::Pat]) -> PlaceUse {
    let by_value = patterns.iter().any(|pat| mentions::binds_by_value(pat));
    let leaves_parts = patterns.iter().any(|pat| mentions::leaves_parts(pat));
    if by_value && !leaves_parts { PlaceUse::Value } else { PlaceUse::Place }
}

fn let_names(cond: &syn::Expr) -> Vec<String> {
    let_patterns(cond).into_iter().flat_map(binding_names).collect()
}

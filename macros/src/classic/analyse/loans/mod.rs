//! Which locals an await may find borrowed: they live in place in a pinned state machine.
//!
//! A classic state machine moves its locals out of their fields where a state begins and back
//! where it ends. A borrow of a local that is still held when a state ends (by an awaiter, by
//! another local, by a `for` loop's iterator) cannot survive that move, so such a local stays
//! in its field for its whole life instead (`generate::places`), and the state machine is
//! pinned in its heap task before it first runs.
//!
//! The macro sees no types, so this is a syntactic over-approximation: it finds every local
//! that is borrowed (`&v`, `&mut v.f`, a method call on it, a closure or async block that
//! captures it) in code whose result may still be held at a later await. Being wrong in the
//! safe direction costs only speed: a local kept in place behaves exactly as a moved one.
//! Soundness does not rest on this analysis (see `generate::places`).

use std::collections::{HashMap, HashSet};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

use super::bindings::Bindings;
use super::free_names;
use super::in_place::{Binding, KeptInPlace, Reason};
use crate::classic::hints;
use crate::classic::parse::lower::{compared_with_what_may_change_it, is_comparison};
use crate::classic::syntax::jumps;
use crate::classic::syntax::mentions;
use crate::classic::syntax::std_macros;
use crate::classic::syntax::strip_parens;
// Whether code awaits is the parser's answer (`parse::awaits`): an await among the tokens of
// a macro the lowering leaves as written is that macro's own, never the function's.
use crate::classic::parse::awaits::{
    in_block as block_awaits, in_expr as expr_awaits, in_macro as macro_awaits, in_stmt as stmt_awaits,
};

mod exits;
mod scan;
mod stores;

pub(crate) use crate::classic::syntax::receivers::{borrow_root, let_consumes, place_root};
use crate::classic::syntax::receivers::{consumed_receiver, is_borrowing_method, place_root_into, returns_owned};
use exits::Exits;
use scan::*;

/// The locals (and `self`) that an await may find borrowed, each with why. `params` are the parameters'
/// names, each with whether an awaited method may never take it by value (a `mut` one, or an
/// `Arc`/`Rc`, whose methods borrow through it); `mut_self`, whether the receiver is `mut self`
/// (whose methods may borrow it mutably, as a `mut` parameter's).
pub(crate) fn in_place(
    block: &syn::Block,
    params: &[(syn::Ident, bool)],
    mut_self: bool,
    shared_refs: &HashSet<String>,
    exclusive_refs: &HashSet<String>,
    async_callable_params: &HashSet<String>,
) -> KeptInPlace {
    let mut async_callables = async_closures(block);
    async_callables.extend(async_callable_params.iter().cloned());
    let bindings = Bindings::of(params, block);
    let mut mutable = bindings.mutable();
    if mut_self {
        mutable.insert("self".to_owned());
    }
    let mut finder = Finder {
        found: KeptInPlace::default(),
        exclusive_refs,
        async_callables,
        rebound: bindings.rebound(),
        later: HashSet::new(),
        unit: HashMap::new(),
        mutable,
        in_scope: params.iter().map(|(name, mutable)| (name.to_string(), (*mutable, Binding::of(name)))).collect(),
        exits: Exits::default(),
        taken: HashSet::new(),
        captured: HashSet::new(),
        stored: stores::Stored::default(),
    };
    finder.stmts(&block.stmts, false);
    // A shared reference parameter needs no place: it is copied where it is borrowed. A
    // `let` of the same name binds another local, which may (`let shared = match
    // shared.upgrade() { .. }`, an `Arc` borrowed across awaits).
    // Nor does one that a closure or async block held over an await names: edition 2018
    // captures the whole parameter there, by reference (`|| self.state.get()` borrows `self`
    // itself), which no state may move back into its field while it is held. Since 2021 the
    // capture is `(*self).state` and the place is not needed, but the macro does not see the
    // caller's edition.
    let rebound = std::mem::take(&mut finder.rebound);
    let captured = std::mem::take(&mut finder.captured);
    finder.found.retain(|binding| {
        !shared_refs.contains(binding.name()) || rebound.contains(binding.name()) || captured.contains(binding)
    });
    // A name the walk did not find bound where it was mentioned, and that no binding of the
    // function has, is no local (`ready(i).await` calls a function): nothing to keep.
    finder.found.retain(|binding| !matches!(binding, Binding::Named(name) if !bindings.declares(name)));
    finder.found
}

struct Finder<'r> {
    found: KeptInPlace,
    /// `&mut` parameters (and `&mut self`): passed along, they are reborrowed.
    exclusive_refs: &'r HashSet<String>,
    /// The locals whose call may return a future that borrows them: parameters of an
    /// `AsyncFn`/`AsyncFnMut` type, and `let`s of async closures (`taken_callee`).
    async_callables: HashSet<String>,
    /// The names that more than one `let` (or a `let` and a parameter) binds: such a `let` may
    /// hide a live local, which begins a state of its own (`emit::shadowing`).
    rebound: HashSet<String>,
    /// The names that code which may run after the current statement mentions (later in its
    /// block and the blocks around it, and the rest of each loop around it): over-counted,
    /// since a name may mean another local there.
    later: HashSet<String>,
    /// How often each name appears in the current statement (or, for the names a `match` arm
    /// binds, in that arm).
    unit: HashMap<String, usize>,
    /// The names some `mut` binding (or `mut` parameter) has.
    mutable: HashSet<String>,
    /// Whether the binding a name refers to here is `mut`, and which binding it is, for the
    /// bindings whose scopes the walk follows (parameters, `let`s, `match` arms, `for` and
    /// `if let`/`while let` patterns); other names fall back to `mutable`, and to the name.
    in_scope: HashMap<String, (bool, Binding)>,
    /// Where the jumps of the current statement lead.
    exits: Exits,
    /// The awaits (by address in the body's tree) found to take their receiver, each where
    /// it runs: a `let` whose initializer holds one in a nested block or loop (`let y = loop
    /// { .. break get.apply(x).await; .. };`) sees them from a statement that names more.
    taken: HashSet<usize>,
    /// The bindings that a non-`move` closure or async block whose value may be held over an
    /// await names: it may hold them borrowed whole.
    captured: HashSet<Binding>,
    /// What values stored into locals borrow (`stores`).
    stored: stores::Stored,
}

impl Finder<'_> {
    /// Statements, where `follows` says an await may run after the last of them while their
    /// locals live (later in an enclosing block, or in the next round of a loop).
    fn stmts(&mut self, stmts: &[syn::Stmt], follows: bool) {
        let mut later = follows;
        let saved_later = self.later.clone();
        // A block that ends in a jump (`..; return x`, `..; panic!(..)`, a `let .. else`
        // block's) goes on where the jump leads, not after the block, unless a statement
        // before it may break or continue out of it; a `return` or `?` in it leads where the
        // function's (or async block's) `return` does.
        let outer_later = match self.block_leads_to(stmts) {
            Some(after) => after.union(&self.exits.returned).cloned().collect(),
            None => saved_later.clone(),
        };
        // What this block's statements after the current one mention.
        let mut block_names = HashSet::new();
        // The bindings in scope at each statement: a `let`'s initializer still sees the
        // binding its pattern hides (`let mut r = r.send().await?;`, `r` a parameter).
        let outer_scope = self.in_scope.clone();
        let mut scopes = Vec::with_capacity(stmts.len());
        // The names this block's `let`s bound before each statement: what code after the
        // block mentions by such a name is another local (the block's own ends with it).
        let mut bound_before = Vec::with_capacity(stmts.len());
        let mut bound = HashSet::new();
        for stmt in stmts {
            scopes.push(self.in_scope.clone());
            bound_before.push(bound.clone());
            if let syn::Stmt::Local(local) = stmt {
                self.bind(&local.pat);
                // In order: what a binding borrows through the ones before it (`stores`).
                if let Some(init) = &local.init {
                    self.note_origins(&local.pat, &init.expr);
                }
                bound.extend(let_bound_names(stmt));
            }
        }
        let tail = match stmts.last() {
            Some(syn::Stmt::Expr(_, None)) => Some(stmts.len() - 1),
            _ => None,
        };
        let outer_awaits_after = self.stored.awaits_after;
        for (index, ((stmt, scope), bound)) in stmts.iter().zip(scopes).zip(bound_before).enumerate().rev() {
            self.stored.awaits_after = outer_awaits_after || later;
            self.in_scope = scope;
            // After a `let`, its names mean its new locals (`let r = r.send().await?;`).
            for name in let_bound_names(stmt) {
                block_names.remove(&name);
            }
            let jump = match stmt {
                syn::Stmt::Expr(expr, _) => self.leads_to(expr),
                // A panic unwinds: nothing of the function runs after it.
                syn::Stmt::Macro(node) if jumps::panicking(&node.mac) => Some(HashSet::new()),
                _ => None,
            };
            self.later = match jump {
                Some(after) => after,
                None => outer_later.difference(&bound).chain(&block_names).cloned().collect(),
            };
            let named = named_in(stmt);
            let outer_unit = std::mem::replace(
                &mut self.unit,
                named.iter().fold(HashMap::new(), |mut counts, name| {
                    *counts.entry(name.clone()).or_insert(0) += 1;
                    counts
                }),
            );
            // An expression statement's value is dropped where it ends, and the bindings of
            // its arms with it: nothing of it is held across a later await (a block's tail
            // is, where the block's value is).
            // (An assignment's value lives on in the local it is assigned to.)
            let held = later
                && (!matches!(stmt, syn::Stmt::Expr(..))
                    || Some(index) == tail
                    || matches!(stmt, syn::Stmt::Expr(syn::Expr::Assign(_), _)));
            self.stmt(stmt, held);
            self.store_into_local(stmt);
            self.unit = outer_unit;
            later |= stmt_awaits(stmt);
            // What it names, not counting the names its own bindings hide (a `let v` in a
            // nested block does not name the `v` of this one).
            block_names.extend(named);
        }
        self.later = saved_later;
        self.in_scope = outer_scope;
        self.stored.awaits_after = outer_awaits_after;
    }

    /// The bindings of `pat` come into scope.
    fn bind(&mut self, pat: &syn::Pat) {
        let mut bindings = Vec::new();
        crate::classic::syntax::bindings::pattern_bindings(pat, &mut bindings);
        for binding in bindings {
            self.in_scope.insert(binding.ident.to_string(), (binding.mutable, Binding::of(&binding.ident)));
        }
    }

    /// Is the binding `name` refers to here `mut`?
    fn is_mutable(&self, name: &str) -> bool {
        self.in_scope.get(name).map_or_else(|| self.mutable.contains(name), |(mutable, _)| *mutable)
    }

    /// The binding `name` refers to here (every binding of the name, for one the walk does not
    /// follow the scope of).
    fn binding(&self, name: &str) -> Binding {
        self.in_scope.get(name).map_or_else(|| Binding::named(name), |(_, binding)| binding.clone())
    }

    /// The locals `names` names here live in place, for `reason`: each as the binding it
    /// refers to here.
    fn record(&mut self, names: HashSet<String>, reason: Reason) {
        for name in names {
            let binding = self.binding(&name);
            self.found.insert(binding, reason);
        }
    }

    /// `place_root_into`, recorded: a value held across an await borrows the place.
    fn record_root(&mut self, expr: &syn::Expr) {
        let mut roots = HashSet::new();
        place_root_into(expr, &mut roots);
        self.record(roots, Reason::HeldAcrossAwait);
    }

    /// Code that runs again (a loop's body and head): what it takes from around it (`free`,
    /// `free_names`) is mentioned later too, in the next round. A name it binds itself (a
    /// `let` in a branch of the body, the loop's own pattern) means a new local in the next
    /// round: the round's mentions of it do not count as later ones.
    fn repeated(&mut self, free: HashSet<String>, f: impl FnOnce(&mut Self)) {
        let outer = self.later.clone();
        self.later.extend(free);
        f(self);
        self.later = outer;
    }

    /// A loop's body, run again (`repeated`), whose `break`s lead to what follows the loop
    /// (`in_loop`) and whose awaits (`awaits`) run after each of its statements, in the next
    /// round.
    fn loop_body(
        &mut self,
        label: Option<&syn::Label>,
        awaits: bool,
        free: HashSet<String>,
        body: &syn::Block,
        held: bool,
    ) {
        let outer_awaits_after = self.stored.awaits_after;
        self.stored.awaits_after |= awaits;
        self.in_loop(label, |finder| finder.repeated(free, |finder| finder.stmts(&body.stmts, held)));
        self.stored.awaits_after = outer_awaits_after;
    }

    /// A `match` arm: the names its pattern binds are counted in the arm alone, and nothing
    /// after it can mention them. What only the other arms mention (`others`) does not run
    /// on this arm's path; after an arm that jumps, what the jump leads to.
    fn arm(&mut self, arm: &syn::Arm, others: &HashMap<String, usize>, f: impl FnOnce(&mut Self)) {
        let mut bindings = Vec::new();
        crate::classic::syntax::bindings::pattern_bindings(&arm.pat, &mut bindings);
        let (outer_later, outer_unit, outer_scope) = (self.later.clone(), self.unit.clone(), self.in_scope.clone());
        for (name, count) in others {
            if let Some(unit) = self.unit.get_mut(name) {
                *unit = unit.saturating_sub(*count);
            }
        }
        if let Some(after) = self.leads_to(&arm.body) {
            self.later = after;
        }
        self.bind(&arm.pat);
        let body = &arm.body;
        let mut in_arm = counts(&quote::quote!(#body));
        if let syn::Pat::Guard(guard) = &arm.pat {
            let guard = &guard.guard;
            for (name, count) in counts(&quote::quote!(#guard)) {
                *in_arm.entry(name).or_insert(0) += count;
            }
        }
        for binding in bindings {
            let name = binding.ident.to_string();
            self.later.remove(&name);
            self.unit.insert(name.clone(), in_arm.get(&name).copied().unwrap_or(0));
        }
        f(self);
        (self.later, self.unit, self.in_scope) = (outer_later, outer_unit, outer_scope);
    }

    /// `holding_roots` of `expr`, but for the receivers its awaits take by value
    /// (`taken_receiver`): a consuming method's result holds no borrow of what it consumed.
    fn holding(&mut self, expr: &syn::Expr) {
        self.holding_except(expr, None);
    }

    /// `holding`, but for `consumed`, a local the value took (not borrowed).
    fn holding_except(&mut self, expr: &syn::Expr, consumed: Option<&str>) {
        struct Taken<'f, 'r> {
            finder: &'f Finder<'r>,
            names: Vec<String>,
            awaits: Vec<usize>,
        }
        impl<'ast> Visit<'ast> for Taken<'_, '_> {
            fn visit_expr_await(&mut self, node: &'ast syn::ExprAwait) {
                let address = std::ptr::from_ref(node) as usize;
                let receiver = if self.finder.taken.contains(&address) {
                    consumed_receiver(&node.base)
                } else {
                    self.finder.taken_receiver(&node.base)
                };
                if let Some(name) = receiver {
                    self.names.push(name);
                    self.awaits.push(address);
                }
                visit::visit_expr_await(self, node);
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
            fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut roots = HashSet::new();
        holding_roots(expr, &mut roots);
        let mut taken = Taken { finder: self, names: Vec::new(), awaits: Vec::new() };
        taken.visit_expr(expr);
        let Taken { names, awaits, .. } = taken;
        for name in names.iter().map(String::as_str).chain(consumed) {
            roots.remove(name);
        }
        self.taken.extend(awaits);
        let mut captured = HashSet::new();
        closure_captures(expr, &mut captured);
        captured.retain(|name| roots.contains(name));
        self.record_captured(captured);
        self.record(roots, Reason::HeldAcrossAwait);
    }

    /// `record`, for names a held closure or async block captures (`captured`).
    fn record_captured(&mut self, names: HashSet<String>) {
        for name in names {
            let binding = self.binding(&name);
            self.captured.insert(binding.clone());
            self.found.insert(binding, Reason::CapturedAcrossAwait);
        }
    }

    /// The local an awaited method call takes by value, taken for a consuming method
    /// (`cmd.apply(db).await`): the receiver is a local that is not `mut` (so the method
    /// takes `self` or `&self`), that this statement names only there and that nothing later
    /// names (its last use). Rust moves such a receiver if the method takes `self`, which a
    /// local kept in place cannot do, so it is not kept in place for this borrow. (A `&self`
    /// method there borrows a value that this state drops: rustc rejects the expansion, and
    /// `(&v).method()` says to keep `v` in place.)
    fn taken_receiver(&self, operand: &syn::Expr) -> Option<String> {
        let name = consumed_receiver(operand)?;
        let syn::Expr::MethodCall(call) = strip_parens(operand) else { return None };
        let last_use = self.unit.get(&name) == Some(&1) && !self.later.contains(&name);
        if hints::keeps(&name) {
            return None;
        }
        let guessed = !self.is_mutable(&name) && !is_borrowing_method(&call.method.to_string());
        let taken = last_use && (hints::moves(&name) || guessed);
        taken.then_some(name)
    }

    /// The local an awaited call calls, taken for that call (`initializer().await`, of an
    /// `F: FnOnce() -> Fut`): the callee is a local that this statement names only there and
    /// nothing later names, and not one whose call may return a future that borrows it (an
    /// async closure's, `async_callables`). Rust moves an `FnOnce` callee into the call, which
    /// a local kept in place cannot do; an `Fn` one is borrowed by the call alone, as its
    /// future cannot borrow it. (A callee that is an async closure the macro cannot see, one
    /// a function returned, is then dropped while its future borrows it: rustc rejects the
    /// expansion.)
    fn taken_callee(&self, operand: &syn::Expr) -> Option<String> {
        let syn::Expr::Call(call) = strip_parens(operand) else { return None };
        let syn::Expr::Path(path) = strip_parens(&call.func) else { return None };
        let name = path.path.get_ident()?.to_string();
        let last_use = self.unit.get(&name) == Some(&1) && !self.later.contains(&name);
        (last_use && !self.async_callables.contains(&name)).then_some(name)
    }

    fn stmt(&mut self, stmt: &syn::Stmt, held: bool) {
        match stmt {
            syn::Stmt::Local(local) => {
                let mut bindings = Vec::new();
                crate::classic::syntax::bindings::pattern_bindings(&local.pat, &mut bindings);
                // A `let` that hides a local of the same name may end a state right after its
                // initializer, which then must not borrow anything that moves there.
                let hides = bindings.iter().any(|binding| self.rebound.contains(&binding.ident.to_string()));
                let held = held || hides;
                if let Some(init) = &local.init {
                    // A `let` that binds nothing (`let _ = tx.send(v);`) keeps nothing past
                    // its statement: its value drops there.
                    // The initializer's own statements first: what their awaits take.
                    self.expr(&init.expr, held);
                    if held && !bindings.is_empty() {
                        // A method called on a local at its last use, which is not `mut`, is
                        // taken to consume it (`let limited = conn.limit(2);`), as an awaited
                        // one is (`taken_receiver`): its value holds no borrow of the local.
                        let consumed =
                            self.taken_receiver(&init.expr).filter(|_| let_consumes(&local.pat, &init.expr).is_some());
                        self.holding_except(&init.expr, consumed.as_deref());
                        if binds_by_ref(&local.pat) {
                            self.record_root(&init.expr);
                        }
                    }
                    if let Some((_, diverge)) = &init.diverge {
                        self.expr(diverge, held);
                    }
                }
            }
            syn::Stmt::Expr(expr, _) => self.expr(expr, held),
            syn::Stmt::Macro(mac) => self.macro_call(&mac.mac, held),
            syn::Stmt::Item(_) => {}
        }
    }

    /// An expression: finds awaits and constructs whose scrutinee is held over awaits inside
    /// them.
    fn expr(&mut self, expr: &syn::Expr, held: bool) {
        let mut visitor = Exprs { finder: self, held };
        visitor.visit_expr(expr);
    }

    /// A macro call. A standard one whose arguments await is taken apart by `lower` (its
    /// arguments computed first, in order): they are walked as the expressions they are, so
    /// that an awaited consuming method there takes its receiver as anywhere else
    /// (`panic!("{}", v.finish().await)`).
    fn macro_call(&mut self, mac: &syn::Macro, held: bool) {
        let parsed = std_macros::parse(mac);
        if let Some(Ok(parsed)) = &parsed
            && macro_awaits(mac)
            && !matches!(parsed.kind, std_macros::Kind::Matches { .. })
        {
            let args = parsed.exprs_with_use();
            // What the arguments before the last that awaits compute is held across its
            // awaits, and a format argument is borrowed (`panic!("{}", v.name(), f().await)`).
            let last_await = args.iter().rposition(|(expr, _)| expr_awaits(expr)).unwrap_or(0);
            for (index, (expr, usage)) in args.into_iter().enumerate() {
                if index < last_await && !expr_awaits(expr) {
                    self.holding(expr);
                    if usage == std_macros::ArgumentUse::Borrowed {
                        self.record_root(expr);
                    }
                }
                self.expr(expr, held);
            }
            return;
        }
        // A standard macro that awaits otherwise (`matches!` with an await): what it borrows
        // is borrowed across its awaits. A macro the lowering does not know is left as written
        // (`parse::awaiting_macros` has already rewritten `join!` and `select!`): the awaits
        // among its tokens are its own (`stream! { .. }` expands to an async block of its
        // own), and `macro_awaits` says so. (One that does not await keeps nothing past its
        // statement, unless its value is: `holding_roots`.)
        if macro_awaits(mac) {
            self.record(idents(&mac.tokens).into_iter().collect(), Reason::NamedByAwaitingMacro);
        }
    }
}

struct Exprs<'f, 'r> {
    finder: &'f mut Finder<'r>,
    held: bool,
}

impl<'ast> Visit<'ast> for Exprs<'_, '_> {
    fn visit_expr(&mut self, expr: &'ast syn::Expr) {
        match expr {
            syn::Expr::Await(node) => {
                // The awaiter holds whatever its future borrows: explicit borrows, and what a
                // call borrows implicitly (a closure called, a `&mut` reborrowed). Its operand
                // first: the awaits of the blocks in it find which receivers they take, each
                // at its own statement (`f({ let v = ..; v.finish().await }).await`).
                self.visit_expr(&node.base);
                self.finder.holding(expr);
                let mut borrowed = HashSet::new();
                implicit_borrows(&node.base, self.finder.exclusive_refs, &self.finder.async_callables, &mut borrowed);
                if let Some(callee) = self.finder.taken_callee(&node.base) {
                    borrowed.remove(&callee);
                }
                self.finder.record(borrowed, Reason::HeldAcrossAwait);
            }
            // A comparison's left operand that the awaiting right one may change is held
            // borrowed across its awaits (`lower::compared_with_what_may_change_it`).
            syn::Expr::Binary(node)
                if is_comparison(&node.op) && compared_with_what_may_change_it(&node.left, &node.right) =>
            {
                self.finder.record_root(&node.left);
                visit::visit_expr(self, expr);
            }
            // `r = &v;` (or any value that may borrow): what it borrows is held as long as the
            // local it is assigned to, as a `let`'s initializer is.
            syn::Expr::Assign(node) if self.held => {
                visit::visit_expr(self, expr);
                self.finder.holding(&node.right);
            }
            syn::Expr::Block(node) => self.finder.stmts(&node.block.stmts, self.held),
            syn::Expr::Unsafe(node) => self.finder.stmts(&node.block.stmts, self.held),
            syn::Expr::Loop(node) => {
                let awaits = block_awaits(&node.body);
                let held = self.held || awaits;
                let free = free_names::of_block(&node.body, &[]);
                self.finder.loop_body(node.label.as_ref(), awaits, free, &node.body, held);
            }
            syn::Expr::While(node) => {
                let awaits = block_awaits(&node.body) || expr_awaits(&node.cond);
                let held = self.held || awaits;
                let free = free_names::of_condition_and_block(&node.cond, &node.body);
                let outer = self.finder.later.clone();
                self.finder.later.extend(free.iter().cloned());
                self.scrutinee(&node.cond, awaits);
                self.finder.later = outer;
                let outer_scope = self.finder.in_scope.clone();
                for (pat, scrutinee) in lets_of(&node.cond) {
                    self.finder.bind(pat);
                    self.finder.note_origins(pat, scrutinee);
                }
                self.finder.loop_body(node.label.as_ref(), awaits, free, &node.body, held);
                self.finder.in_scope = outer_scope;
            }
            syn::Expr::ForLoop(node) => {
                let awaits = block_awaits(&node.body);
                self.visit_expr(&node.expr);
                if awaits {
                    self.finder.holding(&node.expr);
                    self.finder.record_root(&node.expr);
                }
                let held = self.held || awaits;
                let free = free_names::of_block(&node.body, &[&node.pat]);
                let outer_scope = self.finder.in_scope.clone();
                self.finder.bind(&node.pat);
                self.finder.note_origins(&node.pat, &node.expr);
                self.finder.loop_body(node.label.as_ref(), awaits, free, &node.body, held);
                self.finder.in_scope = outer_scope;
            }
            syn::Expr::If(node) => {
                let awaits = block_awaits(&node.then_branch)
                    || node.else_branch.as_ref().is_some_and(|(_, other)| expr_awaits(other));
                self.scrutinee(&node.cond, awaits || self.held);
                let outer_scope = self.finder.in_scope.clone();
                for (pat, scrutinee) in lets_of(&node.cond) {
                    self.finder.bind(pat);
                    self.finder.note_origins(pat, scrutinee);
                }
                self.finder.stmts(&node.then_branch.stmts, self.held);
                self.finder.in_scope = outer_scope;
                if let Some((_, other)) = &node.else_branch {
                    self.visit_expr(other);
                }
            }
            syn::Expr::Match(node) => {
                let awaits = node.arms.iter().any(|arm| {
                    expr_awaits(&arm.body) || matches!(&arm.pat, syn::Pat::Guard(guard) if expr_awaits(&guard.guard))
                });
                // The scrutinee first: the awaits of the blocks in it find which receivers
                // they take, each at its own statement, before `holding` looks at them.
                self.visit_expr(&node.expr);
                if awaits || self.held {
                    self.finder.holding(&node.expr);
                    // A binding borrows the scrutinee if it is `ref`, or if the scrutinee may
                    // be a reference (match ergonomics bind through it). A local that owns its
                    // value, matched by value (`Ok(s) => .., Err(_) => ..`), gives up the
                    // parts the arm moves out, and nothing borrows it across the arm's awaits.
                    let owned = matches!(strip_parens(&node.expr), syn::Expr::Path(path)
                        if path.path.get_ident().is_some_and(|ident| !self.finder.exclusive_refs.contains(&ident.to_string()) && ident != "self"));
                    if node.arms.iter().any(|arm| binds_by_ref(&arm.pat) || (!owned && has_bindings(&arm.pat))) {
                        self.finder.record_root(&node.expr);
                    }
                }
                // Counted as `named_in` counts the statement (the `unit` they are taken from):
                // a `let` of an arm that hides a local does not name it.
                let in_arms: Vec<_> = node.arms.iter().map(arm_named).collect();
                for (index, arm) in node.arms.iter().enumerate() {
                    let mut others = HashMap::new();
                    for (_, counts) in in_arms.iter().enumerate().filter(|(other, _)| *other != index) {
                        for (name, count) in counts {
                            *others.entry(name.clone()).or_insert(0) += count;
                        }
                    }
                    let held = self.held;
                    self.finder.arm(arm, &others, |finder| {
                        let mut visitor = Exprs { finder, held };
                        if let syn::Pat::Guard(guard) = &arm.pat {
                            visitor.visit_expr(&guard.guard);
                        }
                        visitor.visit_expr(&arm.body);
                    });
                }
            }
            syn::Expr::Closure(node) => {
                if self.held && node.capture.is_none() {
                    let mut captured = HashSet::new();
                    free_idents(&node.body, &mut captured);
                    self.finder.record_captured(captured);
                }
            }
            syn::Expr::Async(node) => {
                if self.held && node.capture.is_none() {
                    let mut captured = HashSet::new();
                    free_idents_block(&node.block, &mut captured);
                    self.finder.record_captured(captured);
                }
                let held = self.held;
                // Its `return` leaves the block, and no `break` in it leaves a loop outside.
                let returned = std::mem::replace(&mut self.finder.exits.returned, self.finder.later.clone());
                let loops = std::mem::take(&mut self.finder.exits.loops);
                self.finder.stmts(&node.block.stmts, held);
                (self.finder.exits.returned, self.finder.exits.loops) = (returned, loops);
            }
            syn::Expr::Macro(node) => self.finder.macro_call(&node.mac, self.held),
            _ => visit::visit_expr(self, expr),
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl Exprs<'_, '_> {
    /// An `if`/`while` condition: the scrutinees of its `let`s are held over the branch.
    fn scrutinee(&mut self, cond: &syn::Expr, held: bool) {
        self.visit_expr(cond);
        if held {
            for (pat, scrutinee) in lets_of(cond) {
                self.finder.holding(scrutinee);
                if has_bindings(pat) {
                    self.finder.record_root(scrutinee);
                }
            }
        }
    }
}

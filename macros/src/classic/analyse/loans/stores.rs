//! Borrows that reach a local through a value stored into it: `for k in deqs.items.iter() {
//! candidates.push(k); }`, then `scan(candidates).await` and `deqs.items.clear()` after it. The
//! vector holds borrows of `deqs` across the await, which the statement that made them (a loop
//! whose body does not await) does not show. Each binding's origins (the locals its value may
//! borrow, through the bindings it was computed from) are noted where it is bound, and a
//! statement that stores a value into a local (`v.push(x)`, `m.insert(k, x)`, ..) that code
//! after an await names keeps those origins in place, as a `let` of that value would.

use std::collections::{HashMap, HashSet};

use syn::visit_mut::{self, VisitMut};

use super::Finder;
use super::scan::{free_idents, holding_roots};
use crate::classic::analyse::in_place::Reason;
use crate::classic::syntax::bindings::pattern_bindings;
use crate::classic::syntax::receivers::place_root;
use crate::classic::syntax::strip_parens;

/// The walk's state for stored borrows.
#[derive(Default)]
pub(super) struct Stored {
    /// By binding name, the locals its value may borrow.
    origins: HashMap<String, HashSet<String>>,
    /// Whether an await of the function may run after the current statement.
    pub(super) awaits_after: bool,
}

/// Each awaited value replaced by `()`.
struct WithoutAwaits;

impl VisitMut for WithoutAwaits {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if matches!(expr, syn::Expr::Await(_)) {
            *expr = syn::parse_quote!(());
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}

/// Methods that store their arguments into their receiver.
const STORING: [&str; 9] =
    ["push", "push_back", "push_front", "insert", "extend", "extend_from_slice", "append", "replace", "get_or_insert"];

impl Finder<'_> {
    /// The locals `expr`'s value may borrow: what it borrows itself, and the origins of the
    /// bindings it names. An awaited call's value is taken to own what it holds (`let resp =
    /// req.send().await?`, `v.push(resp.text().await?)`, of methods that may consume their
    /// receivers): a borrow it does hold is rustc's error at the state machine's move, never
    /// unsound.
    pub(super) fn borrowed_through(&self, expr: &syn::Expr) -> HashSet<String> {
        let mut expr = expr.clone();
        WithoutAwaits.visit_expr_mut(&mut expr);
        let mut roots = HashSet::new();
        holding_roots(&expr, &mut roots);
        let mut named = HashSet::new();
        free_idents(&expr, &mut named);
        for name in named {
            if let Some(origins) = self.stored.origins.get(&name) {
                roots.extend(origins.iter().cloned());
            }
        }
        roots
    }

    /// The bindings of `pat`, bound from `value`, may borrow what it borrows.
    pub(super) fn note_origins(&mut self, pat: &syn::Pat, value: &syn::Expr) {
        let origins = self.borrowed_through(value);
        if origins.is_empty() {
            return;
        }
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        for binding in bindings {
            self.stored.origins.entry(binding.ident.to_string()).or_default().extend(origins.iter().cloned());
        }
    }

    /// `local.push(value)` where an await may follow and code after it names `local`: what the
    /// value borrows is held as long as the local, and stays in place.
    pub(super) fn store_into_local(&mut self, stmt: &syn::Stmt) {
        let syn::Stmt::Expr(expr, _) = stmt else { return };
        let syn::Expr::MethodCall(call) = strip_parens(expr) else { return };
        if !STORING.contains(&call.method.to_string().as_str()) {
            return;
        }
        let Some(local) = place_root(&call.receiver) else { return };
        if !self.stored.awaits_after || !self.later.contains(&local) {
            return;
        }
        let mut stored = HashSet::new();
        for arg in &call.args {
            stored.extend(self.borrowed_through(arg));
        }
        self.stored.origins.entry(local).or_default().extend(stored.iter().cloned());
        self.record(stored, Reason::StoredAcrossAwait);
    }
}

//! What a method call on a local does with it, guessed from the method's name (the macro sees
//! no types): which results hold a borrow of the receiver, which calls take it by value, and
//! the local a place or a borrow starts from.

use std::collections::HashSet;

use crate::classic::hints;
use crate::classic::syntax::{self, Through, strip_parens};

/// The local a place expression (`v`, `v.f[i]`, `*v`, `(v)`) is part of, or that a value
/// may borrow through method calls (`v.iter_mut().next()`, `v.lock().unwrap()`: the innermost
/// receiver).
pub(crate) fn place_root(expr: &syn::Expr) -> Option<String> {
    let may_borrow: fn(&str) -> bool = |method| !returns_owned(method);
    syntax::place_root(expr, Through::Borrows(may_borrow)).map(ToString::to_string)
}

pub(crate) fn place_root_into(expr: &syn::Expr, out: &mut HashSet<String>) {
    if let Some(root) = place_root(expr) {
        out.insert(root);
    }
}

/// Methods that take `self` by value on the standard types; any other method is assumed to
/// borrow its receiver.
pub(crate) fn consumes_receiver(method: &str) -> bool {
    method.starts_with("into_")
        || method.starts_with("unwrap")
        || method.starts_with("expect")
        || matches!(
            method,
            "collect"
                | "sum"
                | "product"
                | "count"
                | "fold"
                | "for_each"
                | "ok"
                | "err"
                | "map"
                | "map_err"
                | "and_then"
                | "or_else"
                | "ok_or"
                | "ok_or_else"
                | "zip"
                | "chain"
                | "rev"
                | "skip"
                | "enumerate"
                | "filter"
                | "filter_map"
                | "flat_map"
                | "flatten"
                | "into"
                | "await"
                // More of `Option`'s, `Result`'s and `Iterator`'s adapters that take `self`
                // (`take`, `find`, `any`, `position`, `nth` borrow an iterator: not here).
                | "transpose"
                | "cloned"
                | "copied"
                | "map_or"
                | "map_or_else"
                | "and"
                | "or"
                | "xor"
                | "is_some_and"
                | "is_none_or"
                | "is_ok_and"
                | "is_err_and"
                | "step_by"
                | "cycle"
                | "last"
                | "max"
                | "min"
                | "max_by"
                | "min_by"
                | "max_by_key"
                | "min_by_key"
                | "reduce"
                | "partition"
                | "unzip"
                | "map_while"
                // The stream and future combinators of `futures` (and their `try_` forms):
                // each takes its receiver by value.
                | "then"
                | "fuse"
                | "boxed"
                | "boxed_local"
                | "inspect"
                | "scan"
                | "take_while"
                | "skip_while"
                | "peekable"
                | "concat"
                | "forward"
                | "buffered"
                | "buffer_unordered"
                | "for_each_concurrent"
                | "map_ok"
                | "try_fold"
                | "try_for_each"
                | "try_for_each_concurrent"
                | "try_collect"
                | "try_concat"
                | "try_filter"
                | "try_filter_map"
                // `FutureExt`'s and `TryFutureExt`'s others (`AssertUnwindSafe(fut).catch_unwind()`).
                | "catch_unwind"
                | "remote_handle"
                | "left_future"
                | "right_future"
                | "unit_error"
                | "never_error"
                | "err_into"
                | "ok_into"
                | "inspect_ok"
                | "inspect_err"
                | "try_flatten"
                | "flatten_stream"
                | "try_flatten_stream"
        )
}

/// Does the method take its receiver by value, as far as its name says: the consuming ones
/// (`consumes_receiver`) and those of the primitive numbers (`min`, `pow`,
/// `wrapping_add`, ..). Rust reads such a receiver where the call begins, before its
/// arguments run (`self.count.min(self.bump().await)` compares the count from before).
pub(crate) fn takes_receiver_by_value(method: &str) -> bool {
    const PREFIXES: [&str; 8] =
        ["wrapping_", "checked_", "saturating_", "overflowing_", "rotate_", "count_", "leading_", "trailing_"];
    consumes_receiver(method)
        || PREFIXES.iter().any(|prefix| method.starts_with(prefix))
        || matches!(
            method,
            "min"
                | "max"
                | "clamp"
                | "pow"
                | "abs"
                | "abs_diff"
                | "signum"
                | "rem_euclid"
                | "div_euclid"
                | "isqrt"
                | "ilog2"
                | "ilog10"
                | "swap_bytes"
                | "reverse_bits"
        )
}

/// Methods of the standard types whose result holds no borrow of the receiver.
pub(crate) fn returns_owned(method: &str) -> bool {
    method.starts_with("is_")
        || method.starts_with("to_")
        || method.starts_with("into_")
        || method.starts_with("checked_")
        || method.starts_with("wrapping_")
        || method.starts_with("saturating_")
        || method.starts_with("overflowing_")
        || method.starts_with("count_")
        || matches!(
            method,
            "len"
                | "clone"
                | "cloned"
                | "copied"
                | "push"
                | "push_str"
                | "push_back"
                | "push_front"
                | "pop"
                | "pop_back"
                | "pop_front"
                | "insert"
                | "remove"
                | "clear"
                | "truncate"
                | "extend"
                | "extend_from_slice"
                | "contains"
                | "contains_key"
                | "starts_with"
                | "ends_with"
                | "eq"
                | "ne"
                | "cmp"
                | "partial_cmp"
                | "lt"
                | "le"
                | "gt"
                | "ge"
                | "min"
                | "max"
                | "abs"
                | "pow"
                | "count"
                | "sum"
                | "product"
                | "parse"
                | "load"
                | "store"
                | "fetch_add"
                | "fetch_sub"
                | "swap"
                | "replace"
                | "set"
                | "get_or_insert"
                | "capacity"
                | "reserve"
                | "sort"
                | "sort_unstable"
                | "reverse"
                | "dedup"
                | "retain"
                | "fill"
                | "hash"
                | "fmt"
                | "collect"
                | "unwrap_or_default"
        )
}

/// The local whose method an await's operand calls (`cmd.apply(db)`), if it is a local.
pub(crate) fn consumed_receiver(operand: &syn::Expr) -> Option<String> {
    let syn::Expr::MethodCall(call) = strip_parens(operand) else { return None };
    let syn::Expr::Path(path) = &*call.receiver else { return None };
    Some(path.path.get_ident()?.to_string())
}

/// The local whose field a method is called on and the member next to it (`("self", "txn")`
/// for `self.txn.commit()`), where the user's `moves` hint names that field
/// (`moves(self.txn)`): the method takes the field by value at its last use. No guess is made
/// without the hint (a `&self` method on a field is as common as a consuming one there).
pub(crate) fn hinted_field_receiver(receiver: &syn::Expr) -> Option<(String, String)> {
    let (root, members) = syntax::field_chain(receiver)?;
    hints::moves(&hints::place_text(&root, &members)).then(|| (root, syntax::members_text(&members[..1])))
}

/// The hinted field receivers (`hinted_field_receiver`) of the method calls in an expression.
pub(crate) fn hinted_fields_in_expr(expr: &syn::Expr) -> Vec<(String, String)> {
    let mut fields = HintedFields(Vec::new());
    syn::visit::Visit::visit_expr(&mut fields, expr);
    fields.0
}

/// `hinted_fields_in_expr` of a statement.
pub(crate) fn hinted_fields_in_stmt(stmt: &syn::Stmt) -> Vec<(String, String)> {
    let mut fields = HintedFields(Vec::new());
    syn::visit::Visit::visit_stmt(&mut fields, stmt);
    fields.0
}

struct HintedFields(Vec<(String, String)>);

impl<'ast> syn::visit::Visit<'ast> for HintedFields {
    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if let Some(field) = hinted_field_receiver(&call.receiver)
            && !self.0.contains(&field)
        {
            self.0.push(field);
        }
        syn::visit::visit_expr_method_call(self, call);
    }
}

/// The local that a `let`'s initializer borrows directly (its binding then holds a borrow,
/// nothing to drop): (`&v`, `&mut v.f[i]`, `v.iter()`, `v.as_str()`, ...),
/// with the span of the borrow.
pub(crate) fn borrow_root(expr: &syn::Expr) -> Option<(proc_macro2::Ident, proc_macro2::Span)> {
    // Named as `mentions` names locals: `self` is the hidden local that holds it.
    let place_root = |expr: &syn::Expr| {
        syntax::place_root(expr, Through::Indexes).map(|root| {
            if root == "self" {
                proc_macro2::Ident::new(super::mentions::SELF_LOCAL, root.span())
            } else {
                root.clone()
            }
        })
    };
    match expr {
        syn::Expr::Reference(node) => place_root(&node.expr).map(|root| (root, syn::spanned::Spanned::span(expr))),
        syn::Expr::Paren(node) => borrow_root(&node.expr),
        syn::Expr::MethodCall(node) if is_borrowing_method(&node.method.to_string()) => {
            place_root(&node.receiver).map(|root| (root, syn::spanned::Spanned::span(expr)))
        }
        syn::Expr::Call(node) if node.args.len() == 1 && is_into_iter_call(&node.func) => borrow_root(&node.args[0]),
        _ => None,
    }
}

pub(crate) fn is_into_iter_call(func: &syn::Expr) -> bool {
    matches!(func, syn::Expr::Path(path) if path.path.segments.last().is_some_and(|segment| segment.ident == "into_iter"))
}

/// Methods of the standard collections that return a borrow of their receiver.
/// A method that a `let` calls on a local at its last use, taken to consume it
/// (`let limited = conn.limit(2);`, a builder's `build`), unless it is one of the standard
/// borrowing methods or reads like a getter (`len`, `is_empty`, `get`, `as_..`, `to_..`,
/// `clone`): whether `m` takes `self` is rustc's to know, and a getter's receiver, wrongly
/// taken, would drop early.
pub(crate) fn let_takes_receiver(method: &str) -> bool {
    let getter = matches!(method, "len" | "clone" | "capacity" | "name" | "borrow" | "deref" | "peek" | "contains")
        || [
            "is_",
            "get",
            "as_",
            "to_",
            "has_",
            "starts_with",
            "ends_with",
            "contains_",
            "peek_",
            "iter",
            "trim",
            "split",
            "strip_",
            "char",
            "byte",
            "line",
            "find",
            "rfind",
            "match",
            "parse",
            "entry",
            "lock",
            "read",
            "write",
            "send",
            "recv",
            "try_",
            "poll",
        ]
        .iter()
        .any(|prefix| method.starts_with(prefix));
    !getter && !is_borrowing_method(method)
}

/// `let new = local.method(..)` that `let_takes_receiver` takes `local` for: a method not
/// known to borrow, on a local the pattern does not bind again (`let line = line.trim();`
/// keeps reading the old `line` through the new one's borrow, as such lets usually do).
pub(crate) fn let_consumes(pat: &syn::Pat, init: &syn::Expr) -> Option<String> {
    // A temporary of the lowering's holds an operand the user wrote in an expression
    // (`v.total() == f().await`), where nothing says the method consumes: the guess is for
    // the user's own `let`s only.
    if matches!(pat, syn::Pat::Ident(binding) if crate::classic::syntax::is_lowering_temporary(&binding.ident)) {
        return None;
    }
    let syn::Expr::MethodCall(call) = strip_parens(init) else { return None };
    let syn::Expr::Path(path) = strip_parens(&call.receiver) else { return None };
    let receiver = path.path.get_ident()?.to_string();
    let mut bindings = Vec::new();
    crate::classic::syntax::bindings::pattern_bindings(pat, &mut bindings);
    let rebinds = bindings.iter().any(|binding| binding.ident == receiver);
    if hints::keeps(&receiver) {
        return None;
    }
    (hints::moves(&receiver) || (!rebinds && let_takes_receiver(&call.method.to_string()))).then_some(receiver)
}

pub(crate) fn is_borrowing_method(method: &str) -> bool {
    matches!(
        method,
        "iter"
            | "iter_mut"
            | "as_str"
            | "as_slice"
            | "as_mut_slice"
            | "as_bytes"
            | "as_ref"
            | "as_mut"
            | "as_deref"
            | "as_deref_mut"
            | "chars"
            | "bytes"
            | "lines"
            | "split_whitespace"
            | "keys"
            | "values"
            | "values_mut"
            | "windows"
            | "chunks"
            | "drain"
            | "borrow"
            | "borrow_mut"
            | "lock"
            | "get_mut"
            | "first"
            | "last"
            | "first_mut"
            | "last_mut"
    )
}

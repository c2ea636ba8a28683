//! Borrows of the state machine's own data held across an await: the shapes the classic
//! lowering rejects (C#'s CS9217 and CS1988), found where the syntax shows them, with
//! messages that name the local and the await and say what to write instead.
//!
//! `emit` decides when a borrow is held across an await (it knows what is saved there);
//! this module finds the borrows and words the errors.

use proc_macro2::{Ident, Span};
use syn::spanned::Spanned;

/// `holder` (a local, or a `for` loop's iterator) borrows the local `borrowed` across an
/// await.
pub(crate) fn held_across_await(holder: &str, borrowed: &str, borrow_span: Span, await_span: Span) -> syn::Error {
    let message = if holder.starts_with("__iter") {
        format!(
            "classic lowering: this `for` loop iterates over a borrow of the local `{borrowed}` \
             and awaits, and a classic state machine cannot hold a reference into its own \
             fields (C# rejects the same shape: CS9217); iterate over `{borrowed}` by value \
             (`for item in {borrowed}`, or over a clone), or collect what the loop needs first"
        )
    } else {
        format!(
            "classic lowering: `{holder}` borrows the local `{borrowed}` across this await, and a \
             classic state machine cannot hold a reference into its own fields (C# rejects the \
             same shape: CS9217); clone `{borrowed}` or move it into `{holder}`, or restructure \
             so that the borrow ends before the await"
        )
    };
    with_borrow_note(message, borrowed, borrow_span, await_span)
}

/// An await reborrows `root`, a `&mut` the state machine keeps for later.
pub(crate) fn exclusive_reborrow(root: &Ident, borrow_span: Span, await_span: Span) -> syn::Error {
    let message = format!(
        "classic lowering: this await reborrows `{root}`, a `&mut` reference the state \
         machine keeps for later, and a suspended state machine cannot lend out one of \
         its own fields (C# rejects `ref` parameters in async methods for the same \
         reason: CS1988); take the value by ownership and return it, or end the use \
         of `{root}` with this await"
    );
    with_borrow_note(message, &root.to_string(), borrow_span, await_span)
}

/// An await's operand borrows the local `root` (`fill(&mut buf).await`).
pub(crate) fn operand_borrows_local(root: &Ident, borrow_span: Span, await_span: Span) -> syn::Error {
    let message = format!(
        "classic lowering: this await holds a borrow of the local `{root}`, and a \
         classic state machine cannot hold a reference into its own fields (C# \
         rejects the same shape: CS9217); move `{root}` into the call and get it \
         back from its result, or clone it"
    );
    with_borrow_note(message, &root.to_string(), borrow_span, await_span)
}

fn with_borrow_note(message: String, borrowed: &str, borrow_span: Span, await_span: Span) -> syn::Error {
    let mut error = syn::Error::new(await_span, message);
    error.combine(syn::Error::new(borrow_span, format!("`{borrowed}` is borrowed here")));
    error
}

/// The variable `expr` borrows directly (`&v`, `&mut v.f[i]`, `v.iter()`, `v.as_str()`, ...),
/// with the span of the borrow.
pub(crate) fn borrow_root(expr: &syn::Expr) -> Option<(Ident, Span)> {
    fn place_root(expr: &syn::Expr) -> Option<Ident> {
        match expr {
            syn::Expr::Path(path) if path.qself.is_none() => path.path.get_ident().cloned(),
            syn::Expr::Field(node) => place_root(&node.base),
            syn::Expr::Index(node) => place_root(&node.expr),
            syn::Expr::Paren(node) => place_root(&node.expr),
            _ => None,
        }
    }
    match expr {
        syn::Expr::Reference(node) => place_root(&node.expr).map(|root| (root, expr.span())),
        syn::Expr::Paren(node) => borrow_root(&node.expr),
        syn::Expr::MethodCall(node) if is_borrowing_method(&node.method.to_string()) => {
            place_root(&node.receiver).map(|root| (root, expr.span()))
        }
        syn::Expr::Call(node) if node.args.len() == 1 && is_into_iter_call(&node.func) => borrow_root(&node.args[0]),
        _ => None,
    }
}

fn is_into_iter_call(func: &syn::Expr) -> bool {
    matches!(func, syn::Expr::Path(path) if path.path.segments.last().is_some_and(|segment| segment.ident == "into_iter"))
}

/// Methods of the standard collections that return a borrow of their receiver.
fn is_borrowing_method(method: &str) -> bool {
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

/// The locals an await operand names: `&mut v` (`Some(true)`), `&v` (`Some(false)`), or
/// plainly (`None`, which matters for `&mut` parameters, reborrowed implicitly).
///
/// Only `&mut v` is reported as a borrow the awaiter holds: a future made from `&v` may or
/// may not keep it (`with_cancellation(f, &token)` clones the token), and where it does,
/// rustc rejects the expansion at the user's line.
pub(crate) fn operand_borrows(operand: &syn::Expr) -> Vec<(Ident, Span, Option<bool>)> {
    struct Finder(Vec<(Ident, Span, Option<bool>)>);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr(&mut self, expr: &'ast syn::Expr) {
            match expr {
                syn::Expr::Reference(node) => {
                    if let Some((root, _)) = borrow_root(expr) {
                        self.0.push((root, node.span(), Some(node.mutability.is_some())));
                        return;
                    }
                    syn::visit::visit_expr(self, expr)
                }
                syn::Expr::Path(path) if path.qself.is_none() => {
                    if let Some(ident) = path.path.get_ident() {
                        self.0.push((ident.clone(), ident.span(), None));
                    }
                }
                syn::Expr::Closure(_) | syn::Expr::Async(_) => {}
                _ => syn::visit::visit_expr(self, expr),
            }
        }
    }
    let mut finder = Finder(Vec::new());
    syn::visit::Visit::visit_expr(&mut finder, operand);
    finder.0
}

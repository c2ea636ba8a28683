//! Pinning macros in a classic body. `tokio::pin!(fut)` and `futures::pin_mut!(fut)`
//! shadow a name with a pinned `&mut` of its value (`let mut fut = fut;
//! let mut fut = unsafe { Pin::new_unchecked(&mut fut) };`),
//! and `let fut = std::pin::pin!(make());` keeps its value in a temporary that the `let`
//! extends: left as macros, the lowering would see neither, and a pinned future kept across
//! an await would point into `move_next`'s frame. They are written here as those `let`s, with
//! the value moved into a local of its own (`__pinned0`, ..); the lowering then keeps the pinned local
//! in place (the `&mut` of it lives across awaits), where it never moves: what `Pin` needs.
//!
//! Each form is recognised by its shape: a statement `pin!(a, b)` of names (tokio, futures),
//! a statement `pin! { let a = expr; .. }` (tokio), and `let pat = pin!(expr);` (std).

use proc_macro2::Span;
use quote::format_ident;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

/// The `let`s a pinning statement stands for; `None` when `stmt` is not one.
pub(crate) fn expand(stmt: &syn::Stmt, pinned: &mut usize) -> Option<syn::Result<Vec<syn::Stmt>>> {
    match stmt {
        syn::Stmt::Macro(node) if is_pinning(&node.mac) => Some(names(&node.mac, pinned)),
        syn::Stmt::Local(local) => {
            let init = local.init.as_ref()?;
            let syn::Expr::Macro(node) = &*init.expr else { return None };
            if !is_pinning(&node.mac) || init.diverge.is_some() {
                return None;
            }
            Some(value(local, &node.mac, pinned))
        }
        _ => None,
    }
}

/// Appends a pinning macro's `lets` to `stmts`. When the statement before pinned `name` was
/// `let name = value;` (the usual idiom: `let fut = make(); tokio::pin!(fut);`), the value
/// goes straight into the holder and that `let` goes away: the same value in the same place
/// (the first binding was moved at once and never used again), with no move of a local that
/// may live in place (whose type, an `async` block's, rustc learns too late to tell a move
/// from a copy).
pub(crate) fn merge(stmts: &mut Vec<syn::Stmt>, lets: Vec<syn::Stmt>) {
    for pair in lets.chunks(2) {
        let merged = match (stmts.last(), pair) {
            (Some(syn::Stmt::Local(previous)), [syn::Stmt::Local(hold), pin]) => {
                merged_let(previous, hold).map(|merged| [syn::Stmt::Local(merged), pin.clone()])
            }
            _ => None,
        };
        match merged {
            Some(merged) => {
                stmts.pop();
                stmts.extend(merged);
            }
            None => stmts.extend(pair.iter().cloned()),
        }
    }
}

/// `let mut holder = name;` after `let name = value;` becomes `let mut holder = value;`.
fn merged_let(previous: &syn::Local, hold: &syn::Local) -> Option<syn::Local> {
    let syn::Expr::Path(moved) = &*hold.init.as_ref()?.expr else { return None };
    let (pat, ty) = match &previous.pat {
        syn::Pat::Type(typed) => (&*typed.pat, Some(&typed.ty)),
        pat => (pat, None),
    };
    let syn::Pat::Ident(binding) = pat else { return None };
    let init = previous.init.as_ref()?;
    let simple = binding.by_ref.is_none() && binding.subpat.is_none() && previous.attrs.is_empty();
    if !simple || init.diverge.is_some() || !moved.path.is_ident(&binding.ident) {
        return None;
    }
    let syn::Pat::Ident(holder) = &hold.pat else { return None };
    let holder = &holder.ident;
    let value = &init.expr;
    let merged: syn::Stmt = match ty {
        Some(ty) => syn::parse_quote!(let mut #holder: #ty = #value;),
        None => syn::parse_quote!(let mut #holder = #value;),
    };
    match merged {
        syn::Stmt::Local(local) => Some(local),
        _ => None,
    }
}

pub(crate) fn is_pinning(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|segment| segment.ident == "pin" || segment.ident == "pin_mut")
}

/// `pin!(a, b)` or `pin! { let a = expr; }`: each name shadowed by a pinned `&mut` of itself.
fn names(mac: &syn::Macro, pinned: &mut usize) -> syn::Result<Vec<syn::Stmt>> {
    let listed = Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated.parse2(mac.tokens.clone());
    let pairs: Vec<(syn::Ident, syn::Expr)> = match listed {
        Ok(names) => names.into_iter().map(|name| (name.clone(), syn::parse_quote!(#name))).collect(),
        Err(_) => {
            let stmts = syn::Block::parse_within.parse2(mac.tokens.clone()).map_err(|_| shape_error(mac))?;
            let mut pairs = Vec::new();
            for stmt in stmts {
                match stmt {
                    syn::Stmt::Local(syn::Local {
                        pat: syn::Pat::Ident(syn::PatIdent { ident, by_ref: None, subpat: None, .. }),
                        init: Some(syn::LocalInit { expr, diverge: None, .. }),
                        ..
                    }) => pairs.push((ident, *expr)),
                    _ => return Err(shape_error(mac)),
                }
            }
            pairs
        }
    };
    let mut lets = Vec::new();
    for (name, value) in pairs {
        let span = name.span();
        let holder = holder(pinned, span);
        lets.push(syn::parse_quote_spanned!(span=> let mut #holder = #value;));
        let pinned = lowering_unsafe_pin(&holder, span);
        lets.push(syn::parse_quote_spanned!(span=>
            #[allow(unused_mut)]
            let mut #name = #pinned;
        ));
    }
    Ok(lets)
}

/// The local that holds a pinned value: named apart from the user's (`__pinned0`, ..), so
/// that the name the macro shadows keeps one meaning, the pinned `&mut`.
fn holder(pinned: &mut usize, span: Span) -> syn::Ident {
    let holder = format_ident!("__pinned{}", *pinned, span = Span::mixed_site().located_at(span));
    *pinned += 1;
    holder
}

/// `let pat = pin!(expr);`: the value in a local of its own, declared first so that it drops
/// after `pat`, as the extended temporary does.
fn value(local: &syn::Local, mac: &syn::Macro, pinned: &mut usize) -> syn::Result<Vec<syn::Stmt>> {
    let value: syn::Expr = syn::parse2(mac.tokens.clone()).map_err(|_| shape_error(mac))?;
    let span = value.span();
    let holder = holder(pinned, span);
    let (attrs, pat) = (&local.attrs, &local.pat);
    let pinned = lowering_unsafe_pin(&holder, span);
    Ok(vec![
        syn::parse_quote_spanned!(span=> let mut #holder = #value;),
        syn::parse_quote_spanned!(span=>
            #(#attrs)*
            let #pat = #pinned;
        ),
    ])
}

/// `unsafe { Pin::new_unchecked(&mut holder) }`, written as the lowering's own code (mixed
/// site, located at the user's macro): sound because nothing names `holder` again, so the
/// value never moves; and, as the pinning macro's own `unsafe` is, out of reach of the user's
/// `#![forbid(unsafe_code)]`, which rustc applies to the user's tokens only.
fn lowering_unsafe_pin(holder: &syn::Ident, span: Span) -> proc_macro2::TokenStream {
    let lowering = Span::mixed_site().located_at(span);
    quote::quote_spanned!(lowering=> unsafe { ::core::pin::Pin::new_unchecked(&mut #holder) })
}

fn shape_error(mac: &syn::Macro) -> syn::Error {
    syn::Error::new_spanned(
        &mac.path,
        "classic lowering: a pinning macro is lowered as `pin!(name, ..)` (tokio, futures' \
         `pin_mut!`), `pin! { let name = value; }` (tokio) or `let name = pin!(value);` (std); \
         write one of these",
    )
}

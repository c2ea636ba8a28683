//! The event and span macros of tracing (and log, whose fields are the same): the lowering
//! does not expand them, but their grammar says which identifiers name locals. A field is
//! `key = value`, `?local`, `%local` or a bare `local` (each `key` may be dotted); the message
//! that follows may capture locals inline (`"{local}"`).

use proc_macro2::{Spacing, TokenTree};

/// One of tracing's or log's event and span macros, by the last segment of its path.
pub(crate) fn has_tracing_fields(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|last| is_tracing_name(&last.ident.to_string()))
}

/// The last segment of the path of one of tracing's or log's event and span macros.
pub(crate) fn is_tracing_name(name: &str) -> bool {
    matches!(
        name,
        "trace"
            | "debug"
            | "info"
            | "warn"
            | "error"
            | "event"
            | "span"
            | "trace_span"
            | "debug_span"
            | "info_span"
            | "warn_span"
            | "error_span"
    )
}

/// A lone `=` (an assignment or a key), not `==`, `=>`, `<=`, `>=` or `!=`.
pub(crate) fn is_single_eq(token: Option<&TokenTree>, next: Option<&TokenTree>) -> bool {
    match token {
        Some(TokenTree::Punct(punct)) if punct.as_char() == '=' => match punct.spacing() {
            Spacing::Alone => true,
            Spacing::Joint => {
                !matches!(next, Some(TokenTree::Punct(next)) if next.as_char() == '=' || next.as_char() == '>')
            }
        },
        _ => false,
    }
}

/// Is the identifier at `index` a field's key (`key = ..`, `key.part = ..` at the start of an
/// argument), which names no local?
pub(crate) fn is_field_key(tokens: &[TokenTree], index: usize) -> bool {
    let at_argument_start = match index.checked_sub(1).map(|before| &tokens[before]) {
        None => true,
        Some(TokenTree::Punct(punct)) => punct.as_char() == ',',
        Some(_) => false,
    };
    if !at_argument_start || !matches!(tokens.get(index), Some(TokenTree::Ident(_))) {
        return false;
    }
    let mut end = index + 1;
    while let (Some(TokenTree::Punct(dot)), Some(TokenTree::Ident(_))) = (tokens.get(end), tokens.get(end + 1)) {
        if dot.as_char() != '.' {
            break;
        }
        end += 2;
    }
    is_single_eq(tokens.get(end), tokens.get(end + 1))
}

//! Parameters under `#[cfg(..)]` (`async fn f(a: u32, #[cfg(feature = "x")] b: u32)`).
//!
//! A proc macro cannot evaluate a `cfg`, and the classic lowering names every parameter in
//! the code it generates (the state machine's fields, the twin's bindings). So a function with
//! such parameters is lowered once per combination of them, each copy under the `cfg` that
//! selects it: exactly one survives, with exactly the parameters rustc keeps.

use syn::spanned::Spanned;

use crate::func::Function;

/// More parameters than this under `cfg` would multiply the copies beyond reason.
const MAX_CFG_PARAMS: usize = 3;

/// The copies of `function` to lower, or `None` when no parameter is under `cfg`.
pub(crate) fn variants(function: &Function) -> syn::Result<Option<Vec<Function>>> {
    let conditional: Vec<(usize, Vec<syn::Meta>)> = function
        .sig
        .inputs
        .iter()
        .enumerate()
        .filter_map(|(index, input)| {
            let attrs = match input {
                syn::FnArg::Typed(typed) => &typed.attrs,
                syn::FnArg::Receiver(receiver) => &receiver.attrs,
            };
            let predicates: Vec<syn::Meta> = attrs
                .iter()
                .filter(|attr| attr.path().is_ident("cfg"))
                .filter_map(|attr| attr.parse_args::<syn::Meta>().ok())
                .collect();
            (!predicates.is_empty()).then_some((index, predicates))
        })
        .collect();
    if conditional.is_empty() {
        return Ok(None);
    }
    if conditional.len() > MAX_CFG_PARAMS {
        let (index, _) = conditional[MAX_CFG_PARAMS];
        return Err(syn::Error::new(
            function.sig.inputs[index].span(),
            format!(
                "classic lowering: at most {MAX_CFG_PARAMS} parameters under `#[cfg]` (the function is lowered once \
                 per combination of them); group them in a struct under one `cfg`, or write the variants as \
                 functions of their own"
            ),
        ));
    }
    let mut copies = Vec::new();
    for mask in 0..(1u32 << conditional.len()) {
        let mut copy = function.clone_parts();
        let mut selectors = Vec::new();
        let mut removed = Vec::new();
        for (bit, (index, predicates)) in conditional.iter().enumerate() {
            let kept = mask & (1 << bit) != 0;
            let all = quote::quote!(all(#(#predicates),*));
            selectors.push(if kept { all } else { quote::quote!(not(#all)) });
            if !kept {
                removed.push(*index);
            }
        }
        copy.sig.inputs = copy
            .sig
            .inputs
            .into_pairs()
            .enumerate()
            .filter(|(index, _)| !removed.contains(index))
            .map(|(_, mut pair)| {
                match pair.value_mut() {
                    syn::FnArg::Typed(typed) => typed.attrs.retain(|attr| !attr.path().is_ident("cfg")),
                    syn::FnArg::Receiver(receiver) => receiver.attrs.retain(|attr| !attr.path().is_ident("cfg")),
                }
                pair
            })
            .collect();
        copy.attrs.push(syn::parse_quote!(#[cfg(all(#(#selectors),*))]));
        copies.push(copy);
    }
    Ok(Some(copies))
}

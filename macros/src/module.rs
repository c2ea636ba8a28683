//! The module form: `#[lowering(classic)] mod m { ... }` lowers every `async fn` inside
//! (free functions, methods of inherent and trait impls, trait methods with a default body,
//! in nested modules too). One
//! source text can then be compiled under both lowerings by a `macro_rules!` that writes it
//! into two modules; the functions are the same tokens, so no body is copied by hand.

use proc_macro2::TokenStream;
use quote::ToTokens;

use crate::args::{Args, Context};
use crate::func::Function;

pub(crate) fn expand(args: &Args, mut module: syn::ItemMod) -> syn::Result<TokenStream> {
    let mut errors: Vec<syn::Error> = Vec::new();
    if let Some((_, items)) = module.content.as_mut() {
        for item in items.iter_mut() {
            lower_item(args, item, &mut errors);
        }
    } else {
        errors.push(syn::Error::new_spanned(
            &module,
            "`#[lowering]` on a module needs its items inline (`mod m { ... }`): an attribute \
             cannot see the items of a module in another file",
        ));
    }
    // A function that cannot be lowered stays as written (its markers removed) and its error
    // is reported; the rest of the module is lowered, so that one error does not cascade into
    // "cannot find" errors everywhere else.
    let mut tokens = module.into_token_stream();
    for error in errors {
        tokens.extend(error.to_compile_error());
    }
    Ok(tokens)
}

fn lower_item(args: &Args, item: &mut syn::Item, errors: &mut Vec<syn::Error>) {
    match item {
        syn::Item::Fn(function) if function.sig.asyncness.is_some() && !has_own_attribute(&function.attrs) => {
            let args = &Args { context: Context::Free, ..with_markers(args, &mut function.attrs) };
            match lower_fn(args, function.to_token_stream()) {
                Ok(tokens) => *item = syn::Item::Verbatim(tokens),
                Err(error) => errors.push(error),
            }
        }
        syn::Item::Impl(block) => {
            for impl_item in block.items.iter_mut() {
                let syn::ImplItem::Fn(method) = impl_item else {
                    continue;
                };
                if method.sig.asyncness.is_none() || has_own_attribute(&method.attrs) {
                    continue;
                }
                let context = if block.trait_.is_some() { Context::TraitImpl } else { Context::InherentImpl };
                let args = &Args { context, ..with_markers(args, &mut method.attrs) };
                let as_fn = syn::ItemFn {
                    attrs: method.attrs.clone(),
                    vis: method.vis.clone(),
                    modifiers: Default::default(),
                    sig: method.sig.clone(),
                    block: Box::new(method.block.clone()),
                };
                match lower_fn(args, as_fn.to_token_stream()) {
                    Ok(tokens) => *impl_item = syn::ImplItem::Verbatim(tokens),
                    Err(error) => errors.push(error),
                }
            }
        }
        syn::Item::Trait(definition) => {
            for trait_item in definition.items.iter_mut() {
                let syn::TraitItem::Fn(method) = trait_item else {
                    continue;
                };
                let Some(block) = &method.default else {
                    continue;
                };
                if method.sig.asyncness.is_none() || has_own_attribute(&method.attrs) {
                    continue;
                }
                let args = &Args { context: Context::TraitDefinition, ..with_markers(args, &mut method.attrs) };
                let as_fn = syn::ItemFn {
                    attrs: method.attrs.clone(),
                    vis: syn::Visibility::Inherited,
                    modifiers: Default::default(),
                    sig: method.sig.clone(),
                    block: Box::new(block.clone()),
                };
                match lower_fn(args, as_fn.to_token_stream()) {
                    Ok(tokens) => *trait_item = syn::TraitItem::Verbatim(tokens),
                    Err(error) => errors.push(error),
                }
            }
        }
        syn::Item::Mod(module) => {
            if let Some((_, items)) = module.content.as_mut() {
                for item in items.iter_mut() {
                    lower_item(args, item, errors);
                }
            }
        }
        _ => {}
    }
}

fn lower_fn(args: &Args, tokens: TokenStream) -> syn::Result<TokenStream> {
    let function = Function::parse(tokens)?;
    crate::expand_function(args, function)
}

/// `#[value_task]` on a function inside the module: under the classic lowering it returns a
/// `ValueTask` (the runtime lowering records the marker and is otherwise unchanged). The
/// marker is consumed here, so it needs no definition of its own.
fn with_markers(args: &Args, attrs: &mut Vec<syn::Attribute>) -> Args {
    let before = attrs.len();
    attrs.retain(|attr| !attr.path().is_ident("value_task"));
    Args { value_task: args.value_task || attrs.len() != before, ..args.clone() }
}

/// A function that names its own lowering keeps it.
fn has_own_attribute(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| attr.path().segments.last().is_some_and(|segment| segment.ident == "lowering"))
}

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
    check_hinted_macros(args, &module)?;
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
        syn::Item::Impl(block) if has_async_trait(&block.attrs) => mark_methods(args, &mut block.items, errors),
        syn::Item::Trait(definition) if has_async_trait(&definition.attrs) => {
            mark_trait_methods(args, &mut definition.items, errors)
        }
        syn::Item::Impl(block) => {
            for impl_item in block.items.iter_mut() {
                let syn::ImplItem::Fn(method) = impl_item else {
                    continue;
                };
                if !(method.sig.asyncness.is_some() || is_async_trait_expansion(&method.sig, &method.block))
                    || has_own_attribute(&method.attrs)
                {
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
                if !(method.sig.asyncness.is_some() || is_async_trait_expansion(&method.sig, block))
                    || has_own_attribute(&method.attrs)
                {
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

/// `#[lowering(..)]` on an `impl` or `trait` block (not a module): its `async fn`s lowered as
/// in a module. One still under `#[async_trait]` (written below this attribute, so expanded
/// after it) gets the attribute on each `async fn` instead, which then receives
/// `#[async_trait]`'s expansion of it (`Function::boxed`).
pub(crate) fn expand_block(args: &Args, mut item: syn::Item) -> syn::Result<TokenStream> {
    let mut errors = Vec::new();
    lower_item(args, &mut item, &mut errors);
    let mut tokens = item.into_token_stream();
    for error in errors {
        tokens.extend(error.to_compile_error());
    }
    Ok(tokens)
}

/// An `#[async_trait]` (any path ending in `async_trait`) among `attrs`: it expands after
/// this attribute.
fn has_async_trait(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| attr.path().segments.last().is_some_and(|segment| segment.ident == "async_trait"))
}

/// Whether a plain `fn` is `#[async_trait]`'s expansion of an `async fn` (see
/// `Function::parse`).
fn is_async_trait_expansion(sig: &syn::Signature, block: &syn::Block) -> bool {
    let function = syn::ItemFn {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        modifiers: Default::default(),
        sig: sig.clone(),
        block: Box::new(block.clone()),
    };
    Function::parse(function.to_token_stream()).is_ok_and(|function| function.boxed.is_some())
}

/// The attribute, as this invocation was written, for a method to carry; `invoked`: the macros
/// its body invokes, of which it carries the `awaits` and `returns` hints that name one.
fn attribute(args: &Args, value_task: bool, invoked: &std::collections::HashSet<String>) -> syn::Attribute {
    let hinted = |word: &str, names: &[syn::Ident]| {
        let names: Vec<&syn::Ident> = names.iter().filter(|name| invoked.contains(&name.to_string())).collect();
        let word = syn::Ident::new(word, proc_macro2::Span::call_site());
        (!names.is_empty()).then(|| quote::quote!(, #word(#(#names),*)))
    };
    let awaits = hinted("awaits", &args.hints.awaits);
    let returns = hinted("returns", &args.hints.returns);
    let krate = &args.krate;
    let mode = match args.mode {
        crate::args::Mode::Classic => quote::quote!(classic),
        crate::args::Mode::Runtime => quote::quote!(runtime),
    };
    let path = syn::LitStr::new(&krate.to_token_stream().to_string().replace(' ', ""), proc_macro2::Span::call_site());
    let value_task = value_task.then(|| quote::quote!(, value_task));
    syn::parse_quote!(#[#krate::lowering(#mode, crate = #path #value_task #awaits #returns)])
}

fn mark_methods(args: &Args, items: &mut [syn::ImplItem], _errors: &mut Vec<syn::Error>) {
    for item in items {
        if let syn::ImplItem::Fn(method) = item
            && method.sig.asyncness.is_some()
            && !has_own_attribute(&method.attrs)
        {
            let marked = with_markers(args, &mut method.attrs);
            let invoked = crate::classic::syntax::invoked_macros(|visitor| {
                syn::visit::Visit::visit_block(visitor, &method.block)
            });
            method.attrs.insert(0, attribute(args, marked.value_task, &invoked));
        }
    }
}

fn mark_trait_methods(args: &Args, items: &mut [syn::TraitItem], _errors: &mut Vec<syn::Error>) {
    for item in items {
        if let syn::TraitItem::Fn(method) = item
            && method.default.is_some()
            && method.sig.asyncness.is_some()
            && !has_own_attribute(&method.attrs)
        {
            let marked = with_markers(args, &mut method.attrs);
            let invoked = match &method.default {
                Some(block) => {
                    crate::classic::syntax::invoked_macros(|visitor| syn::visit::Visit::visit_block(visitor, block))
                }
                None => Default::default(),
            };
            method.attrs.insert(0, attribute(args, marked.value_task, &invoked));
        }
    }
}

/// An `awaits` or `returns` hint on a module names a macro some item of the module invokes
/// (each function runs apart the invocations it has).
fn check_hinted_macros(args: &Args, module: &syn::ItemMod) -> syn::Result<()> {
    let hinted: Vec<(&str, &syn::Ident)> = args
        .hints
        .awaits
        .iter()
        .map(|name| ("awaits", name))
        .chain(args.hints.returns.iter().map(|name| ("returns", name)))
        .collect();
    if hinted.is_empty() {
        return Ok(());
    }
    let invoked = crate::classic::syntax::invoked_macros(|visitor| syn::visit::Visit::visit_item_mod(visitor, module));
    match hinted.into_iter().find(|(_, name)| !invoked.contains(&name.to_string())) {
        None => Ok(()),
        Some((word, name)) => Err(syn::Error::new(
            name.span(),
            format!(
                "`{name}!` is no macro the module `{}` invokes: `{word}` names a macro whose expansion {word}",
                module.ident
            ),
        )),
    }
}

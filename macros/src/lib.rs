//! The `#[lowering(classic | runtime)]` attribute. Use it through the `lowering` crate, which
//! re-exports it and holds the types the generated code refers to.
//!
//! The macro is a small compiler:
//!
//! - [`args`] reads the attribute's arguments, [`func`] the annotated function's signature,
//!   [`cfg_variants`] the copies a function with code under `#[cfg]` is lowered as;
//! - [`runtime`] emits the runtime lowering (the `async fn` as written, plus its record);
//! - [`classic`] parses the body into a tree with every await at statement level, analyses
//!   which locals live across awaits and which stay in place, and generates the state machine,
//!   `move_next`, the stub and the borrow-check twin (its module header has the phases);
//! - [`module`] lowers every `async fn` of a module, `impl` or trait;
//! - [`record`] emits the lowering record both lowerings leave in the artifact.
//!
//! `tests/expand/` holds representative functions and what the attribute writes for them
//! (`snapshots`, compared by `cargo test -p lowering-macros`).
//!
//! Errors are gathered with the user's spans and reported together.

mod args;
mod cfg_variants;
mod classic;
mod func;
mod module;
mod record;
mod runtime;
#[cfg(test)]
mod snapshots;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::ToTokens;

/// Lower an `async fn` as C#'s compiler does (`classic`) or leave it to rustc (`runtime`).
///
/// ```text
/// #[lowering(classic)]                 // named state machine, eager start, heap Task per call
/// #[lowering(runtime)]                 // plain async fn
/// #[lowering(classic, crate = "path")] // when `lowering` is renamed or re-exported
/// #[lowering(classic, value_task)]     // returns a ValueTask: no allocation when it completes synchronously
/// ```
#[proc_macro_attribute]
pub fn lowering(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = TokenStream2::from(item);
    let args = TokenStream2::from(args);
    // A bug in the macro must not take the user's build down with a bare panic: report it
    // as an error on the item, which is kept as written.
    let original = item.clone();
    match std::panic::catch_unwind(move || expand(args, item)) {
        Ok(tokens) => tokens.into(),
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let error = syn::Error::new(
                proc_macro2::Span::call_site(),
                format!("internal error in `#[lowering]` (please report it with this function): {message}"),
            );
            with_original(error, original).into()
        }
    }
}

fn expand(args: TokenStream2, item: TokenStream2) -> TokenStream2 {
    let args = match syn::parse2::<args::Args>(args) {
        Ok(args) => args,
        Err(error) => return with_original(error, item),
    };
    let expanded = match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Mod(module)) => module::expand(&args, module),
        Ok(block @ (syn::Item::Impl(_) | syn::Item::Trait(_))) => module::expand_block(&args, block),
        _ => func::Function::parse(item.clone()).and_then(|function| expand_function(&args, function)),
    };
    match expanded {
        Ok(tokens) => tokens,
        Err(error) => with_original(error, item),
    }
}

fn expand_function(args: &args::Args, function: func::Function) -> syn::Result<TokenStream2> {
    let name = function.sig.ident.to_string();
    let expanded = match args.mode {
        args::Mode::Runtime => runtime::expand(args, function),
        // `const async fn` is not Rust: left as written, it gets rustc's own error, once, as
        // the plain function does.
        args::Mode::Classic if function.sig.constness.is_some() => runtime::expand(args, function),
        args::Mode::Classic => match cfg_variants::variants(&function)? {
            None => classic::expand(args, function),
            Some(copies) => {
                classic::check_hints(args, &function)?;
                let mut tokens = TokenStream2::new();
                for copy in copies {
                    tokens.extend(classic::expand_variant(args, copy)?);
                }
                Ok(tokens)
            }
        },
    }?;
    // `LOWERING_SHOW_EXPANSION=name` prints what the attribute generated for functions of that
    // name (unformatted; pipe it through `rustfmt`), `*` for every function (what `inspect`
    // measures, in one compilation). `cargo run -p inspect` shows more.
    // A classic expansion comes after the facts it was written from: which locals live in
    // place, and why.
    if std::env::var("LOWERING_SHOW_EXPANSION").is_ok_and(|wanted| wanted == name || wanted == "*") {
        if args.mode == args::Mode::Classic {
            for line in classic::in_place_of_last().lines() {
                eprintln!("// {name}: {line}");
            }
        }
        eprintln!("{expanded}");
    }
    Ok(expanded)
}

/// Report `error` and keep the item as written, so that one mistake does not cascade into
/// "cannot find function" errors at every call site. Nothing compiles, so nothing is
/// measured under a lowering the user did not ask for.
fn with_original(error: syn::Error, item: TokenStream2) -> TokenStream2 {
    let mut tokens = error.to_compile_error();
    match syn::parse2::<syn::ItemFn>(item.clone()) {
        Ok(function) => function.to_tokens(&mut tokens),
        Err(_) => tokens.extend(item),
    }
    tokens
}

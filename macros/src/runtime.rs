//! `#[lowering(runtime)]`: the `async fn` exactly as written, plus its lowering record.
//!
//! rustc builds the state machine. Nothing is added to the function's code: the record is a
//! `static` item, which only lives in the function's scope, inserted in the user's own block.

use proc_macro2::TokenStream;
use quote::quote;

use crate::args::{Args, Mode};
use crate::func::Function;
use crate::record;

pub(crate) fn expand(args: &Args, function: Function) -> syn::Result<TokenStream> {
    let record = record::emit(&args.krate, Mode::Runtime, &function.sig.ident, None, args.value_task);
    let attrs = function.attrs();
    let vis = &function.vis;
    if let Some(boxed) = &function.boxed {
        // `#[async_trait]`'s expansion, as it was: its box around the `async` block.
        let sig = &boxed.sig;
        let block = &function.block;
        return Ok(quote! {
            #attrs
            #vis #sig {
                #record
                ::std::boxed::Box::pin(async move #block)
            }
        });
    }
    let sig = &function.sig;
    // The user's own block, braces and spans included, with the record inserted first: a block
    // the macro built would follow the macro's edition, not the crate's (which decides, for
    // one, when the temporaries of the body's tail expression drop).
    let mut block = function.block.clone();
    block.stmts.insert(0, syn::Stmt::Item(syn::Item::Verbatim(record)));
    Ok(quote! {
        #attrs
        #vis #sig #block
    })
}

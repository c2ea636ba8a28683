//! `#[lowering(runtime)]`: the `async fn` exactly as written, plus its lowering record.
//!
//! rustc builds the state machine. Nothing is added to the function's code: the record is a
//! `static` item, which only lives in the function's scope.

use proc_macro2::TokenStream;
use quote::quote;

use crate::args::{Args, Mode};
use crate::func::Function;
use crate::record;

pub(crate) fn expand(args: &Args, function: Function) -> syn::Result<TokenStream> {
    let record = record::emit(&args.krate, Mode::Runtime, &function.sig.ident, None, args.value_task);
    let attrs = function.attrs();
    let vis = &function.vis;
    let sig = &function.sig;
    let stmts = &function.block.stmts;
    Ok(quote! {
        #attrs
        #vis #sig {
            #record
            #(#stmts)*
        }
    })
}

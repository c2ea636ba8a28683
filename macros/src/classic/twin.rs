//! The borrow-check twin: the user's body, unchanged, as an `async move` block that rustc
//! type- and borrow-checks as the plain `async fn` and never runs.
//!
//! It sits in an `if false { ..; loop {} }` branch at the top of the stub: the branch leaves
//! no code in the binary, and because it diverges, what it moves (the parameters) is still
//! there for the code after it. A body that the plain `async fn` could not have (a borrow
//! rustc rejects, an unsafe operation outside `unsafe`) is rejected here, with rustc's own
//! error at the user's line; the classic code, which keeps borrowed locals in place, relies on
//! that (`generate::places`, "Soundness").

use proc_macro2::TokenStream;
use quote::quote;

use crate::func::{Function, Param};

pub(crate) fn emit(krate: &syn::Path, function: &Function, output: &syn::Type, params: &[Param]) -> TokenStream {
    let bindings = params.iter().map(|param| {
        let stub_name = &param.stub_name;
        match (&param.pattern, param.mutable) {
            (Some(pattern), _) => quote!(let #pattern = #stub_name;),
            (None, true) => quote!(let mut #stub_name = #stub_name;),
            (None, false) => quote!(let #stub_name = #stub_name;),
        }
    });
    let block = &function.block;
    quote! {
        #[allow(unreachable_code, clippy::diverging_sub_expression)]
        if false {
            #krate::__private::twin::<#output, _>(async move {
                #(#bindings)*
                #block
            });
            loop {}
        }
    }
}

//! The lowering record every annotated function leaves in the binary.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{Ident, LitStr, Path};

use crate::args::Mode;

/// A `static` placed in the `lowering` crate's record registry. Emitted inside the function
/// body: an item there is not part of the function's code, and it is the one place an
/// attribute on a method can put an item.
pub(crate) fn emit(
    krate: &Path,
    mode: Mode,
    function: &Ident,
    generated_type: Option<&Ident>,
    value_task: bool,
) -> TokenStream {
    let lowering = match mode {
        Mode::Classic => quote!(#krate::Lowering::Classic),
        Mode::Runtime => quote!(#krate::Lowering::Runtime),
    };
    let name = LitStr::new(&function.to_string(), function.span());
    let generated_type = match generated_type {
        Some(ty) => {
            let ty = LitStr::new(&ty.to_string(), ty.span());
            quote!(::core::option::Option::Some(#ty))
        }
        None => quote!(::core::option::Option::None),
    };
    let linkme = quote!(#krate::__private::linkme);
    // `file!()` and `line!()` report the outermost macro call their own tokens come from: with
    // the call site's span that is the `lowering::both!` invocation, the same line for every
    // function in it. Spanned by the function's name, they name the function's own line.
    let span = function.span();
    let file = quote_spanned!(span=> ::core::file!());
    let line = quote_spanned!(span=> ::core::line!());
    quote! {
        #[#linkme::distributed_slice(#krate::__private::RECORDS)]
        #[linkme(crate = #linkme)]
        #[doc(hidden)]
        static __LOWERING_RECORD: #krate::LoweringRecord = #krate::LoweringRecord {
            lowering: #lowering,
            module: ::core::module_path!(),
            function: #name,
            generated_type: #generated_type,
            value_task: #value_task,
            file: #file,
            line: #line,
        };
    }
}

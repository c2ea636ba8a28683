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
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use crate::classic::generate::emit::recursive_call;
use crate::func::{Function, Param};

pub(crate) fn emit(
    krate: &syn::Path,
    function: &Function,
    bare_name_recursion: bool,
    output: &syn::Type,
    params: &[Param],
    witness: &proc_macro2::Ident,
) -> TokenStream {
    let bindings = params.iter().map(|param| {
        let stub_name = &param.stub_name;
        match (&param.pattern, param.mutable) {
            // Mutable: the pattern may bind `ref mut` parts of it.
            (Some(pattern), _) => quote! {
                #[allow(unused_mut)]
                let mut #stub_name = #stub_name;
                let #pattern = #stub_name;
            },
            (None, true) => quote!(let mut #stub_name = #stub_name;),
            (None, false) => quote!(let #stub_name = #stub_name;),
        }
    });
    let mut block = function.block.clone();
    Recursion { function: &function.sig.ident, bare_name: bare_name_recursion, output }.visit_block_mut(&mut block);
    // The body's statements, not its block: a block as the async block's tail would draw
    // `unused_braces` at the user's braces.
    let stmts = &block.stmts;
    // The block's result type, fixed before its body as an `async fn`'s is by its signature:
    // a `return` or a tail of another type is then rustc's mismatch at the user's expression,
    // as for the plain function, not a mismatch of the whole block against the output.
    let seed = match output {
        syn::Type::Infer(_) => quote!(),
        _ => quote! {
            if let ::core::option::Option::Some(__lowering_result) = ::core::option::Option::None::<#output> {
                return __lowering_result;
            }
        },
    };
    quote! {
        let mut #witness = #krate::__private::BodyWitness::new();
        #[allow(unreachable_code, clippy::diverging_sub_expression)]
        if false {
            #krate::__private::twin::<#output, _>(&mut #witness, async move {
                #seed
                #(#bindings)*
                #(#stmts)*
            });
            loop {}
        }
    }
}

/// An await of the function itself (`Box::pin(f(n - 1)).await`) would make the twin, inside the
/// stub, use the stub's own opaque return type, which rustc rejects there (E0792). It awaits a
/// future of the same output instead, after using the arguments as the call would.
struct Recursion<'a> {
    function: &'a syn::Ident,
    bare_name: bool,
    output: &'a syn::Type,
}

impl VisitMut for Recursion<'_> {
    fn visit_expr_await_mut(&mut self, node: &mut syn::ExprAwait) {
        visit_mut::visit_expr_await_mut(self, node);
        let Some(call) = recursive_call(&node.base, self.function, self.bare_name) else { return };
        let args: Vec<&syn::Expr> = match call {
            syn::Expr::Call(call) => call.args.iter().collect(),
            syn::Expr::MethodCall(call) => call.args.iter().collect(),
            _ => Vec::new(),
        };
        let output = self.output;
        let span = node.base.span();
        *node.base = syn::Expr::Verbatim(quote_spanned! {span=>
            {
                let _ = (#(#args,)*);
                ::core::future::pending::<#output>()
            }
        });
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

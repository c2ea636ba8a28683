//! Calls of the standard functions that never return (`resume_unwind(payload)`,
//! `std::process::exit(1)`, ..), where their value is discarded or is a block's or an arm's:
//! written `match called_function_must_never_return(resume_unwind(payload)) {}` (a
//! `lowering::__private` function taking `Infallible`), which the lowering reads as leaving the
//! function
//! (`syntax::jumps`, as a `panic!`), so that a value a path moves before it still counts as
//! live on the paths that go on (`Err(p) => { guard.finish(); resume_unwind(p); }` before
//! `guard.finish()` on the others: a cache's `try_compute`).
//!
//! The macro knows these functions by name only; the `Infallible` parameter makes rustc prove
//! it: a function of that name that returns (a user's own `resume_unwind`) is E0308 "expected
//! `Infallible`, found `()`" at the call, never a path the lowering believed could not go on.

use syn::visit_mut::{self, VisitMut};

/// Rewrites the calls of `block` (not inside closures, async blocks or items; inside a standard
/// macro's arguments too).
pub(crate) fn rewrite(block: &mut syn::Block, krate: &syn::Path) {
    Rewriter { krate }.visit_block_mut(block);
}

/// Is `call` one of the standard functions that return `!`: `resume_unwind` and `panic_any`
/// (`std::panic::`, imported or not), `exit` and `abort` named through `process::`.
pub(crate) fn never_returns(call: &syn::ExprCall) -> bool {
    let syn::Expr::Path(path) = crate::classic::syntax::strip_parens(&call.func) else { return false };
    if path.qself.is_some() {
        return false;
    }
    let names: Vec<String> = path.path.segments.iter().map(|segment| segment.ident.to_string()).collect();
    match names.as_slice() {
        [.., last] if last == "resume_unwind" || last == "panic_any" => true,
        [.., module, last] => module == "process" && (last == "exit" || last == "abort"),
        _ => false,
    }
}

struct Rewriter<'k> {
    krate: &'k syn::Path,
}

impl Rewriter<'_> {
    fn wrap(&self, expr: &mut syn::Expr) {
        if let syn::Expr::Call(call) = crate::classic::syntax::strip_parens(expr)
            && never_returns(call)
        {
            let (call, krate) = (call.clone(), self.krate);
            let span = syn::spanned::Spanned::span(&call);
            *expr =
                syn::parse_quote_spanned!(span=> match #krate::__private::called_function_must_never_return(#call) {});
        }
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
        if let syn::Stmt::Expr(expr, _) = stmt {
            self.wrap(expr);
        }
        visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        self.wrap(&mut arm.body);
        visit_mut::visit_arm_mut(self, arm);
    }

    // A standard macro's arguments are code the lowering takes apart too (`panic!("{}", {
    // let Ok(v) = r else { resume_unwind(p) }; .. })`).
    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        crate::classic::syntax::std_macros::visit_arguments(mac, |argument| self.visit_expr_mut(argument));
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}

    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    use super::*;

    fn rewritten(body: &str) -> String {
        let mut block: syn::Block = syn::parse_str(body).unwrap();
        rewrite(&mut block, &syn::parse_quote!(::lowering));
        block.into_token_stream().to_string()
    }

    #[test]
    fn discarded_and_valued_calls_of_functions_that_never_return() {
        assert_eq!(
            rewritten("{ g.finish(); resume_unwind(p); std::process::exit(1) }"),
            "{ g . finish () ; match :: lowering :: __private :: called_function_must_never_return (resume_unwind (p)) { } ; \
             match :: lowering :: __private :: called_function_must_never_return (std :: process :: exit (1)) { } }"
        );
        assert_eq!(
            rewritten("{ match r { Ok(v) => v, Err(p) => std::panic::resume_unwind(p), } }"),
            "{ match r { Ok (v) => v , Err (p) => match :: lowering :: __private :: called_function_must_never_return (std :: \
             panic :: resume_unwind (p)) { } , } }"
        );
        // Not these: a value used, another function, a closure's body.
        let kept = "{ let x = resume_unwind (p) ; exit (1) ; abort () ; let f = | | resume_unwind (p) ; }";
        assert_eq!(rewritten(kept), kept);
    }
}

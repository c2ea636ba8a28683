//! `select!` in a classic body. `tokio::select!` and `futures::select!` (and
//! `select_biased!`) are read here, in their own grammars, and written as one awaited
//! `selectN(..)` (the runtime's `select` module polls the branches as those macros do) whose
//! result a `match` in the body hands to the branch handlers. The handlers stay code of the
//! function: their `.await`s become states like any other, and a `return`, `?`, `break` or
//! `continue` in one acts on the function and its loops, as in the plain `async fn`.
//!
//! Which grammar: the path says it (`tokio::select!`, `futures::select!`,
//! `select_biased!`); a bare `select!` is tokio's unless it has a `complete` or `default`
//! branch, which only futures' has.

use proc_macro2::Span;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;

/// The most branches a lowered `select!` takes (the runtime has `select1` to `select8`).
const MAX_BRANCHES: usize = 8;

#[derive(Clone, Copy, PartialEq)]
enum Flavor {
    /// Preconditions, refutable patterns, `else`, futures taken by value (`IntoFuture`).
    Tokio,
    /// Fused futures (a name is polled through `&mut`), `complete`, `default`.
    Futures,
}

struct Branch {
    pat: syn::Pat,
    future: syn::Expr,
    precondition: Option<syn::Expr>,
    handler: syn::Expr,
}

struct Select {
    biased: bool,
    branches: Vec<Branch>,
    /// tokio's `else`, futures' `complete`: no branch left.
    exhausted: Option<syn::Expr>,
    /// futures' `default`: no branch ready on the one poll.
    default: Option<syn::Expr>,
    /// Whether `exhausted` was spelt `complete` (futures') rather than `else` (tokio's).
    complete: bool,
}

mod kw {
    syn::custom_keyword!(biased);
    syn::custom_keyword!(complete);
}

/// The awaited `selectN(..)` and the `match` over its result that a `select!` becomes.
pub(crate) fn expand(mac: &syn::Macro, krate: &syn::Path) -> syn::Result<syn::Expr> {
    let span = mac.path.span();
    let name = mac.path.segments.last().map(|segment| segment.ident.to_string()).unwrap_or_default();
    let named = |crate_name: &str| mac.path.segments.iter().any(|segment| segment.ident == crate_name);
    let select = parse.parse2(mac.tokens.clone())?;
    let flavor = if name == "select_biased" || named("futures") {
        Flavor::Futures
    } else if named("tokio") {
        Flavor::Tokio
    } else if select.default.is_some() || select.complete {
        Flavor::Futures
    } else {
        Flavor::Tokio
    };
    select.check(flavor, &name, span)?;
    let biased = select.biased || name == "select_biased";
    select.into_expr(flavor, biased, krate, span)
}

fn parse(input: ParseStream) -> syn::Result<Select> {
    let mut select = Select { biased: false, branches: Vec::new(), exhausted: None, default: None, complete: false };
    if input.peek(kw::biased) && input.peek2(syn::Token![;]) {
        input.parse::<kw::biased>()?;
        input.parse::<syn::Token![;]>()?;
        select.biased = true;
    }
    while !input.is_empty() {
        if (input.peek(syn::Token![else]) || input.peek(kw::complete)) && input.peek2(syn::Token![=>]) {
            let (keyword, span) = if input.peek(syn::Token![else]) {
                ("else", input.parse::<syn::Token![else]>()?.span)
            } else {
                ("complete", input.parse::<kw::complete>()?.span)
            };
            if select.exhausted.is_some() {
                return Err(syn::Error::new(span, "a `select!` has one `else` (or `complete`) branch at most"));
            }
            input.parse::<syn::Token![=>]>()?;
            select.exhausted = Some(handler(input)?);
            select.complete = keyword == "complete";
        } else if input.peek(syn::Token![default]) && input.peek2(syn::Token![=>]) {
            let keyword = input.parse::<syn::Token![default]>()?;
            if select.default.is_some() {
                return Err(syn::Error::new(keyword.span, "a `select!` has one `default` branch at most"));
            }
            input.parse::<syn::Token![=>]>()?;
            select.default = Some(handler(input)?);
        } else {
            let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
            input.parse::<syn::Token![=]>()?;
            let future: syn::Expr = input.parse()?;
            let precondition = if input.peek(syn::Token![,]) && input.peek2(syn::Token![if]) {
                input.parse::<syn::Token![,]>()?;
                input.parse::<syn::Token![if]>()?;
                Some(input.parse()?)
            } else {
                None
            };
            input.parse::<syn::Token![=>]>()?;
            let handler = handler(input)?;
            select.branches.push(Branch { pat, future, precondition, handler });
        }
    }
    Ok(select)
}

/// A branch's handler: an expression, then a comma unless it is block-like or the last.
fn handler(input: ParseStream) -> syn::Result<syn::Expr> {
    let expr = syn::Expr::parse_with_earlier_boundary_rule(input)?;
    if input.peek(syn::Token![,]) {
        input.parse::<syn::Token![,]>()?;
    } else if !input.is_empty() && !crate::classic::syntax::block_like(&expr) {
        return Err(input.error("expected `,` after a `select!` branch's handler"));
    }
    Ok(expr)
}

impl Select {
    fn check(&self, flavor: Flavor, name: &str, span: Span) -> syn::Result<()> {
        if self.branches.is_empty() {
            return Err(syn::Error::new(span, format!("`{name}!` needs at least one branch")));
        }
        if self.branches.len() > MAX_BRANCHES {
            return Err(syn::Error::new(
                span,
                format!(
                    "classic lowering: `{name}!` is lowered for 1 to {MAX_BRANCHES} branches; \
                     select among groups (an inner `{name}!` in an `async` block as one branch's \
                     future) or await a plain `async` block that selects"
                ),
            ));
        }
        if flavor == Flavor::Futures {
            if let Some(branch) = self.branches.iter().find(|branch| branch.precondition.is_some()) {
                return Err(syn::Error::new_spanned(
                    branch.precondition.as_ref(),
                    "`futures::select!` has no `if` preconditions (tokio's `select!` has them)",
                ));
            }
        } else if let Some(default) = &self.default {
            return Err(syn::Error::new_spanned(default, "tokio's `select!` has no `default` branch (futures' has)"));
        }
        Ok(())
    }

    fn into_expr(self, flavor: Flavor, biased: bool, krate: &syn::Path, span: Span) -> syn::Result<syn::Expr> {
        let count = self.branches.len();
        let select_fn = format_ident!("select{}", count, span = span);
        let select_type = format_ident!("Select{}", count, span = span);
        let selected = format_ident!("Selected{}", count, span = span);
        let order = if biased { quote!(Biased) } else { quote!(Random) };
        let order = quote_spanned!(span=> #krate::__private::Order::#order);
        let variants: Vec<_> = (0..count).map(|index| format_ident!("_{}", index, span = span)).collect();

        let arms = self.branches.iter().zip(&variants).map(|(branch, variant)| {
            let (pat, handler) = (&branch.pat, &branch.handler);
            quote_spanned!(pat.span()=> #krate::__private::#selected::#variant(#pat) => #handler,)
        });
        let exhausted = match (&self.exhausted, flavor) {
            (Some(expr), _) => quote!(#expr),
            (None, Flavor::Tokio) => {
                quote_spanned!(span=> ::core::panic!("all branches are disabled and there is no else branch"))
            }
            (None, Flavor::Futures) => quote_spanned!(span=> ::core::panic!(
                "all futures in select! were completed, but no `complete =>` handler was provided"
            )),
        };

        let tokens = match flavor {
            Flavor::Tokio => {
                let preconditions = self.branches.iter().map(|branch| match &branch.precondition {
                    Some(precondition) => quote!(#precondition),
                    None => quote!(true),
                });
                let futures = self.branches.iter().map(|branch| {
                    let future = &branch.future;
                    quote_spanned!(future.span()=> #krate::__private::IntoFuture::into_future(#future))
                });
                let checks = self.branches.iter().map(|branch| {
                    let pat = without_bindings(&branch.pat);
                    quote_spanned!(branch.pat.span()=>
                        move |__lowering_output| match __lowering_output {
                            #[allow(unused_variables, non_snake_case)]
                            #pat => true,
                            #[allow(unreachable_patterns)]
                            _ => false,
                        }
                    )
                });
                quote_spanned!(span=>
                    match #krate::__private::#select_fn(
                        [#(#preconditions),*],
                        (#(#futures,)*),
                        (#(#checks,)*),
                        #order,
                    ).await {
                        #(#arms)*
                        #krate::__private::#selected::Disabled => #exhausted,
                        #[allow(unreachable_patterns)]
                        _ => ::core::unreachable!("failed to match bind"),
                    }
                )
            }
            Flavor::Futures => {
                let futures = self.branches.iter().map(|branch| match &branch.future {
                    // A future passed by name stays where it is (it must be `Unpin`), so that a
                    // `select!` in a loop resumes it on the next round.
                    syn::Expr::Path(path) => quote_spanned!(path.span()=> &mut #path),
                    future => quote!(#future),
                });
                let select = quote_spanned!(span=> #krate::__private::#select_type::fused((#(#futures,)*), #order));
                match &self.default {
                    None => quote_spanned!(span=>
                        match #select.await {
                            #(#arms)*
                            #krate::__private::#selected::Disabled => #exhausted,
                        }
                    ),
                    Some(default) => {
                        let arms = self.branches.iter().zip(&variants).map(|(branch, variant)| {
                            let (pat, handler) = (&branch.pat, &branch.handler);
                            quote_spanned!(pat.span()=> ::core::option::Option::Some(#krate::__private::#selected::#variant(#pat)) => #handler,)
                        });
                        quote_spanned!(span=>
                            match #krate::__private::#select_type::now(#select) {
                                #(#arms)*
                                ::core::option::Option::Some(#krate::__private::#selected::Disabled) => #exhausted,
                                ::core::option::Option::None => #default,
                            }
                        )
                    }
                }
            }
        };
        syn::parse2(tokens)
    }
}

/// A branch's pattern with its bindings replaced by `_`, to test an output by reference
/// without moving or binding anything. A name that starts with an upper-case letter is
/// kept: it is a constant or a unit variant (`None`, `Msg::Quit`, `MAX`).
fn without_bindings(pat: &syn::Pat) -> syn::Pat {
    crate::classic::syntax::bindings::blank_bindings(pat, |ident| {
        crate::classic::syntax::bindings::may_bind(ident) || ident.by_ref.is_some() || ident.mutability.is_some()
    })
}

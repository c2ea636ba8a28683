//! The attribute's arguments: `classic` or `runtime`, then optional `crate = "path"` and
//! `value_task`.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Path, Token};

#[derive(Clone)]
pub(crate) struct Args {
    pub mode: Mode,
    /// Path to the `lowering` crate in generated code (serde's `crate = "..."` convention).
    pub krate: Path,
    /// Classic: return a `ValueTask` (no allocation on synchronous completion).
    pub value_task: bool,
    /// Where the function is, when the module form knows it.
    pub context: Context,
}

/// Where an annotated function is: a trait's method must keep the trait's signature.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Context {
    /// The attribute on the function itself: a function with a receiver may implement a
    /// trait's method.
    Unknown,
    Free,
    InherentImpl,
    TraitImpl,
    TraitDefinition,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Classic,
    Runtime,
}

const USAGE: &str = "expected `classic` or `runtime`, as in `#[lowering(classic)]`";

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(syn::Error::new(Span::call_site(), format!("missing lowering mode: {USAGE}")));
        }
        let mut mode = None;
        let mut krate = None;
        let mut value_task = None;
        loop {
            if input.peek(Token![crate]) {
                let keyword: Token![crate] = input.parse()?;
                input
                    .parse::<Token![=]>()
                    .map_err(|error| syn::Error::new(error.span(), "expected `crate = \"path::to::lowering\"`"))?;
                let path: LitStr = input.parse().map_err(|error| {
                    syn::Error::new(
                        error.span(),
                        "expected a path in a string, as in `crate = \"my_reexport::lowering\"`",
                    )
                })?;
                if krate.is_some() {
                    return Err(syn::Error::new(keyword.span, "`crate` is given twice"));
                }
                krate = Some(path.parse::<Path>().map_err(|_| {
                    syn::Error::new(
                        path.span(),
                        format!(
                            "`{}` is not a path; write for example `crate = \"my_reexport::lowering\"`",
                            path.value()
                        ),
                    )
                })?);
            } else {
                let word: Ident = input
                    .parse()
                    .map_err(|error| syn::Error::new(error.span(), format!("unexpected argument: {USAGE}")))?;
                match word.to_string().as_str() {
                    "classic" | "runtime" => {
                        if mode.is_some() {
                            return Err(syn::Error::new(
                                word.span(),
                                "the lowering mode is given twice; pick one of `classic` and `runtime`",
                            ));
                        }
                        mode = Some((if word == "classic" { Mode::Classic } else { Mode::Runtime }, word.span()));
                    }
                    "value_task" => {
                        if value_task.is_some() {
                            return Err(syn::Error::new(word.span(), "`value_task` is given twice"));
                        }
                        value_task = Some(word.span());
                    }
                    other => {
                        return Err(syn::Error::new(word.span(), format!("unknown lowering `{other}`: {USAGE}")));
                    }
                }
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
        }
        let Some((mode, _)) = mode else {
            return Err(syn::Error::new(Span::call_site(), format!("missing lowering mode: {USAGE}")));
        };
        Ok(Args {
            mode,
            krate: krate.unwrap_or_else(|| syn::parse_quote!(::lowering)),
            value_task: value_task.is_some(),
            context: Context::Unknown,
        })
    }
}

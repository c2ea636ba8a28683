//! The attribute's arguments: `classic` or `runtime`, then optional `crate = "path"`,
//! `value_task`, and the hints `moves(local, ..)`, `keeps(local, ..)`, `awaits(macro, ..)` and
//! `returns(macro, ..)`.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
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
    /// What rustc knows and the macro cannot: how a method call on a local takes it.
    pub hints: Hints,
}

/// `moves(cmd)`: a method called on `cmd` (or, `moves(self.txn)`, on that field of a local:
/// `self.txn.commit()`) at its last use takes it by value (`apply(self)`), even where the
/// macro would guess a borrow; `keeps(tx)`: a method called on `tx` borrows it
/// (`send(&self)`), even at its last use. rustc's errors say which (E0507 on a kept local, E0597
/// on one taken at its last use); the borrow-check twin makes the same move a `moves` hint
/// makes, so a wrong hint is rustc's error at the user's line.
///
/// `awaits(read_exact)`: the expansion of the macro `read_exact!` awaits in the function's own
/// context (a `macro_rules!` whose body has `.await`, or one that pastes tokens holding one);
/// `returns(ensure)`: the expansion of `ensure!` returns from the function (`return`, `?`).
/// The macro cannot see an expansion; rustc's errors say so (E0728; a `return` of the wrong
/// type inside the macro). The lowering then runs each invocation in an `async` block the state
/// machine awaits (`parse::awaiting_expansions`), the same for both.
#[derive(Clone, Default)]
pub(crate) struct Hints {
    pub moves: Vec<HintedPlace>,
    pub keeps: Vec<HintedPlace>,
    pub awaits: Vec<Ident>,
    pub returns: Vec<Ident>,
}

/// What a hint names: a local (`cmd`), `self`, or, for `moves`, a field of one (`self.txn`,
/// `w.0`: a method called on that field takes the field), or a call whose value is the
/// receiver of a method (`d.to_t()` in `d.to_t().finish().await`, `open().await?` in
/// `open().await?.finish().await`: the method takes that temporary by value).
#[derive(Clone)]
pub(crate) struct HintedPlace {
    /// The local (or `self`), spanned where the hint names it; for a call, its first identifier.
    pub root: Ident,
    /// The place or the call as written, without spaces (`self.txn`, `d.to_t()`).
    pub text: String,
    /// A call's value rather than a place.
    pub call: bool,
    /// The hint as written: where an error about it points.
    pub written: proc_macro2::TokenStream,
}

/// A macro an `awaits` or `returns` hint names: its name, or a path to it, with or without the
/// `!` (`read_exact`, `combine::decode_tokio!`); the name is what the hint matches.
struct HintedMacro(Ident);

impl Parse for HintedMacro {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let path: Path = input.call(Path::parse_mod_style).map_err(|error| {
            syn::Error::new(error.span(), "`awaits(..)` and `returns(..)` name macros, as in `awaits(read_exact)`")
        })?;
        if input.peek(Token![!]) {
            input.parse::<Token![!]>()?;
        }
        let name = path.segments.last().expect("a path has a segment").ident.clone();
        Ok(HintedMacro(name))
    }
}

impl Parse for HintedPlace {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let expr: syn::Expr = input.parse()?;
        if let Some((root, members)) = crate::classic::hints::hinted_place(&expr) {
            let text = crate::classic::hints::place_text(&root.to_string(), &members);
            return Ok(HintedPlace { root, text, call: false, written: quote::ToTokens::to_token_stream(&expr) });
        }
        match &expr {
            syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Await(_) | syn::Expr::Try(_) => {
                let root = quote::ToTokens::to_token_stream(&expr)
                    .into_iter()
                    .find_map(|token| match token {
                        proc_macro2::TokenTree::Ident(ident) => Some(ident),
                        _ => None,
                    })
                    .ok_or_else(|| syn::Error::new_spanned(&expr, "a hint names a local, a field or a call"))?;
                let written = quote::ToTokens::to_token_stream(&expr);
                Ok(HintedPlace { root, text: crate::classic::hints::call_text(&expr), call: true, written })
            }
            _ => Err(syn::Error::new_spanned(
                &expr,
                "a hint names a local (`moves(cmd)`), a field of one (`moves(self.txn)`) or, for `moves`, the \
                 call a method is called on (`moves(d.to_t())`)",
            )),
        }
    }
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
        let mut hints = Hints::default();
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
                    "moves" | "keeps" => {
                        let content;
                        syn::parenthesized!(content in input);
                        let places = syn::punctuated::Punctuated::<HintedPlace, Token![,]>::parse_terminated(&content)?;
                        if places.is_empty() {
                            return Err(syn::Error::new(
                                word.span(),
                                format!("`{word}(..)` names the locals it is about, as in `{word}(cmd)`"),
                            ));
                        }
                        let (this, other) = if word == "moves" {
                            (&mut hints.moves, &hints.keeps)
                        } else {
                            (&mut hints.keeps, &hints.moves)
                        };
                        for place in places {
                            if word == "keeps" && place.call {
                                return Err(syn::Error::new_spanned(
                                    &place.written,
                                    format!(
                                        "`keeps` names a local, not a call (`{}`): a method called on a call's \
                                         value is taken to borrow it without a hint",
                                        place.text
                                    ),
                                ));
                            }
                            if word == "keeps" && place.text.contains('.') {
                                return Err(syn::Error::new(
                                    place.root.span(),
                                    format!(
                                        "`keeps` names a local, not a field (`{}`): a method called on a field is \
                                         taken to borrow it without a hint",
                                        place.text
                                    ),
                                ));
                            }
                            if other.iter().any(|known| known.text == place.text) {
                                return Err(syn::Error::new(
                                    place.root.span(),
                                    format!(
                                        "`{}` is named by both `moves` and `keeps`: a call takes it or borrows it",
                                        place.text
                                    ),
                                ));
                            }
                            this.push(place);
                        }
                    }
                    "awaits" | "returns" => {
                        let content;
                        syn::parenthesized!(content in input);
                        let names = Punctuated::<HintedMacro, Token![,]>::parse_terminated(&content)?;
                        let (list, example) = if word == "awaits" {
                            (&mut hints.awaits, "awaits(read_exact)")
                        } else {
                            (&mut hints.returns, "returns(ensure)")
                        };
                        if names.is_empty() {
                            return Err(syn::Error::new(
                                word.span(),
                                format!("`{word}(..)` names the macros whose expansion {word}, as in `{example}`"),
                            ));
                        }
                        list.extend(names.into_iter().map(|name| name.0));
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
            hints,
        })
    }
}

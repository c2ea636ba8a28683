//! The standard macros whose arguments may contain awaits: `format!` and its family,
//! `write!`, the `assert` family, `vec!`, `matches!` and `dbg!`.
//!
//! A macro invocation is opaque to an attribute macro: its arguments are tokens. For these
//! macros the argument grammar is known, so the classic lowering parses them as expressions,
//! computes awaits among them in the macro's own evaluation order, and invokes the macro again
//! with the results. Any other macro containing `.await` is an error (see `lower`).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};

pub(crate) struct Parsed {
    pub kind: Kind,
}

// A parse result that lives for one macro call: boxing its larger variants buys nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Kind {
    /// `format!`, `print!`, `println!`, `eprint!`, `eprintln!`, `panic!`, `unreachable!`,
    /// `todo!`, `unimplemented!`, `format_args!`: arguments are taken by reference.
    Format(Option<FormatArgs>),
    /// `write!(dst, ..)`, `writeln!(dst, ..)`: `dst.write_fmt(..)`.
    Write { dst: Expr, args: Option<FormatArgs> },
    /// `assert!(cond)`, `assert!(cond, ..)`; `debug_assert!`.
    Assert { debug: bool, cond: Expr, message: Option<FormatArgs> },
    /// `assert_eq!`, `assert_ne!` and their `debug_` forms: both sides taken by reference.
    AssertCmp { left: Expr, right: Expr, message: Option<FormatArgs> },
    /// `vec![a, b]`
    VecList(Vec<Expr>),
    /// `vec![x; n]`
    VecRepeat(Expr, Expr),
    /// `matches!(expr, pattern)`: the rest is the pattern (and guard), kept as tokens.
    Matches { expr: Expr, rest: TokenStream },
    /// `dbg!(..)`: prints its expressions' text.
    Dbg(Vec<Expr>),
}

#[derive(Clone)]
pub(crate) struct FormatArgs {
    pub fmt: Expr,
    pub args: Vec<FormatArg>,
}

#[derive(Clone)]
pub(crate) struct FormatArg {
    pub name: Option<Ident>,
    pub expr: Expr,
}

/// How a macro uses one of its argument expressions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgumentUse {
    /// By reference (format arguments, compared sides, `matches!`'s scrutinee).
    Borrowed,
    /// By value (`vec!` elements, an assertion's condition, `dbg!`).
    Moved,
}

/// The macro's name if `path` names a standard macro (`name!`, `std::name!`, `core::name!`).
fn std_name(path: &syn::Path) -> Option<String> {
    let segments: Vec<_> = path.segments.iter().map(|segment| segment.ident.to_string()).collect();
    match segments.as_slice() {
        [name] => Some(name.clone()),
        [krate, name] if matches!(krate.as_str(), "std" | "core" | "alloc") => Some(name.clone()),
        _ => None,
    }
}

/// Calls `visit` on each argument expression of a standard macro (`format!`, `vec!`,
/// `assert!`, ..), whose arguments the lowering takes apart as it does any expression, and
/// writes the macro's tokens anew if one changed. Any other macro's tokens stay as written.
pub(crate) fn visit_arguments(mac: &mut syn::Macro, mut visit: impl FnMut(&mut syn::Expr)) {
    if let Some(Ok(mut parsed)) = parse(mac) {
        let mut changed = false;
        for expr in parsed.exprs_mut() {
            let original = quote::ToTokens::to_token_stream(expr).to_string();
            visit(expr);
            changed |= quote::ToTokens::to_token_stream(expr).to_string() != original;
        }
        if changed {
            mac.tokens = parsed.arguments();
        }
    }
}

/// The tokens of a macro's first argument, an expression, exactly as written (`assert!`'s
/// condition): what `stringify!` of them shows is what the plain macro shows, where the
/// printed `syn` tree would be spaced otherwise (`Loud :: new`).
pub(crate) fn first_argument_as_written(mac: &syn::Macro) -> Option<TokenStream> {
    Parser::parse2(
        |input: ParseStream| {
            let begin = input.cursor();
            input.parse::<Expr>()?;
            let end = input.cursor();
            let mut tokens = TokenStream::new();
            let mut cursor = begin;
            while cursor < end {
                let Some((token, next)) = cursor.token_tree() else { break };
                tokens.extend(std::iter::once(token));
                cursor = next;
            }
            // The rest is not this function's to check.
            input.parse::<TokenStream>()?;
            Ok(tokens)
        },
        mac.tokens.clone(),
    )
    .ok()
}

/// `None`: not a standard macro with a known grammar.
pub(crate) fn parse(mac: &syn::Macro) -> Option<syn::Result<Parsed>> {
    let name = std_name(&mac.path)?;
    let tokens = mac.tokens.clone();
    let kind = match name.as_str() {
        "format" | "print" | "println" | "eprint" | "eprintln" | "panic" | "unreachable" | "todo" | "unimplemented"
        | "format_args" => Parser::parse2(|input: ParseStream| parse_format(input).map(Kind::Format), tokens),
        "write" | "writeln" => Parser::parse2(
            |input: ParseStream| {
                let dst: Expr = input.parse()?;
                let args = parse_trailing_format(input)?;
                Ok(Kind::Write { dst, args })
            },
            tokens,
        ),
        "assert" | "debug_assert" => Parser::parse2(
            |input: ParseStream| {
                let cond: Expr = input.parse()?;
                let message = parse_trailing_format(input)?;
                Ok(Kind::Assert { debug: name.starts_with("debug"), cond, message })
            },
            tokens,
        ),
        "assert_eq" | "assert_ne" | "debug_assert_eq" | "debug_assert_ne" => Parser::parse2(
            |input: ParseStream| {
                let left: Expr = input.parse()?;
                input.parse::<Token![,]>()?;
                let right: Expr = input.parse()?;
                let message = parse_trailing_format(input)?;
                Ok(Kind::AssertCmp { left, right, message })
            },
            tokens,
        ),
        "vec" => Parser::parse2(
            |input: ParseStream| {
                if input.is_empty() {
                    return Ok(Kind::VecList(Vec::new()));
                }
                let first: Expr = input.parse()?;
                if input.peek(Token![;]) {
                    input.parse::<Token![;]>()?;
                    let len: Expr = input.parse()?;
                    return Ok(Kind::VecRepeat(first, len));
                }
                let mut elems = vec![first];
                while !input.is_empty() {
                    input.parse::<Token![,]>()?;
                    if input.is_empty() {
                        break;
                    }
                    elems.push(input.parse()?);
                }
                Ok(Kind::VecList(elems))
            },
            tokens,
        ),
        "matches" => Parser::parse2(
            |input: ParseStream| {
                let expr: Expr = input.parse()?;
                input.parse::<Token![,]>()?;
                let rest: TokenStream = input.parse()?;
                Ok(Kind::Matches { expr, rest })
            },
            tokens,
        ),
        "dbg" => Parser::parse2(
            |input: ParseStream| {
                let exprs = Punctuated::<Expr, Token![,]>::parse_terminated(input)?;
                Ok(Kind::Dbg(exprs.into_iter().collect()))
            },
            tokens,
        ),
        _ => return None,
    };
    Some(kind.map(|kind| Parsed { kind }))
}

/// `, "fmt", args..` after a macro's leading operands, or nothing.
fn parse_trailing_format(input: ParseStream) -> syn::Result<Option<FormatArgs>> {
    if input.is_empty() {
        return Ok(None);
    }
    input.parse::<Token![,]>()?;
    parse_format(input)
}

fn parse_format(input: ParseStream) -> syn::Result<Option<FormatArgs>> {
    if input.is_empty() {
        return Ok(None);
    }
    let fmt: Expr = input.parse()?;
    let mut args = Vec::new();
    while !input.is_empty() {
        input.parse::<Token![,]>()?;
        if input.is_empty() {
            break;
        }
        let name = if input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            Some(name)
        } else {
            None
        };
        args.push(FormatArg { name, expr: input.parse()? });
    }
    Ok(Some(FormatArgs { fmt, args }))
}

impl FormatArgs {
    fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.args.iter().map(|arg| &arg.expr)
    }

    /// Identifiers captured inline by the format string (`"{x}"`, `"{x:?}"`), with the
    /// string's span.
    pub(crate) fn inline_captures(&self) -> Vec<(String, Span)> {
        let Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(lit), .. }) = &self.fmt else {
            return Vec::new();
        };
        inline_captures(lit)
    }
}

/// The identifiers a string literal among a macro's tokens would capture inline, were it a
/// format string (a macro the lowering does not know may pass it to `format_args!`).
pub(crate) fn token_captures(literal: &proc_macro2::Literal) -> Vec<String> {
    token_captures_at(literal).into_iter().map(|(name, _)| name).collect()
}

/// As [`token_captures`], each with the literal's span.
pub(crate) fn token_captures_at(literal: &proc_macro2::Literal) -> Vec<(String, Span)> {
    let token = proc_macro2::TokenTree::Literal(literal.clone());
    match syn::parse2::<syn::LitStr>(token.into()) {
        Ok(lit) => inline_captures(&lit),
        Err(_) => Vec::new(),
    }
}

/// Identifiers a format string captures inline (`"{x}"`, `"{x:?}"`), with its span.
pub(crate) fn inline_captures(lit: &syn::LitStr) -> Vec<(String, Span)> {
    let text = lit.value();
    let mut captures = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c != '{' {
            continue;
        }
        if chars.peek().is_some_and(|&(_, next)| next == '{') {
            chars.next();
            continue;
        }
        let name: String =
            std::iter::from_fn(|| chars.next_if(|&(_, c)| c.is_alphanumeric() || c == '_')).map(|(_, c)| c).collect();
        if name.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            captures.push((name, lit.span()));
        }
    }
    captures
}

impl Parsed {
    /// Every argument expression, in the macro's evaluation order, with how it is used.
    pub(crate) fn exprs_with_use(&self) -> Vec<(&Expr, ArgumentUse)> {
        fn borrowed(args: &Option<FormatArgs>) -> Vec<(&Expr, ArgumentUse)> {
            args.iter().flat_map(|args| args.exprs().map(|expr| (expr, ArgumentUse::Borrowed))).collect()
        }
        match &self.kind {
            Kind::Format(args) => borrowed(args),
            Kind::Write { dst, args } => {
                let mut all = vec![(dst, ArgumentUse::Borrowed)];
                all.extend(borrowed(args));
                all
            }
            Kind::Assert { cond, message, .. } => {
                let mut all = vec![(cond, ArgumentUse::Moved)];
                all.extend(borrowed(message));
                all
            }
            Kind::AssertCmp { left, right, message } => {
                let mut all = vec![(left, ArgumentUse::Borrowed), (right, ArgumentUse::Borrowed)];
                all.extend(borrowed(message));
                all
            }
            Kind::VecList(elems) => elems.iter().map(|expr| (expr, ArgumentUse::Moved)).collect(),
            Kind::VecRepeat(elem, len) => vec![(elem, ArgumentUse::Moved), (len, ArgumentUse::Moved)],
            Kind::Matches { expr, .. } => vec![(expr, ArgumentUse::Borrowed)],
            Kind::Dbg(exprs) => exprs.iter().map(|expr| (expr, ArgumentUse::Moved)).collect(),
        }
    }

    /// The argument expressions, in evaluation order (as [`Self::exprs_with_use`]).
    pub(crate) fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        fn format(args: &mut Option<FormatArgs>) -> Vec<&mut Expr> {
            args.iter_mut().flat_map(|args| args.args.iter_mut().map(|arg| &mut arg.expr)).collect()
        }
        match &mut self.kind {
            Kind::Format(args) => format(args),
            Kind::Write { dst, args } => std::iter::once(dst).chain(format(args)).collect(),
            Kind::Assert { cond, message, .. } => std::iter::once(cond).chain(format(message)).collect(),
            Kind::AssertCmp { left, right, message } => vec![left, right].into_iter().chain(format(message)).collect(),
            Kind::VecList(elems) => elems.iter_mut().collect(),
            Kind::VecRepeat(elem, len) => vec![elem, len],
            Kind::Matches { expr, .. } => vec![expr],
            Kind::Dbg(exprs) => exprs.iter_mut().collect(),
        }
    }

    /// The macro's argument tokens, written back from the parsed form.
    pub(crate) fn arguments(&self) -> TokenStream {
        fn format(args: &FormatArgs) -> TokenStream {
            let fmt = &args.fmt;
            let rest = args.args.iter().map(|arg| match &arg.name {
                Some(name) => {
                    let expr = &arg.expr;
                    quote!(, #name = #expr)
                }
                None => {
                    let expr = &arg.expr;
                    quote!(, #expr)
                }
            });
            quote!(#fmt #(#rest)*)
        }
        let message = |args: &Option<FormatArgs>| match args {
            Some(args) => {
                let args = format(args);
                quote!(, #args)
            }
            None => TokenStream::new(),
        };
        match &self.kind {
            Kind::Format(args) => args.as_ref().map(format).unwrap_or_default(),
            Kind::Write { dst, args } => {
                let args = message(args);
                quote!(#dst #args)
            }
            Kind::Assert { cond, message: args, .. } => {
                let args = message(args);
                quote!(#cond #args)
            }
            Kind::AssertCmp { left, right, message: args } => {
                let args = message(args);
                quote!(#left, #right #args)
            }
            Kind::VecList(elems) => quote!(#(#elems),*),
            Kind::VecRepeat(elem, len) => quote!(#elem; #len),
            Kind::Matches { expr, rest } => quote!(#expr, #rest),
            Kind::Dbg(exprs) => quote!(#(#exprs),*),
        }
    }

    pub(crate) fn exprs(&self) -> Vec<&Expr> {
        self.exprs_with_use().into_iter().map(|(expr, _)| expr).collect()
    }

    /// Format strings whose inline captures name variables.
    pub(crate) fn format_args(&self) -> Vec<&FormatArgs> {
        match &self.kind {
            Kind::Format(args) | Kind::Write { args, .. } => args.iter().collect(),
            Kind::Assert { message, .. } | Kind::AssertCmp { message, .. } => message.iter().collect(),
            _ => Vec::new(),
        }
    }

    /// As [`Self::format_args`], to add arguments.
    pub(crate) fn format_args_mut(&mut self) -> Vec<&mut FormatArgs> {
        match &mut self.kind {
            Kind::Format(args) | Kind::Write { args, .. } => args.iter_mut().collect(),
            Kind::Assert { message, .. } | Kind::AssertCmp { message, .. } => message.iter_mut().collect(),
            _ => Vec::new(),
        }
    }
}

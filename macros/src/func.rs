//! The annotated function: what the attribute accepts, and what both lowerings reuse from it.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::{Attribute, Block, FnArg, Ident, Pat, PatIdent, ReceiverKind, ReturnType, Signature, Type, Visibility};

pub(crate) struct Function {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub sig: Signature,
    pub block: Block,
}

/// A method's `self` parameter.
pub(crate) struct Receiver {
    /// `mut self`
    pub mutable: bool,
    pub kind: ReceiverShape,
    pub span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReceiverShape {
    /// `self`, `mut self`, `self: Box<Self>`, ...: the state machine owns it.
    Value,
    /// `&self`: borrows through it are not borrows of the state machine.
    Shared,
    /// `&mut self`
    Exclusive,
}

/// A parameter other than `self`.
pub(crate) struct Param {
    /// The name the stub gives it: the user's identifier, or `__arg{n}` for a pattern.
    pub stub_name: Ident,
    /// The pattern the body binds, when the parameter is not a plain identifier.
    pub pattern: Option<Pat>,
    /// `mut x: T`
    pub mutable: bool,
    pub ty: Type,
}

impl Function {
    pub(crate) fn parse(item: TokenStream) -> syn::Result<Self> {
        let function: syn::ItemFn = syn::parse2(item.clone()).map_err(|_| {
            let span = item.clone().into_iter().next().map_or_else(Span::call_site, |token| token.span());
            syn::Error::new(
                span,
                "`#[lowering]` applies to an `async fn` with a body (a free function or a method), or \
                 to an inline module, where it lowers every `async fn`",
            )
        })?;
        let function = Function { attrs: function.attrs, vis: function.vis, sig: function.sig, block: *function.block };
        function.check_async()?;
        Ok(function)
    }

    fn check_async(&self) -> syn::Result<()> {
        if self.sig.asyncness.is_none() {
            return Err(syn::Error::new(
                self.sig.fn_token.span,
                format!(
                    "`#[lowering]` lowers an `async fn`, and `{}` is not async: write `async fn {}` \
                     or remove the attribute",
                    self.sig.ident, self.sig.ident
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn receiver(&self) -> Option<Receiver> {
        let receiver = self.sig.receiver()?;
        let kind = match &receiver.kind {
            ReceiverKind::Reference(_, _, None) => ReceiverShape::Shared,
            ReceiverKind::Reference(_, _, Some(_)) => ReceiverShape::Exclusive,
            ReceiverKind::Typed(_, ty) => match &**ty {
                Type::Reference(reference) if reference.mutability.is_some() => ReceiverShape::Exclusive,
                Type::Reference(_) => ReceiverShape::Shared,
                _ => ReceiverShape::Value,
            },
            _ => ReceiverShape::Value,
        };
        Some(Receiver { mutable: receiver.mutability.is_some(), kind, span: receiver.self_token.span })
    }

    pub(crate) fn params(&self) -> Vec<Param> {
        let mut params = Vec::new();
        for (index, input) in self.sig.inputs.iter().enumerate() {
            let FnArg::Typed(typed) = input else { continue };
            let (stub_name, pattern, mutable) = match &*typed.pat {
                Pat::Ident(PatIdent { by_ref: None, mutability, ident, subpat: None, .. }) => {
                    (ident.clone(), None, mutability.is_some())
                }
                pattern => (Ident::new(&format!("__arg{index}"), Span::mixed_site()), Some(pattern.clone()), false),
            };
            params.push(Param { stub_name, pattern, mutable, ty: (*typed.ty).clone() });
        }
        params
    }

    /// The declared result type (`()` when there is none).
    pub(crate) fn output(&self) -> Type {
        match &self.sig.output {
            ReturnType::Default => syn::parse_quote!(()),
            ReturnType::Type(_, ty) => (**ty).clone(),
        }
    }

    /// A copy of the function, to be changed (`crate::cfg_params`).
    pub(crate) fn clone_parts(&self) -> Function {
        Function { attrs: self.attrs.clone(), vis: self.vis.clone(), sig: self.sig.clone(), block: self.block.clone() }
    }

    /// The function's attributes, for the stub (doc comments, `#[inline]`, lints, ...).
    pub(crate) fn attrs(&self) -> TokenStream {
        let mut tokens = TokenStream::new();
        for attr in &self.attrs {
            attr.to_tokens(&mut tokens);
        }
        tokens
    }
}

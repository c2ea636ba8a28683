//! The annotated function: what the attribute accepts, and what both lowerings reuse from it.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::{Attribute, Block, FnArg, Ident, Pat, PatIdent, ReceiverKind, ReturnType, Signature, Type, Visibility};

pub(crate) struct Function {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub sig: Signature,
    pub block: Block,
    /// Set when `#[async_trait]` expanded the function before this attribute: then `sig` and
    /// `block` are the `async fn` it was, and this is the signature to emit.
    pub boxed: Option<Boxed>,
}

/// A method `#[async_trait]` has already expanded: a plain `fn` returning
/// `Pin<Box<dyn Future<Output = T> + Send + 'async_trait>>` whose body is
/// `Box::pin(async move { .. })`.
pub(crate) struct Boxed {
    /// The expanded signature, emitted as it is (a trait's method keeps the trait's).
    pub sig: Signature,
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
        let function = Function {
            attrs: function.attrs,
            vis: function.vis,
            sig: function.sig,
            block: *function.block,
            boxed: None,
        };
        if function.sig.asyncness.is_none()
            && let Some(unboxed) = function.async_trait_original()
        {
            return Ok(unboxed);
        }
        function.check_async()?;
        Ok(function)
    }

    /// The `async fn` behind `#[async_trait]`'s expansion of it, if this is one: the result
    /// type is the boxed future's `Output`, the body the boxed `async move` block's statements
    /// (which begin by binding the parameters, `let __self = self;` among them, and use
    /// `__self` for `self`: an `async fn` with the same receiver runs them as they are).
    fn async_trait_original(&self) -> Option<Function> {
        let output = boxed_future_output(&self.sig.output)?;
        let [syn::Stmt::Expr(syn::Expr::Call(call), None)] = self.block.stmts.as_slice() else { return None };
        let syn::Expr::Path(callee) = &*call.func else { return None };
        let segments: Vec<String> = callee.path.segments.iter().map(|segment| segment.ident.to_string()).collect();
        if !segments.ends_with(&["Box".to_owned(), "pin".to_owned()]) || call.args.len() != 1 {
            return None;
        }
        let syn::Expr::Async(block) = &call.args[0] else { return None };
        block.capture?;
        let mut sig = self.sig.clone();
        sig.asyncness = Some(syn::Token![async](self.sig.fn_token.span));
        sig.output = syn::parse_quote!(-> #output);
        Some(Function {
            attrs: self.attrs.clone(),
            vis: self.vis.clone(),
            sig,
            block: block.block.clone(),
            boxed: Some(Boxed { sig: self.sig.clone() }),
        })
    }

    /// The body `#[async_trait]` boxed, with its receiver named `self` again, for the classic
    /// lowering: that body begins `let __self = self;` (or `let mut __self`) and names the
    /// receiver `__self`, an ordinary local to the lowering, whose own hidden local for `self`
    /// it would also be taken for. Undone here (the `let` removed, `__self` written `self`,
    /// a `mut` moved back onto the receiver), the body is the method's as the user wrote it.
    pub(crate) fn receiver_named_self(mut self) -> Self {
        if self.boxed.is_none() {
            return self;
        }
        // Among the statements `#[async_trait]` puts before the user's (a `return` that
        // fixes the result type, the parameters bound again).
        let binding = self.block.stmts.iter().position(|stmt| {
            matches!(stmt, syn::Stmt::Local(local) if matches!(
                (&local.pat, &local.init),
                (Pat::Ident(PatIdent { ident, by_ref: None, subpat: None, .. }), Some(init))
                    if ident == ASYNC_TRAIT_SELF
                        && init.diverge.is_none()
                        && matches!(&*init.expr, syn::Expr::Path(path) if path.path.is_ident("self"))
            ))
        });
        let Some(binding) = binding else { return self };
        let syn::Stmt::Local(syn::Local { pat: Pat::Ident(bound), .. }) = self.block.stmts.remove(binding) else {
            unreachable!("matched above")
        };
        syn::visit_mut::VisitMut::visit_block_mut(&mut SelfAgain, &mut self.block);
        // `#[async_trait]` writes `let mut __self` for every receiver; only one by value can
        // take the `mut` back (`&mut self` changes what it points to without it).
        // The boxed signature too: the stub that has it runs the body's borrow-check twin.
        let by_value = self.receiver().is_some_and(|receiver| receiver.kind == ReceiverShape::Value);
        if bound.mutability.is_some() && by_value {
            let boxed = self.boxed.as_mut().map(|boxed| &mut boxed.sig);
            for sig in std::iter::once(&mut self.sig).chain(boxed) {
                if let Some(FnArg::Receiver(receiver)) = sig.inputs.first_mut() {
                    receiver.mutability = Some(syn::Token![mut](receiver.self_token.span));
                }
            }
        }
        self
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

    /// A copy of the function, to be changed (`crate::cfg_variants`).
    pub(crate) fn clone_parts(&self) -> Function {
        Function {
            attrs: self.attrs.clone(),
            vis: self.vis.clone(),
            sig: self.sig.clone(),
            block: self.block.clone(),
            boxed: self.boxed.as_ref().map(|boxed| Boxed { sig: boxed.sig.clone() }),
        }
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

/// `T` of `Pin<Box<dyn Future<Output = T> + ..>>` (paths qualified or not).
fn boxed_future_output(output: &ReturnType) -> Option<Type> {
    let ReturnType::Type(_, ty) = output else { return None };
    let inner = generic_argument_of(ty, "Pin")?;
    let inner = generic_argument_of(inner, "Box")?;
    let Type::TraitObject(object) = inner else { return None };
    object.bounds.iter().find_map(|bound| {
        let syn::TypeParamBound::Trait(bound) = bound else { return None };
        let last = bound.path.segments.last()?;
        if last.ident != "Future" {
            return None;
        }
        let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else { return None };
        arguments.args.iter().find_map(|argument| match argument {
            syn::GenericArgument::AssocType(assoc) if assoc.ident == "Output" => Some(assoc.ty.clone()),
            _ => None,
        })
    })
}

/// The one type argument of `ty` when it is a path ending in `name` (`Pin<X>`, `std::pin::Pin<X>`).
fn generic_argument_of<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else { return None };
    match arguments.args.first()? {
        syn::GenericArgument::Type(inner) => Some(inner),
        _ => None,
    }
}

/// The local `#[async_trait]` binds a method's receiver to, in the body it boxes.
const ASYNC_TRAIT_SELF: &str = "__self";

/// Writes `__self` as `self` again, in macro arguments too (`#[async_trait]` renames there
/// as well). Nested items and closures are visited like the rest: `#[async_trait]` renamed only
/// where `self` was the method's.
struct SelfAgain;

impl SelfAgain {
    fn tokens(tokens: TokenStream) -> TokenStream {
        tokens
            .into_iter()
            .map(|token| match token {
                proc_macro2::TokenTree::Ident(ident) if ident == ASYNC_TRAIT_SELF => {
                    proc_macro2::TokenTree::Ident(Ident::new("self", ident.span()))
                }
                proc_macro2::TokenTree::Group(group) => {
                    let mut new = proc_macro2::Group::new(group.delimiter(), Self::tokens(group.stream()));
                    new.set_span(group.span());
                    proc_macro2::TokenTree::Group(new)
                }
                other => other,
            })
            .collect()
    }
}

impl syn::visit_mut::VisitMut for SelfAgain {
    fn visit_ident_mut(&mut self, ident: &mut Ident) {
        if ident == ASYNC_TRAIT_SELF {
            *ident = Ident::new("self", ident.span());
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        syn::visit_mut::visit_path_mut(self, &mut mac.path);
        mac.tokens = Self::tokens(std::mem::take(&mut mac.tokens));
    }
}

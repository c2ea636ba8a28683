//! The stub's signature: the user's, with the elided lifetimes of its parameters named, so that
//! the returned task can say it captures them.
//!
//! The stub returns `Task<T, impl Witness + Captures<'a> + ..>`. The witness is the type of the
//! body as rustc checks it (the twin), which mentions every parameter, hence every lifetime of
//! the signature; edition 2021 makes an opaque type capture only the lifetimes it names, so
//! each is named (`Captures`; edition 2024 captures them all, and the bound is then redundant
//! and harmless). Nothing else is added: the state machine's own type, with the borrows of
//! its locals, is not part of the task's type, so the stub never asks more of a type or a
//! lifetime parameter than the user's signature does.
//!
//! A trait's method must keep the trait's signature: there the elided lifetimes stay as they
//! are (`Context::TraitDefinition`).

use proc_macro2::Span;
use syn::visit_mut::{self, VisitMut};

/// Names the elided lifetimes of the parameters (`&T`, `&self`, `Foo<'_>`) in `sig`, adds them
/// to its generics, and returns every lifetime parameter it has then: the ones the returned
/// task must capture. (Naming changes nothing for callers, nor for the elided lifetimes of the
/// result, which take the same lifetime as before.)
pub(crate) fn name_elided_lifetimes(sig: &mut syn::Signature) -> Vec<syn::Lifetime> {
    let mut named = NameElided { next: 0, new: Vec::new(), fixed: None };
    for input in sig.inputs.iter_mut() {
        match input {
            syn::FnArg::Receiver(receiver) => {
                if let syn::ReceiverKind::Reference(_, lifetime, _) = &mut receiver.kind
                    && lifetime.is_none()
                {
                    *lifetime = Some(named.fresh());
                }
                if let syn::ReceiverKind::Typed(_, ty) = &mut receiver.kind {
                    named.visit_type_mut(ty);
                }
            }
            syn::FnArg::Typed(typed) => named.visit_type_mut(&mut typed.ty),
        }
    }
    let position =
        sig.generics.params.iter().take_while(|param| matches!(param, syn::GenericParam::Lifetime(_))).count();
    for (offset, lifetime) in named.new.iter().enumerate() {
        sig.generics.params.insert(position + offset, syn::parse_quote!(#lifetime));
    }
    let mut lifetimes: Vec<syn::Lifetime> = sig
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            syn::GenericParam::Lifetime(lifetime) => Some(lifetime.lifetime.clone()),
            _ => None,
        })
        .collect();
    // The lifetimes of the `impl` around a method, which the signature names without declaring
    // them (`Reader<Reading<'a, R>>` in `impl<'a, R> Reader<Ready<R>>`): the body's type
    // mentions them too.
    let mut named = NamedLifetimes { found: Vec::new(), positions: false };
    syn::visit::Visit::visit_signature(&mut named, sig);
    for lifetime in named.found {
        if !lifetimes.contains(&lifetime) {
            lifetimes.push(lifetime);
        }
    }
    lifetimes
}

/// The lifetimes a signature names, but `'static`, `'_` and those a `for<..>` binds.
/// With `positions`, every place a lifetime is written instead, `'static` too, as Rust's
/// elision rules count them.
struct NamedLifetimes {
    found: Vec<syn::Lifetime>,
    positions: bool,
}

impl<'ast> syn::visit::Visit<'ast> for NamedLifetimes {
    fn visit_lifetime(&mut self, lifetime: &'ast syn::Lifetime) {
        let counted = if self.positions {
            lifetime.ident != "_"
        } else {
            lifetime.ident != "static" && lifetime.ident != "_" && !self.found.contains(lifetime)
        };
        if counted {
            self.found.push(lifetime.clone());
        }
    }
    // Declared by the function itself (counted with its generics) or bound by `for<..>`.
    fn visit_generics(&mut self, generics: &'ast syn::Generics) {
        if let Some(clause) = &generics.where_clause {
            self.visit_where_clause(clause);
        }
    }
    fn visit_bound_lifetimes(&mut self, _: &'ast syn::BoundLifetimes) {}
    fn visit_predicate_type(&mut self, predicate: &'ast syn::PredicateType) {
        if predicate.lifetimes.is_none() {
            syn::visit::visit_predicate_type(self, predicate);
        }
    }
    fn visit_type_fn_ptr(&mut self, _: &'ast syn::TypeFnPtr) {}
    fn visit_trait_bound(&mut self, bound: &'ast syn::TraitBound) {
        if bound.lifetimes.is_none() {
            syn::visit::visit_trait_bound(self, bound);
        }
    }
}

/// `+ Captures<'a> + ...` for the returned task's `impl Witness`: edition 2021 captures
/// only the lifetimes an opaque type names (2024 captures every one; the bounds are then
/// redundant and harmless). With `self_type`, `+ CapturesType<Self>` too: the lifetimes of
/// the `impl` that only `Self` names (`impl<'a> Selector<'a>`, a method taking `self`).
pub(crate) fn captures(krate: &syn::Path, lifetimes: &[syn::Lifetime], self_type: bool) -> proc_macro2::TokenStream {
    let self_type = self_type.then(|| quote::quote!(+ #krate::__private::CapturesType<Self>));
    quote::quote!(#(+ #krate::__private::Captures<#lifetimes>)* #self_type)
}

/// Is `Self` in scope for this signature: a method (a receiver), or a signature that names
/// `Self`? (A free function cannot name it.)
pub(crate) fn self_in_scope(sig: &syn::Signature) -> bool {
    struct NamesSelf(bool);
    impl<'ast> syn::visit::Visit<'ast> for NamesSelf {
        fn visit_ident(&mut self, ident: &'ast proc_macro2::Ident) {
            self.0 |= ident == "Self";
        }
    }
    let mut names = NamesSelf(sig.receiver().is_some());
    syn::visit::Visit::visit_signature(&mut names, sig);
    names.0
}

/// The lifetime an elided lifetime of the result stands for, by Rust's elision rules, once
/// `name_elided_lifetimes` named the parameters': the receiver's if it is a reference, else
/// the parameters' only lifetime.
pub(crate) fn output_elision(sig: &syn::Signature) -> Option<syn::Lifetime> {
    if let Some(syn::FnArg::Receiver(receiver)) = sig.inputs.first()
        && let syn::ReceiverKind::Reference(_, Some(lifetime), _) = &receiver.kind
    {
        return Some(lifetime.clone());
    }
    let mut named = NamedLifetimes { found: Vec::new(), positions: true };
    for input in &sig.inputs {
        syn::visit::Visit::visit_fn_arg(&mut named, input);
    }
    match named.found.as_slice() {
        [only] => Some(only.clone()),
        _ => None,
    }
}

/// `ty` (the result) with its elided lifetimes (`&T`, `'_`) written as `lifetime`: the stub's
/// signature names its parameters' lifetimes, and one named beside one elided is
/// `mismatched_lifetime_syntaxes`, which the user's signature never was.
pub(crate) fn output_with_lifetime(ty: &syn::Type, lifetime: syn::Lifetime) -> syn::Type {
    let mut ty = ty.clone();
    NameElided { next: 0, new: Vec::new(), fixed: Some(lifetime) }.visit_type_mut(&mut ty);
    ty
}

/// Names the elided lifetimes of parameter types (`&T`, `Foo<'_>`), each a fresh one, or all
/// `fixed` (the result's).
struct NameElided {
    next: usize,
    new: Vec<syn::Lifetime>,
    fixed: Option<syn::Lifetime>,
}

impl NameElided {
    fn fresh(&mut self) -> syn::Lifetime {
        if let Some(fixed) = &self.fixed {
            return fixed.clone();
        }
        self.next += 1;
        let lifetime = syn::Lifetime::new(&format!("'__lowering_{}", self.next), Span::call_site());
        self.new.push(lifetime.clone());
        lifetime
    }
}

impl VisitMut for NameElided {
    fn visit_type_reference_mut(&mut self, reference: &mut syn::TypeReference) {
        if reference.lifetime.is_none() {
            reference.lifetime = Some(self.fresh());
        }
        visit_mut::visit_type_reference_mut(self, reference);
    }

    fn visit_lifetime_mut(&mut self, lifetime: &mut syn::Lifetime) {
        if lifetime.ident == "_" {
            *lifetime = self.fresh();
        }
    }

    // Lifetimes in these are not elided parameter lifetimes.
    fn visit_type_fn_ptr_mut(&mut self, _: &mut syn::TypeFnPtr) {}
    fn visit_trait_bound_mut(&mut self, bound: &mut syn::TraitBound) {
        if bound.lifetimes.is_none() {
            // `impl Fn(&str)`: elided lifetimes in `Fn` sugar are higher-ranked; leave them.
            if !bound
                .path
                .segments
                .iter()
                .any(|segment| matches!(segment.arguments, syn::PathArguments::Parenthesized(_)))
            {
                visit_mut::visit_trait_bound_mut(self, bound);
            }
        }
    }
}

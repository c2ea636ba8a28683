//! The stub's signature when the state machine is pinned: one lifetime that every borrow an
//! await may hold can be given.
//!
//! A borrow of a local that lives in place is stored in a field whose type rustc infers, and
//! that type appears in the task the function returns (`Task<T, impl StateMachine>`), so its
//! lifetime must be one the opaque type may name. With no lifetime parameter, rustc can only
//! pick `'static`, which fails when the borrowed local's type names a type parameter
//! (E0310); with two unrelated ones, it cannot pick either (E0700). So a pinned function gets
//! `'__lowering`, outlived by every other lifetime and type parameter of its signature
//! (`'a: '__lowering`, `T: '__lowering`, `impl Trait + '__lowering`), with the elided lifetimes
//! of its parameters named so that they can be bounded. Callers see no difference: the
//! lifetime is inferred, and a shorter one is always valid.
//!
//! A trait's method must keep the trait's signature (`Context::owns_signature`); there the
//! stub gets no new lifetime parameter.
//!
//! Every classic stub (pinned or not) also names its parameters' elided lifetimes and lets the
//! returned task capture every lifetime (`Captures`), so that the same code compiles in
//! edition 2021, whose opaque types capture only the lifetimes they name.

use proc_macro2::Span;
use syn::visit_mut::{self, VisitMut};

/// Names the elided lifetimes of the parameters (`&T`, `&self`, `Foo<'_>`) in `sig`, adds them
/// to its generics, and returns every lifetime parameter it has then: the ones the returned
/// task must capture. (Naming changes nothing for callers, nor for the elided lifetimes of the
/// result, which take the same lifetime as before.)
pub(crate) fn name_elided_lifetimes(sig: &mut syn::Signature) -> Vec<syn::Lifetime> {
    let mut named = NameElided { next: 0, new: Vec::new(), bound_impl_traits: false };
    for input in sig.inputs.iter_mut() {
        match input {
            syn::FnArg::Receiver(receiver) => {
                if let syn::ReceiverKind::Reference(_, lifetime, _) = &mut receiver.kind {
                    if lifetime.is_none() {
                        *lifetime = Some(named.fresh());
                    }
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
    sig.generics
        .params
        .iter()
        .filter_map(|param| match param {
            syn::GenericParam::Lifetime(lifetime) => Some(lifetime.lifetime.clone()),
            _ => None,
        })
        .collect()
}

/// `+ Captures<'a> + ...` for the returned task's `impl StateMachine`: edition 2021 captures
/// only the lifetimes an opaque type names (2024 captures every one; the bound is then
/// redundant and harmless).
pub(crate) fn captures(krate: &syn::Path, lifetimes: &[syn::Lifetime]) -> proc_macro2::TokenStream {
    quote::quote!(#(+ #krate::__private::Captures<#lifetimes>)*)
}

/// Add `'__lowering`, outlived by `lifetimes` (all of the signature's, elided ones named) and
/// by every type parameter and `impl Trait` parameter, to `sig`; returns it.
pub(crate) fn add_pinned_lifetime(sig: &mut syn::Signature, lifetimes: &[syn::Lifetime]) -> syn::Lifetime {
    let pinned = syn::Lifetime::new("'__lowering", Span::call_site());
    let mut bound = NameElided { next: 0, new: Vec::new(), bound_impl_traits: true };
    for input in sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(typed) = input {
            bound.visit_type_mut(&mut typed.ty);
        }
    }
    let types: Vec<syn::Ident> = sig
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            syn::GenericParam::Type(ty) => Some(ty.ident.clone()),
            _ => None,
        })
        .collect();
    // Lifetimes first, as Rust requires.
    let position =
        sig.generics.params.iter().take_while(|param| matches!(param, syn::GenericParam::Lifetime(_))).count();
    sig.generics.params.insert(position, syn::parse_quote!(#pinned));
    let has_receiver = sig.receiver().is_some();
    let where_clause = sig.generics.make_where_clause();
    for lifetime in lifetimes {
        where_clause.predicates.push(syn::parse_quote!(#lifetime: #pinned));
    }
    for ty in &types {
        where_clause.predicates.push(syn::parse_quote!(#ty: #pinned));
    }
    if has_receiver {
        where_clause.predicates.push(syn::parse_quote!(Self: #pinned));
    }
    pinned
}

/// Names the elided lifetimes of parameter types (`&T`, `Foo<'_>`) and bounds `impl Trait`
/// parameters by `'__lowering`.
struct NameElided {
    next: usize,
    new: Vec<syn::Lifetime>,
    /// Add `+ '__lowering` to `impl Trait` parameters (instead of naming lifetimes).
    bound_impl_traits: bool,
}

impl NameElided {
    fn fresh(&mut self) -> syn::Lifetime {
        self.next += 1;
        let lifetime = syn::Lifetime::new(&format!("'__lowering_{}", self.next), Span::call_site());
        self.new.push(lifetime.clone());
        lifetime
    }
}

impl VisitMut for NameElided {
    fn visit_type_reference_mut(&mut self, reference: &mut syn::TypeReference) {
        if reference.lifetime.is_none() && !self.bound_impl_traits {
            reference.lifetime = Some(self.fresh());
        }
        visit_mut::visit_type_reference_mut(self, reference);
    }

    fn visit_lifetime_mut(&mut self, lifetime: &mut syn::Lifetime) {
        if lifetime.ident == "_" && !self.bound_impl_traits {
            *lifetime = self.fresh();
        }
    }

    fn visit_type_impl_trait_mut(&mut self, node: &mut syn::TypeImplTrait) {
        visit_mut::visit_type_impl_trait_mut(self, node);
        if self.bound_impl_traits {
            node.bounds.push(syn::parse_quote!('__lowering));
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

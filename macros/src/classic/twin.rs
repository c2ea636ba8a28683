//! The borrow-check twin: the user's body, unchanged, as an `async move` block that rustc
//! type- and borrow-checks as the plain `async fn` and never runs.
//!
//! It sits in an `if false { ..; loop {} }` branch at the top of the stub: the branch leaves
//! no code in the binary, and because it diverges, what it moves (the parameters) is still
//! there for the code after it. A body that the plain `async fn` could not have (a borrow
//! rustc rejects, an unsafe operation outside `unsafe`) is rejected here, with rustc's own
//! error at the user's line; the classic code, which keeps borrowed locals in place, relies on
//! that (`generate::places`, "Soundness"). It differs from the body in one way only: where the
//! classic code lends a local to a macro by value (`Lent`), the twin takes it there too.

use std::collections::HashSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use crate::classic::syntax::jumps::may_return;
use crate::classic::syntax::{lent_key, receiver_key, recursive_call};
use crate::func::{Function, Param};

pub(crate) fn emit(
    krate: &syn::Path,
    function: &Function,
    bare_name_recursion: bool,
    lent_by_value: &HashSet<String>,
    output: &syn::Type,
    params: &[Param],
    witness: &proc_macro2::Ident,
) -> syn::Result<TokenStream> {
    let bindings = params.iter().map(|param| {
        let stub_name = &param.stub_name;
        match (&param.pattern, param.mutable) {
            // Mutable: the pattern may bind `ref mut` parts of it.
            (Some(pattern), _) => quote! {
                #[allow(unused_mut)]
                let mut #stub_name = #stub_name;
                let #pattern = #stub_name;
            },
            // The `mut` at the parameter's span: rustc names a binding whose `mut` the
            // expansion wrote "value" in its errors (`cannot borrow value as mutable`).
            (None, true) => {
                let mutability = syn::Token![mut](stub_name.span());
                quote!(#[allow(unused_mut)] let #mutability #stub_name = #stub_name;)
            }
            (None, false) => quote!(let #stub_name = #stub_name;),
        }
    });
    let mut block = function.block.clone();
    Recursion { krate, function: &function.sig.ident, bare_name: bare_name_recursion }.visit_block_mut(&mut block);
    let mut lent = Lent { keys: lent_by_value, mirrored: HashSet::new() };
    lent.visit_block_mut(&mut block);
    if let Some(missed) = lent_by_value.iter().find(|key| !lent.mirrored.contains(*key)) {
        // Every move the classic code makes must be one rustc checked: without its twin, a
        // lending is refused rather than run unchecked.
        return Err(syn::Error::new(
            function.sig.ident.span(),
            format!("classic lowering: a macro lent `{missed}` by value where the borrow-check twin cannot mirror it"),
        ));
    }
    // The body's statements, not its block: a block as the async block's tail would draw
    // `unused_braces` at the user's braces.
    let stmts = &block.stmts;
    // The block's result type, fixed before its code as an `async fn`'s is by its signature,
    // so that a tail, a branch or a `return` of another type is rustc's mismatch at the user's
    // expression, as for the plain function, not a mismatch of the whole block against the
    // output. Where the body only ends in its value, its statements are the block of a `let`
    // of the result type, as in the state machine (`generate::emit::scopes`, `close_level`):
    // the tail's temporaries drop where the plain function's do, and a mismatch reads the same
    // in both, which `cargo` prints once. Where the body may return early (a `return`, a `?`,
    // a macro that may hide one), the type must be known at that `return`: a `return` the
    // lowering writes first fixes it, and rustc then notes where ("return type inferred to be
    // `u32` here") beside each mismatch, at the signature's result type, never the attribute.
    // So does a result type that may hold a borrow (`holds_no_borrow`).
    let code = match output {
        syn::Type::Infer(_) | syn::Type::Never(_) => quote!(#(#bindings)* #(#stmts)*),
        _ if may_return(&block) || !holds_no_borrow(output) => {
            // The user's own span, not the expansion's: rustc then names no macro beside it.
            let result = Ident::new("__lowering_result", output.span());
            let bound = Ident::new("__lowering_result", output.span());
            quote! {
                if let ::core::option::Option::Some(#bound) = ::core::option::Option::None::<#output> {
                    return #result;
                }
                #(#bindings)*
                #(#stmts)*
            }
        }
        _ => {
            let value = Ident::new("__lowering_value", Span::mixed_site());
            quote! {
                #(#bindings)*
                #[allow(unused_braces)]
                let #value: #output = { #(#stmts)* };
                #value
            }
        }
    };
    Ok(quote! {
        let mut #witness = #krate::__private::BodyWitness::new();
        #[allow(unreachable_code, clippy::diverging_sub_expression, clippy::let_and_return, clippy::let_unit_value)]
        if false {
            #krate::__private::twin::<#output, _>(&mut #witness, async move { #code });
            loop {}
        }
    })
}

/// Can a value of `ty` hold no borrow (no reference, lifetime, trait object or `Self`, which
/// may have lifetimes)? A result that returns a borrow of a local is rustc's error where the
/// value is returned: at the user's tail, not at the `let` the twin reads it from.
fn holds_no_borrow(ty: &syn::Type) -> bool {
    struct Borrows(bool);
    impl<'ast> syn::visit::Visit<'ast> for Borrows {
        fn visit_type_reference(&mut self, _: &'ast syn::TypeReference) {
            self.0 = true;
        }
        fn visit_lifetime(&mut self, _: &'ast syn::Lifetime) {
            self.0 = true;
        }
        fn visit_type_trait_object(&mut self, _: &'ast syn::TypeTraitObject) {
            self.0 = true;
        }
        fn visit_path_segment(&mut self, segment: &'ast syn::PathSegment) {
            self.0 |= segment.ident == "Self";
            syn::visit::visit_path_segment(self, segment);
        }
    }
    let mut borrows = Borrows(false);
    syn::visit::Visit::visit_type(&mut borrows, ty);
    !borrows.0
}

/// The macros the classic code lends a local by value (`generate::places`, `lent_key`): the
/// twin takes the same value at the same macro (`let v = v;` before it), so that rustc checks
/// the move the classic code makes where the plain macro may only borrow. A borrow of the local
/// still alive after it is then rustc's error at the user's macro (E0505, E0597), not a read of
/// a value the classic code dropped.
struct Lent<'k> {
    keys: &'k HashSet<String>,
    mirrored: HashSet<String>,
}

impl Lent<'_> {
    /// `let mut v = v;` for each local the classic code lends `mac` by value.
    fn takes(&mut self, mac: &syn::Macro) -> TokenStream {
        let mut names: Vec<String> = self
            .keys
            .iter()
            .filter(|key| {
                let name = key.split('@').next().unwrap_or_default();
                !key.starts_with("receiver ") && lent_key(mac, name).as_ref() == Some(*key)
            })
            .cloned()
            .collect();
        names.sort();
        let mut takes = TokenStream::new();
        for key in names {
            let name = key.split('@').next().unwrap_or_default().to_owned();
            self.mirrored.insert(key);
            let span = mac.path.span();
            let ident = crate::classic::syntax::ident_for(&name, span);
            takes.extend(quote_spanned!(span=> #[allow(unused_mut, unused_variables)] let mut #ident = #ident;));
        }
        takes
    }
}

impl VisitMut for Lent<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            if let syn::Stmt::Macro(node) = &mut stmt {
                let takes = self.takes(&node.mac);
                if !takes.is_empty() {
                    stmts.push(syn::Stmt::Item(syn::Item::Verbatim(takes)));
                }
                self.visit_macro_mut(&mut node.mac);
            } else {
                self.visit_stmt_mut(&mut stmt);
            }
            stmts.push(stmt);
        }
        block.stmts = stmts;
    }

    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::MethodCall(node) = expr
            && let Some(name) = receiver_name(&node.receiver)
            && let Some(key) = receiver_key(&node.receiver, &name)
            && self.keys.contains(&key)
        {
            // A `moves` hint: the receiver (a local, or a field of one) is moved into the call,
            // as the classic code moves it.
            self.mirrored.insert(key);
            let receiver = &node.receiver;
            *node.receiver = syn::parse_quote_spanned!(receiver.span()=> { #receiver });
        }
        if let syn::Expr::Macro(node) = expr {
            let takes = self.takes(&node.mac);
            self.visit_macro_mut(&mut node.mac);
            if !takes.is_empty() {
                let span = node.mac.path.span();
                *expr = syn::parse_quote_spanned!(span=> { #takes #expr });
            }
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    /// A standard macro's arguments are expressions the classic code rewrites (and lends from).
    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        crate::classic::syntax::std_macros::visit_arguments(mac, |expr| self.visit_expr_mut(expr));
    }

    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        // The `mut` of a local the twin takes again (`let mut v = v;`) is the new binding's
        // now: the user's would read as unused.
        let mut bindings = Vec::new();
        crate::classic::syntax::bindings::pattern_bindings(&local.pat, &mut bindings);
        if bindings
            .iter()
            .any(|binding| self.keys.iter().any(|key| key.split('@').next() == Some(&binding.ident.to_string())))
        {
            local.attrs.push(syn::parse_quote!(#[allow(unused_mut)]));
        }
        visit_mut::visit_local_mut(self, local);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The local a method call's receiver names: the receiver itself (`cmd`), or the local a field
/// receiver is part of where a `moves` hint names it (`self` in `self.txn.commit()`).
fn receiver_name(receiver: &syn::Expr) -> Option<String> {
    match receiver {
        syn::Expr::Path(path) => path.path.get_ident().map(ToString::to_string),
        _ => crate::classic::syntax::receivers::hinted_field_receiver(receiver).map(|(root, _)| root),
    }
}

/// An await of the function itself (`Box::pin(f(n - 1)).await`) would make the twin, inside the
/// stub, hold the stub's own opaque return type across an await, which rustc rejects there
/// (E0792). It makes the call, drops its future and awaits a future of the call's own output
/// instead (`awaited_call_output`): the arguments are used as the call uses them, and the
/// value has the type of whatever the call is. A call that looks like recursion but is not
/// (`Self::accept(self)` in a trait's impl, which names the type's inherent `accept`) keeps
/// its own output type, as it must: the lowering cannot tell the two apart.
struct Recursion<'a> {
    krate: &'a syn::Path,
    function: &'a syn::Ident,
    bare_name: bool,
}

impl VisitMut for Recursion<'_> {
    fn visit_expr_await_mut(&mut self, node: &mut syn::ExprAwait) {
        visit_mut::visit_expr_await_mut(self, node);
        let Some(call) = recursive_call(&node.base, self.function, self.bare_name) else { return };
        let krate = self.krate;
        let span = node.base.span();
        *node.base = syn::Expr::Verbatim(quote_spanned! {span=>
            #krate::__private::awaited_call_output(#call)
        });
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

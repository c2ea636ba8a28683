//! `#[lowering(classic)]`: the state machine C#'s compiler would generate.
//!
//! A small compiler in layers, each importing only the ones above it in this list
//! (`macros/tests/layering.rs` reads the sources and fails on an import the other way):
//!
//! ```text
//! syntax     questions asked of syn: a place's root, a pattern's bindings, how code uses a
//!            local (`mentions`), what it assigns, which jumps leave it, the std macros
//!   |        (also `hints`, the user's `moves`/`keeps`, and `signature`)
//!   v
//! parse      the body as a tree in which every await stands at statement level, in Rust's
//!   |        evaluation order, and every construct around one is explicit (`parse::ir`:
//!   |        `Body`, with the temporaries the lowering hoisted)
//!   v
//! analyse    the function's bindings, found once (`bindings`); which locals an await may
//!   |        find borrowed (`loans`); whether a local's value is read after a point
//!   |        (`liveness`)
//!   v
//! generate   one walk over the tree that tracks which locals hold a value and writes one
//!   |        code segment per state of `move_next` (`emit`, `places`); the `twin`
//!   v
//! expand     (here) the stub, the state-machine struct and the call to the builder
//! ```
//!
//! Which locals live in place, and why, is one table (`analyse::in_place::KeptInPlace`,
//! binding -> `Reason`): written by the loans analysis, the signature (a parameter pattern
//! binding by reference) and the lowered body (its hoisted temporaries) before the walk, and by
//! the walk where it finds a state's end needs one; read only by the walk. The expansion
//! snapshots and `LOWERING_SHOW_EXPANSION` print it above the code:
//!
//! ```text
//!   loans ----\
//!   signature --> KeptInPlace --> walk (emit) --> states
//!   Body -----/        ^              |
//!                      \-- next walk <-/   (what the walk found it needs)
//! ```
//!
//! Where a loop head's entry states depend on what the walk finds later, or the walk puts a
//! local in place, the walk repeats (at most `MAX_ROUNDS` times; each round can only add to the
//! sets it settles; `snapshots.rs` counts the rounds). What one walk learned of a local reaches
//! the next by the binding (`emit::VarKey`: where its identifier is), not by its number in the
//! walk, which a walk that learned more may change.

mod analyse;
mod generate;
pub(crate) mod hints;
mod parse;
mod signature;
pub(crate) mod syntax;
mod twin;

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::args::{Args, Context, Mode};
use crate::func::{Function, ReceiverShape};
use crate::record;

use self::analyse::in_place::{Binding, KeptInPlace, Reason};
use self::analyse::loans;
use self::generate::emit::{self, Config, Emitter, Holds, Init};
use self::parse::{ir, lower};
use self::syntax::mentions;

/// How many times the walk may run for one function before the lowering gives up with an
/// error. The walk runs again only when it learned something the previous one assumed
/// otherwise, and what it learns only grows: a loop head's entry states only move toward
/// `Maybe`, the set of fields used and the locals kept in place only gain members (a new local
/// in place starts the assumptions over, at most once per binding). The representative
/// functions of the expansion snapshots settle in at most 3 walks (`snapshots.rs` counts them).
const MAX_ROUNDS: usize = 16;

thread_local! {
    /// The number of walks the last classic expansion on this thread took (`walks_of_last`).
    static WALKS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

thread_local! {
    /// The locals the last classic expansion on this thread kept in place, with why
    /// (`in_place_of_last`).
    static IN_PLACE: std::cell::RefCell<KeptInPlace> = std::cell::RefCell::default();
}

/// How many walks the last classic expansion on this thread took to settle.
#[cfg(test)]
pub(crate) fn walks_of_last() -> usize {
    WALKS.with(std::cell::Cell::get)
}

/// The locals the last classic expansion on this thread kept in place, one line each with
/// its reason, as the expansion snapshots and `LOWERING_SHOW_EXPANSION` print them.
pub(crate) fn in_place_of_last() -> String {
    IN_PLACE.with(|in_place| in_place.borrow().to_string())
}

pub(crate) fn expand(args: &Args, function: Function) -> syn::Result<TokenStream> {
    hints::check(args, &function)?;
    expand_variant(args, function)
}

/// `expand` for one of the copies of a function with code under `#[cfg]` (`cfg_variants`),
/// whose hints were checked against the function as written: a hint may name a macro that
/// only some copies invoke (`returns(fail)` where `fail!` stands in an arm under
/// `#[cfg(not(feature = "tls"))]`).
pub(crate) fn expand_variant(args: &Args, function: Function) -> syn::Result<TokenStream> {
    hints::with(&args.hints, || expand_with_hints(args, function))
}

/// The hints of `function` as written, before it is copied per `#[cfg]` variant.
pub(crate) fn check_hints(args: &Args, function: &Function) -> syn::Result<()> {
    hints::check(args, function)
}

fn expand_with_hints(args: &Args, function: Function) -> syn::Result<TokenStream> {
    check_signature(&function)?;
    let function = function.receiver_named_self();
    let param_bindings: Vec<String> = function
        .params()
        .iter()
        .flat_map(|param| match &param.pattern {
            Some(pattern) => {
                let mut bindings = Vec::new();
                syntax::bindings::pattern_bindings(pattern, &mut bindings);
                bindings.into_iter().map(|binding| binding.ident.to_string()).collect()
            }
            None => vec![param.stub_name.to_string()],
        })
        .collect();
    let (mut block, items) = parse::items::hoist(&function.block, &param_bindings)?;
    // A macro the body ends with, without `;`, gives the function's value when the function
    // has one (`cfg_if! { .. Ok(x) }`): it is the body's tail, not a statement.
    if !matches!(function.sig.output, syn::ReturnType::Default)
        && let Some(syn::Stmt::Macro(last)) = block.stmts.last()
        && last.semi_token.is_none()
    {
        let tail = syn::Expr::Macro(syn::ExprMacro { attrs: last.attrs.clone(), mac: last.mac.clone() });
        *block.stmts.last_mut().expect("a last statement") = syn::Stmt::Expr(tail, None);
    }
    let returns_unit = match &function.sig.output {
        syn::ReturnType::Default => true,
        syn::ReturnType::Type(_, ty) => matches!(&**ty, syn::Type::Tuple(tuple) if tuple.elems.is_empty()),
    };
    parse::diverging_calls::rewrite(&mut block, &args.krate);
    parse::awaiting_expansions::rewrite(&mut block, returns_unit, &args.krate);
    parse::guarded_matches::rewrite(&mut block);
    let mut errors = parse::awaiting_macros::rewrite(&mut block, &args.krate);
    let param_names: Vec<String> = function.params().iter().map(|param| param.stub_name.to_string()).collect();
    errors.extend(parse::macro_locals::check(&block, &param_names));
    parse::macro_locals::rebind(&mut block, &param_names);
    parse::guards::rewrite(&mut block);
    parse::let_chains::rewrite(&mut block);
    parse::destructuring::rewrite(&mut block);
    if let Some(errors) = errors.into_iter().reduce(|mut all, error| {
        all.combine(error);
        all
    }) {
        return Err(errors);
    }
    let body = lower::body(&block, &args.krate)?;
    let krate = &args.krate;
    // `!` is no type argument on stable Rust: the task's result is spelled as what a
    // function type returning `!` returns.
    let output = match function.output() {
        syn::Type::Never(_) => syn::parse_quote!(<fn() -> ! as #krate::__private::Returns>::Output),
        output => output,
    };
    let receiver = function.receiver();
    let params = function.params();

    // A bare call of the function's name is the function itself only in a free function (in
    // an `impl` or a trait, that name is a free function's: `Self::name` is the function).
    let bare_name_recursion = receiver.is_none() && matches!(args.context, Context::Free | Context::Unknown);
    let mut config = Config {
        krate,
        function: &function.sig.ident,
        bare_name_recursion,
        result_type: Some(opaque_types_inferred(&output)),
        option_return: returns_option(&output),
        body_span: function.block.brace_token.span.join(),
        unit_return: matches!(&output, syn::Type::Tuple(tuple) if tuple.elems.is_empty()),
        self_ident: receiver.as_ref().map(|_| Ident::new(mentions::SELF_LOCAL, Span::mixed_site())),
        assumed: HashMap::new(),
        fields_used: Vec::new(),
        in_place: {
            let mut in_place = loans::in_place(
                &block,
                &params_in_scope(&params),
                receiver.as_ref().is_some_and(|receiver| receiver.mutable),
                &references(&function, false),
                &references(&function, true),
                &async_callable_params(&function),
            );
            for param in pattern_params_in_place(&params) {
                in_place.insert(Binding::named(&param), Reason::RefPatternParameter);
            }
            for temporary in &body.hoisted {
                in_place.insert(Binding::named(temporary), Reason::HoistedTemporary);
            }
            in_place
        },
        parts: HashMap::new(),
    };
    let mut rounds = 0;
    WALKS.with(|walks| walks.set(0));
    IN_PLACE.with(|in_place| in_place.take());
    let walked = loop {
        let walked = walk(&config, &body.block, &function, &params);
        rounds += 1;
        let new_in_place = config.in_place.lacks_any_of(&walked.wants_in_place);
        let settled = walked.heads == config.assumed
            && walked.fields_used.len() == config.fields_used.len()
            && walked.parts == config.parts
            && !new_in_place;
        if settled {
            break walked;
        }
        if rounds == MAX_ROUNDS {
            // Never a state machine built on assumptions the walk did not confirm.
            return Err(syn::Error::new(
                function.sig.ident.span(),
                format!(
                    "classic lowering: the analysis of this function did not settle in {MAX_ROUNDS} walks; this \
                     is a bug in the lowering (please report it with this function); `#[lowering(runtime)]` \
                     builds it meanwhile"
                ),
            ));
        }
        if new_in_place {
            // Locals put in place change the locals the walk declares (a pattern binding
            // rebound by a `let`), and so the numbering that the heads and fields refer to:
            // what the next walk assumes starts over.
            config.assumed = HashMap::new();
            config.fields_used = Vec::new();
        } else {
            config.assumed = walked.heads;
            config.fields_used = walked.fields_used;
        }
        config.parts = walked.parts;
        config.in_place.extend(walked.wants_in_place);
    };
    WALKS.with(|walks| walks.set(rounds));
    IN_PLACE.with(|in_place| in_place.replace(config.in_place.clone()));
    if let Some(errors) = walked.errors.into_iter().reduce(|mut all, error| {
        all.combine(error);
        all
    }) {
        return Err(errors);
    }

    let name = &function.sig.ident;
    let machine = format_ident!("{}StateMachine", camel_case(&name.to_string()), span = name.span());

    // Fields in reverse declaration order: dropping a suspended state machine drops its
    // locals (and first the awaiter in flight) in reverse declaration order. Each field's
    // type is a type parameter that rustc infers from `move_next` (a recursive await's slot
    // too: it holds a `Task` of this function, whose type does not name the state machine).
    let mut fields: Vec<(u32, Ident, bool)> = walked
        .vars
        .iter()
        .filter(|var| var.walk.slotted)
        .map(|var| (var.seq, var.field.clone(), var.lives_in_place()))
        .chain(walked.awaiters.iter().map(|awaiter| (awaiter.seq, awaiter.field.clone(), false)))
        .collect();
    // A local that lives in place is borrowed across states: the state machine must not move
    // once it runs.
    let pinned = fields.iter().any(|field| field.2);
    fields.sort_by_key(|field| std::cmp::Reverse(field.0));
    let generics: Vec<Ident> = (0..fields.len()).map(|index| format_ident!("F{}", index)).collect();
    let field_types: Vec<TokenStream> = fields
        .iter()
        .zip(&generics)
        .map(|((_, field, in_place), generic)| {
            if !*in_place {
                return quote!(::core::option::Option<#generic>);
            }
            // One bit per field the function moves out of the local: a word covers 32.
            let moved_fields = walked.parts.get(&field.to_string()).map_or(0, Vec::len);
            if moved_fields <= 32 {
                quote!(#krate::__private::Slot<#generic>)
            } else {
                let words = moved_fields.div_ceil(32);
                quote!(#krate::__private::Slot<#generic, [u32; #words]>)
            }
        })
        .collect();
    let field_names: Vec<&Ident> = fields.iter().map(|(_, field, _)| field).collect();
    let in_place_fields: HashSet<String> =
        fields.iter().filter(|field| field.2).map(|(_, field, _)| field.to_string()).collect();
    let underscores = generics.iter().map(|_| quote!(_));

    // The stub's parameters and the state machine's initial fields.
    let mut initial: HashMap<String, TokenStream> = HashMap::new();
    for var in walked.vars.iter().filter(|var| var.param()) {
        let value = if var.name == mentions::SELF_LOCAL {
            // The user's own `self` token: `self` is hygienic.
            let span = receiver.as_ref().map_or_else(Span::call_site, |receiver| receiver.span);
            Ident::new("self", span).to_token_stream_plain()
        } else {
            var.name.to_token_stream_plain()
        };
        let value = if var.lives_in_place() {
            quote!(#krate::__private::Slot::holding(#value))
        } else {
            quote!(::core::option::Option::Some(#value))
        };
        initial.insert(var.field.to_string(), value);
    }
    let inits = field_names.iter().map(|field| {
        let field = field.to_string();
        initial.get(&field).cloned().unwrap_or_else(|| {
            if in_place_fields.contains(&field) {
                quote!(#krate::__private::Slot::empty())
            } else {
                quote!(::core::option::Option::None)
            }
        })
    });

    let mut sig = function.sig.clone();
    sig.asyncness = None;
    for (input, param) in sig.inputs.iter_mut().filter(|input| matches!(input, syn::FnArg::Typed(_))).zip(&params) {
        if let syn::FnArg::Typed(typed) = input {
            let stub_name = &param.stub_name;
            *typed.pat = syn::parse_quote!(#stub_name);
        }
    }
    // `mut self` stays: the twin mutates `self` where the user's body does.
    // The task captures every lifetime of the signature (edition 2021 needs it said; a trait's
    // method keeps the trait's signature).
    let trait_definition = args.context == Context::TraitDefinition;
    let lifetimes = if trait_definition { Vec::new() } else { signature::name_elided_lifetimes(&mut sig) };
    let captures = signature::captures(krate, &lifetimes, !trait_definition && signature::self_in_scope(&sig));
    let output_span = output.span();
    let signature_output = match signature::output_elision(&sig) {
        Some(lifetime) if !trait_definition => signature::output_with_lifetime(&output, lifetime),
        _ => output.clone(),
    };
    sig.output = if args.value_task {
        syn::parse_quote_spanned!(output_span=> -> #krate::ValueTask<#signature_output, impl #krate::Witness #captures>)
    } else {
        syn::parse_quote_spanned!(output_span=> -> #krate::Task<#signature_output, impl #krate::Witness #captures>)
    };
    // A value task needs no cache: a synchronous result travels inline. A pinned state
    // machine goes to its heap task before it runs, so it needs none either.
    // An opaque result (`-> impl Trait`) is never cached: its type is not known to be one of
    // the table's, as for a generic result.
    let opaque_output = names_opaque_types(&output);
    let body_output = opaque_types_inferred(&output);
    let (builder, cache) = if pinned {
        (if args.value_task { quote!(start_value_pinned) } else { quote!(start_pinned) }, quote!())
    } else if args.value_task {
        (quote!(start_value), quote!())
    } else if opaque_output {
        (quote!(start), quote!(#krate::__private::NoTable,))
    } else {
        (
            quote!(start),
            quote! {
                {
                    #[allow(unused_imports)]
                    use #krate::__private::{ViaNoTable as _, ViaTable as _};
                    (&#krate::__private::CacheProbe::<#output>::NEW).policy()
                },
            },
        )
    };

    let mut ordered: Vec<_> = walked.segments.iter().collect();
    ordered.sort_by_key(|(order, _, _)| *order);
    let segments = ordered.into_iter().map(|(_, state, code)| {
        quote! {
            // Every warning about the user's code is reported once, by the twin.
            #[allow(warnings, dangerous_implicit_autorefs, clippy::all, clippy::pedantic, clippy::nursery)]
            #state => { #code }
        }
    });
    let record = record::emit(krate, Mode::Classic, name, Some(&machine), args.value_task);
    let attrs = function.attrs();
    let vis = &function.vis;
    let label = emit::dispatch_label();
    let sm = Ident::new("__sm", Span::mixed_site());
    let cx = Ident::new("__cx", Span::mixed_site());
    let doc = format!(" The state machine of `{name}`, generated by `#[lowering(classic)]`.");
    let witness = Ident::new("__witness", Span::mixed_site());
    let twin =
        twin::emit(krate, &function, bare_name_recursion, &walked.lent_by_value, &body_output, &params, &witness)?;
    // A pinned state machine's code reaches its locals through raw pointers (`generate::places`
    // states what makes that sound; the twin checks the user's own code for unsafe operations).
    let dispatch = quote! {
        #label: loop {
            match #sm.state {
                #(#segments)*
                _ => ::core::unreachable!("lowering: a state machine resumed in an unknown state"),
            }
        }
    };
    // A pinned state machine lends its locals to macros it cannot see into as references
    // bounded by a local of this run of `move_next` (`generate::places`, invariant 6).
    let lent_run = Ident::new(generate::places::LENT_RUN, Span::mixed_site());
    let this_run = Ident::new("this_run_of_move_next", Span::mixed_site());
    let dispatch = if pinned {
        quote! {
            #[allow(unused_variables)]
            let #this_run = ();
            #[allow(unused_variables)]
            let #lent_run = &#this_run;
            #[allow(unused_unsafe)]
            unsafe { #dispatch }
        }
    } else {
        dispatch
    };

    let body = quote! {
            #(#items)*
            #twin
            #[doc = #doc]
            #[allow(non_camel_case_types, non_snake_case, dead_code)]
            struct #machine<#(#generics),*> {
                state: u32,
                #(#field_names: #field_types,)*
            }
            #record
            #krate::__private::#builder(
                #witness,
                #machine { state: 0, #(#field_names: #inits,)* },
                #cache
                // The result type is said, so that the function's value is coerced to it as in
                // the plain function (`Ok(Box::new(upload))` to `Result<Box<dyn Debug>, _>`).
                |#sm: &mut #machine<#(#underscores),*>, #cx: &mut #krate::__private::Ctx<'_>| -> ::core::task::Poll<#body_output> {
                    // What a use by value of a local kept in place calls (`generate::places`).
                    #[allow(unused_imports)]
                    use #krate::__private::{CaptureByValue as _, CaptureCopy as _, CaptureReborrow as _, CopyBinding as _, CopyFieldOut as _, CopyOut as _, MoveFieldOut as _, MoveOut as _, MoveBinding as _, ReborrowFieldOut as _, ReborrowOut as _};
                    #dispatch
                },
            )
    };
    Ok(match &function.boxed {
        // `#[async_trait]`'s signature, and its box around the task instead of its `async`
        // block: the task is the boxed future.
        Some(boxed) => {
            let sig = &boxed.sig;
            quote! {
                #attrs
                #vis #sig {
                    ::std::boxed::Box::pin({ #body })
                }
            }
        }
        None => quote! {
            #attrs
            #[allow(refining_impl_trait)]
            #vis #sig { #body }
        },
    })
}

struct Walked {
    vars: Vec<emit::Var>,
    awaiters: Vec<emit::Awaiter>,
    segments: Vec<(usize, u32, TokenStream)>,
    errors: Vec<syn::Error>,
    heads: HashMap<u32, HashMap<emit::VarKey, Init>>,
    fields_used: Vec<((emit::VarKey, String), syn::Expr)>,
    parts: HashMap<String, Vec<String>>,
    wants_in_place: KeptInPlace,
    lent_by_value: HashSet<String>,
}

fn walk(config: &Config<'_>, body: &ir::Block, function: &Function, params: &[crate::func::Param]) -> Walked {
    let mut emitter = Emitter::new(config);
    if let Some(receiver) = function.receiver() {
        let id = emitter.declare(Ident::new(mentions::SELF_LOCAL, Span::mixed_site()), receiver.mutable, Init::Yes);
        let var = emitter.var_mut(id);
        var.holds = match receiver.kind {
            ReceiverShape::Value => Holds::Owned,
            ReceiverShape::Shared => Holds::Borrowed,
            ReceiverShape::Exclusive => Holds::Exclusive,
        };
        var.span = receiver.span;
    }
    // Each parameter is bound in order, as rustc's own desugaring of `async fn` parameters
    // does: a pattern (or `_`) from a hidden parameter the stub stored.
    let mut specs = Vec::new();
    for param in params {
        specs.push(match &param.pattern {
            None => emit::Param::Plain {
                name: param.stub_name.clone(),
                mutable: param.mutable,
                reference: match &param.ty {
                    syn::Type::Reference(reference) => Some(reference.mutability.is_some()),
                    _ => None,
                },
                called_by_value: self::syntax::callables::called_by_value(&param.ty, &function.sig.generics),
            },
            Some(pattern) => emit::Param::Pattern { pat: Box::new(pattern.clone()), hidden: param.stub_name.clone() },
        });
    }
    emitter.body(body, specs);
    Walked {
        awaiters: std::mem::take(&mut emitter.found.awaiters),
        segments: std::mem::take(&mut emitter.states.segments),
        errors: std::mem::take(&mut emitter.found.errors),
        heads: std::mem::take(&mut emitter.states.heads),
        fields_used: std::mem::take(&mut emitter.found.fields_used),
        parts: std::mem::take(&mut emitter.found.parts),
        wants_in_place: std::mem::take(&mut emitter.found.wants_in_place),
        lent_by_value: std::mem::take(&mut emitter.found.lent_by_value),
        vars: std::mem::take(&mut emitter.vars),
    }
}

trait PlainIdent {
    fn to_token_stream_plain(&self) -> TokenStream;
}

impl PlainIdent for Ident {
    fn to_token_stream_plain(&self) -> TokenStream {
        quote!(#self)
    }
}

/// Whether the result type has an `impl Trait` in it (`-> impl Display`, `-> Vec<impl Debug>`).
/// The stub's `Task<impl Display, ..>` is legal, but the body cannot write that type: there
/// the result is left to inference (`_`), which the task's type pins down.
fn names_opaque_types(output: &syn::Type) -> bool {
    let mut finder = ImplTraitFinder(None);
    finder.visit_type(output);
    finder.0.is_some()
}

/// Shapes the classic lowering cannot express faithfully.
fn check_signature(function: &Function) -> syn::Result<()> {
    if let Some(variadic) = &function.sig.variadic {
        return Err(syn::Error::new(variadic.span(), "classic lowering: variadic functions are not supported"));
    }
    Ok(())
}

/// The result type with each `impl Trait` in it left to inference (`Result<_, String>` for
/// `Result<impl Iterator + '_, String>`): the body's value has a type of its own there, which
/// only rustc knows, and the rest still guides inference (`Ok(res)` needs its error type).
fn opaque_types_inferred(output: &syn::Type) -> syn::Type {
    struct Infer;
    impl syn::visit_mut::VisitMut for Infer {
        fn visit_type_mut(&mut self, ty: &mut syn::Type) {
            if let syn::Type::ImplTrait(node) = ty {
                let span = node.impl_token.span;
                *ty = syn::parse_quote_spanned!(span=> _);
                return;
            }
            syn::visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut output = output.clone();
    syn::visit_mut::VisitMut::visit_type_mut(&mut Infer, &mut output);
    output
}

struct ImplTraitFinder(Option<Span>);

impl<'ast> Visit<'ast> for ImplTraitFinder {
    fn visit_type_impl_trait(&mut self, node: &'ast syn::TypeImplTrait) {
        self.0.get_or_insert(node.impl_token.span);
    }
}

/// The receiver and parameters that are references, shared (`&self`, `x: &T`: borrows through
/// them are not borrows of the state machine, which can move the reference freely) or
/// `exclusive` (`&mut self`, `x: &mut T`: a reborrow through one is).
fn references(function: &Function, exclusive: bool) -> HashSet<String> {
    let mut names = HashSet::new();
    let shape = if exclusive { ReceiverShape::Exclusive } else { ReceiverShape::Shared };
    if function.receiver().is_some_and(|receiver| receiver.kind == shape) {
        names.insert("self".to_owned());
    }
    for param in function.params() {
        if let (None, syn::Type::Reference(reference)) = (&param.pattern, &param.ty)
            && reference.mutability.is_some() == exclusive
        {
            names.insert(param.stub_name.to_string());
        }
    }
    names
}

/// The parameters whose calls may return a future that borrows them: of a type that names
/// `AsyncFn` or `AsyncFnMut` (`f: impl AsyncFn(u32) -> u32`), or a type parameter bounded by
/// one (`f: F`, `F: AsyncFnMut()`). An awaited call keeps such a callee in place even at its
/// last use; any other callee is taken there (`initializer().await`, `F: FnOnce() -> Fut`).
fn async_callable_params(function: &Function) -> HashSet<String> {
    fn names_async_fn(tokens: TokenStream, also: &HashSet<String>) -> bool {
        tokens.into_iter().any(|token| match token {
            proc_macro2::TokenTree::Ident(ident) => {
                ident == "AsyncFn" || ident == "AsyncFnMut" || also.contains(&ident.to_string())
            }
            proc_macro2::TokenTree::Group(group) => names_async_fn(group.stream(), also),
            _ => false,
        })
    }
    let none = HashSet::new();
    let generics = &function.sig.generics;
    let mut bounded = HashSet::new();
    for param in generics.type_params() {
        if param.bounds.iter().any(|bound| names_async_fn(quote!(#bound), &none)) {
            bounded.insert(param.ident.to_string());
        }
    }
    for predicate in generics.where_clause.iter().flat_map(|clause| &clause.predicates) {
        if let syn::WherePredicate::Type(typed) = predicate
            && let syn::Type::Path(path) = &typed.bounded_ty
            && let Some(ident) = path.path.get_ident()
            && typed.bounds.iter().any(|bound| names_async_fn(quote!(#bound), &none))
        {
            bounded.insert(ident.to_string());
        }
    }
    function
        .params()
        .into_iter()
        .filter(|param| param.pattern.is_none())
        .filter(|param| {
            let ty = &param.ty;
            names_async_fn(quote!(#ty), &bounded)
        })
        .map(|param| param.stub_name.to_string())
        .collect()
}

/// `Arc<..>` or `Rc<..>`: a method awaited on it goes through `Deref` and borrows it, so it
/// is never taken by value at its last use (`client.query(q).await`, `client: Arc<Client>`).
fn is_shared_pointer(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(path) => {
            path.qself.is_none()
                && path.path.segments.last().is_some_and(|last| last.ident == "Arc" || last.ident == "Rc")
        }
        syn::Type::Paren(paren) => is_shared_pointer(&paren.elem),
        syn::Type::Group(group) => is_shared_pointer(&group.elem),
        _ => false,
    }
}

/// The names in scope where the body begins, for `loans::in_place`: each parameter's (with
/// whether an awaited method may never take it by value: a `mut` one, or an `Arc`/`Rc`), and
/// the bindings of each pattern parameter's pattern, so that each is keyed by its own position
/// and a later `let` of the same name is another local.
fn params_in_scope(params: &[crate::func::Param]) -> Vec<(Ident, bool)> {
    let mut names = Vec::new();
    for param in params {
        names.push((param.stub_name.clone(), param.mutable || is_shared_pointer(&param.ty)));
        if let Some(pattern) = &param.pattern {
            let mut bindings = Vec::new();
            syntax::bindings::pattern_bindings(pattern, &mut bindings);
            names.extend(bindings.into_iter().map(|binding| (binding.ident, binding.mutable)));
        }
    }
    names
}

/// Pattern parameters whose pattern borrows from them (`ref mut x: D`): the hidden parameter
/// the pattern binds from lives in place.
fn pattern_params_in_place(params: &[crate::func::Param]) -> Vec<String> {
    params
        .iter()
        .filter(|param| {
            param.pattern.as_ref().is_some_and(|pattern| {
                let mut bindings = Vec::new();
                syntax::bindings::pattern_bindings(pattern, &mut bindings);
                bindings.iter().any(|binding| binding.by_ref)
            })
        })
        .map(|param| param.stub_name.to_string())
        .collect()
}

fn returns_option(output: &syn::Type) -> bool {
    matches!(output, syn::Type::Path(path) if path.qself.is_none()
        && path.path.segments.last().is_some_and(|segment| segment.ident == "Option"))
}

fn camel_case(name: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in name.trim_start_matches("r#").chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

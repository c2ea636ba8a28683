//! A `match` on a local that lives in place, by value: `match v { Some(s) => .., _ => .. }`.
//!
//! Rust moves the local's parts in the arm that binds them by value, at the binding, and in no
//! other: an arm that binds nothing (`_`, `None`, `Err(_)`), binds by reference, or only
//! copies (`Err(code)` of a `u32`) leaves the local its value, which the arm and the code after
//! it may read and which drops where the local's scope ends. Matching the place itself cannot
//! move the parts out of it (E0507, "cannot move out of a raw pointer"), and taking the whole
//! value out for every arm left the local empty where Rust had not moved it.
//!
//! So the `match` takes the value whole (`(&ByValue(v)).by_value()`: a copy of a `Copy` value),
//! each arm binds it whole under a hidden name (`__matched @ Some(_)`), and the arm begins by
//! giving the local back what Rust leaves in it:
//!
//! - an arm that binds nothing puts the value back into the place (`v.assign(__matched)`; the
//!   place is empty then, or holds the copy, which has nothing to drop);
//! - an arm that binds by reference puts it back, then matches the place again to bind the
//!   references into it;
//! - an arm that binds by value copies each binding through a reference into the value
//!   (`CopiedBinding`): where every binding is `Copy` the value goes back, as nothing moved;
//!   otherwise the bindings move out of it, and what the arm leaves of it (`Ok((s, _))`'s `_`)
//!   drops as the arm begins rather than with the local (`docs/classic-lowering.md`).
//!
//! The hidden name binds the value by move, which an `@` allows only over a pattern that binds
//! nothing: the arm's own pattern stands there with its bindings as `_`. A guard runs before
//! the arm gives the value back, so only an arm without bindings may have one, and only one that
//! does not name the local; a `match` with any other arm (a reference pattern, a macro in a
//! pattern) is written as before. An arm with bindings both by reference and by value
//! (`Tcp(ref host, port)`) binds as one by reference: from the place, `port` copied.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use super::{PlaceUse, Places, binding_names, matched_use};
use crate::classic::analyse::liveness::pattern_binds;
use crate::classic::syntax;
use crate::classic::syntax::bindings::{Binding, blank_bindings, may_bind, pattern_bindings};
use crate::classic::syntax::each_ident;
use crate::classic::syntax::mentions;

/// How one arm takes the matched value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ArmTake {
    Nothing,
    ByReference,
    ByValue,
}

/// The arms' takes, for a `match` on the local `local` with these arm patterns (each with its
/// guard): `None` where the `match` is written as before (no arm binds by value, so nothing
/// moves, or an arm does not fit, see the module's docs).
pub(crate) fn plan(local: &str, patterns: &[&syn::Pat]) -> Option<Vec<ArmTake>> {
    let takes: Option<Vec<ArmTake>> = patterns.iter().map(|pat| take(local, pat)).collect();
    takes.filter(|takes| takes.contains(&ArmTake::ByValue))
}

fn take(local: &str, pat: &syn::Pat) -> Option<ArmTake> {
    let (inner, guard) = match pat {
        syn::Pat::Guard(guarded) => (&*guarded.pat, Some(&*guarded.guard)),
        _ => (pat, None),
    };
    if !simple(inner) {
        return None;
    }
    let mut bindings = Vec::new();
    pattern_bindings(inner, &mut bindings);
    let by_reference = bindings.iter().filter(|binding| binding.by_ref).count();
    let taken = match (bindings.len(), by_reference) {
        (0, _) => ArmTake::Nothing,
        (_, 0) => ArmTake::ByValue,
        // Bindings by reference, maybe beside ones by value (`Tcp(ref host, port)`): the
        // value goes back and the arm matches its place, where a `Copy` binding by value is a
        // copy (one that is not is rustc's E0507 at the binding, as moving it beside a borrow
        // out of the place cannot be written).
        _ => ArmTake::ByReference,
    };
    match guard {
        None => Some(taken),
        Some(guard) if taken == ArmTake::Nothing && !names(guard, local) => Some(taken),
        Some(_) => None,
    }
}

/// Does `expr` name `local` anywhere (its tokens, macros included)?
fn names(expr: &syn::Expr, local: &str) -> bool {
    let mut found = false;
    each_ident(quote!(#expr), &mut |ident| found |= ident == local);
    found
}

/// A pattern the arm can be rewritten with: no reference pattern (whose meaning changes when
/// matched through a reference) and no macro.
fn simple(pat: &syn::Pat) -> bool {
    struct Check(bool);
    impl syn::visit::Visit<'_> for Check {
        fn visit_pat(&mut self, pat: &syn::Pat) {
            match pat {
                syn::Pat::Reference(_) | syn::Pat::Macro(_) | syn::Pat::Verbatim(_) | syn::Pat::Guard(_) => {
                    self.0 = false
                }
                _ => syn::visit::visit_pat(self, pat),
            }
        }
    }
    let mut check = Check(true);
    syn::visit::Visit::visit_pat(&mut check, pat);
    check.0
}

impl Places<'_> {
    /// A `match` on a local that lives in place, which takes the value whole and gives back
    /// what each arm leaves (`matched_whole`): the local's place, and how each arm takes it.
    pub(crate) fn matched_whole(&self, scrutinee: &syn::Expr, patterns: &[&syn::Pat]) -> Option<(Ident, Vec<ArmTake>)> {
        let name = Self::path_name(syntax::strip_parens(scrutinee))?;
        let local = self.lookup(&name)?;
        let takes = plan(&name, patterns)?;
        Some((local.ident.clone(), takes))
    }

    /// A `match` in code the lowering writes as it is: taken whole (`matched_whole`), or
    /// matched as a place or a value as its patterns say (`matched_use`).
    pub(super) fn rewrite_match(&mut self, node: &mut syn::ExprMatch) {
        let patterns: Vec<&syn::Pat> = node.arms.iter().map(|arm| &arm.pat).collect();
        let whole = self.matched_whole(&node.expr, &patterns);
        let usage = if whole.is_some() { PlaceUse::Value } else { matched_use(&patterns) };
        let local = local_matched(&node.expr);
        self.rewrite(&mut node.expr, usage);
        // Each arm's body runs on a path no other arm's body runs on (its guard, and those of
        // the arms before it, may have run: guards stay counted).
        let fork = self.fork(node.arms.iter().map(|arm| mentions::of_expr(&arm.body)).collect());
        for (index, arm) in node.arms.iter_mut().enumerate() {
            self.enter_path(&fork, index);
            self.with_bound(binding_names(&arm.pat), |this| {
                if let syn::Pat::Guard(guard) = &mut arm.pat {
                    this.value(&mut guard.guard);
                }
                this.value(&mut arm.body);
            });
            // The arm's own code is rewritten; what it begins with is the lowering's.
            if let Some((place, takes)) = &whole {
                // (A field of the local read after the arm's bindings: `by_value`.)
                let read_again = local.as_ref().is_some_and(|name| {
                    self.lending.fields_named_after.contains(name)
                        || (!pattern_binds(&arm.pat, name)
                            && mentions::of_expr(&arm.body).iter().any(|mention| {
                                mentions::written_name(&mention.name) == name && mention.through.is_some()
                            }))
                });
                let (pat, prologue) = arm_taking(takes[index], &arm.pat, place, read_again, self.krate);
                arm.pat = pat;
                let body = &arm.body;
                *arm.body = syn::parse_quote!({ #prologue #body });
            }
        }
        self.join(fork);
    }
}

/// The local a `match` takes whole names (`match v`), as the code names it (`self` too).
pub(crate) fn local_matched(scrutinee: &syn::Expr) -> Option<String> {
    Places::path_name(syntax::strip_parens(scrutinee))
}

/// The hidden name an arm binds the whole value under.
fn matched() -> Ident {
    Ident::new("__matched", Span::mixed_site())
}

/// The arm's pattern (`__matched @ <pattern without bindings>`, its guard kept) and the code its
/// body begins with, for the local whose place is `place`. `read_again`: code after the arm's
/// bindings may read the local (`by_value`).
pub(crate) fn arm_taking(
    take: ArmTake,
    pat: &syn::Pat,
    place: &Ident,
    read_again: bool,
    krate: &syn::Path,
) -> (syn::Pat, TokenStream) {
    let (inner, guard) = match pat {
        syn::Pat::Guard(guarded) => (&*guarded.pat, Some(guarded)),
        _ => (pat, None),
    };
    let matched = matched();
    // Every binding as `_` (`x @ sub` as `sub`), as `pattern_bindings` tells bindings apart.
    let erased = blank_bindings(inner, |ident| {
        ident.by_ref.is_some() || ident.mutability.is_some() || ident.subpat.is_some() || may_bind(ident)
    });
    let whole: syn::Pat = syn::parse_quote!(#matched @ (#erased));
    let whole = match guard {
        Some(guarded) => syn::Pat::Guard(syn::PatGuard { pat: Box::new(whole), ..guarded.clone() }),
        None => whole,
    };
    let mut bindings = Vec::new();
    pattern_bindings(inner, &mut bindings);
    let prologue = match take {
        ArmTake::Nothing => quote!(#place.assign(#matched);),
        ArmTake::ByReference => {
            let names: Vec<&Ident> = bindings.iter().map(|binding| &binding.ident).collect();
            quote! {
                #place.assign(#matched);
                let (#(#names,)*) = match *#place.get() {
                    #inner => (#(#names,)*),
                    _ => ::core::unreachable!(),
                };
            }
        }
        ArmTake::ByValue => by_value(inner, &bindings, place, read_again, krate),
    };
    (whole, prologue)
}

/// The bindings of an arm that binds by value: copies through references into the matched
/// value where all of them are `Copy` as the arm binds them (the value then goes back into its
/// place), else moved out of it. Whether each is `Copy` is asked of the type a match of the
/// value itself gives it (`__bound`, never run: `Some(Host::Tcp(name))` on an `Option<&Host>`
/// binds a `&String`, which the probe through a reference also reads as `&String`). Where the
/// bindings move and code after them may read the local again (`read_again`), what the arm
/// leaves of it cannot go back: rustc is asked that they be `Copy`, at the arm
/// (`bindings_of_an_arm_that_moves_part_of_a_local_read_again_must_be_copy`).
fn by_value(pat: &syn::Pat, bindings: &[Binding], place: &Ident, read_again: bool, krate: &syn::Path) -> TokenStream {
    let matched = matched();
    let copies = Ident::new("__copies", Span::mixed_site());
    let bound = Ident::new("__bound", Span::mixed_site());
    let mut plain = pat.clone();
    Immutable.visit_pat_mut(&mut plain);
    let names: Vec<&Ident> = bindings.iter().map(|binding| &binding.ident).collect();
    // The copies under names of their own: a binding may have the local's name
    // (`match value { Some(value) => .. }`), which would hide its place from the arm that
    // gives the value back.
    let copied: Vec<Ident> =
        (0..names.len()).map(|index| Ident::new(&format!("__copied{index}"), Span::mixed_site())).collect();
    let declared = bindings.iter().map(|binding| {
        let ident = &binding.ident;
        if binding.mutable { quote!(mut #ident) } else { quote!(#ident) }
    });
    let indices = (0..names.len()).map(syn::Index::from);
    // The check's path and argument located at the arm's pattern (resolved as before), so
    // that rustc's error, raised where the function's generic is instantiated, is there.
    let must_be_copy = read_again.then(|| {
        let here = |span: Span| span.located_at(pat.span());
        let mut path = krate.clone();
        for segment in &mut path.segments {
            segment.ident.set_span(here(segment.ident.span()));
        }
        let private = Ident::new("__private", here(Span::call_site()));
        let check = Ident::new(
            "bindings_of_an_arm_that_moves_part_of_a_local_read_again_must_be_copy",
            here(Span::call_site()),
        );
        let bound = Ident::new("__bound", here(Span::mixed_site()));
        quote_spanned!(pat.span()=> #path::#private::#check(&#bound);)
    });
    quote! {
        #[allow(unused_mut)]
        let (#(#declared,)*) = {
            let #bound = if true {
                ::core::option::Option::None
            } else {
                ::core::option::Option::Some(match #krate::__private::matched_type_of(&#matched) {
                    #plain => (#(#names,)*),
                    _ => ::core::unreachable!(),
                })
            };
            let #copies = match &#matched {
                #plain => (#((&#krate::__private::CopiedBinding::new(#names, #bound.as_ref().map(|bound| &bound.#indices))).copied(),)*),
                _ => ::core::unreachable!(),
            };
            match #copies {
                (#(::core::option::Option::Some(#copied),)*) => {
                    #place.assign(#matched);
                    (#(#copied,)*)
                }
                // (Moved whole into the `match`, what the pattern leaves drops here, in every
                // arm alike, rather than where a state the arm's awaits end drops the arm's
                // binding.)
                _ => {
                    #must_be_copy
                    match { #matched } {
                        #plain => (#(#names,)*),
                        _ => ::core::unreachable!(),
                    }
                }
            }
        };
    }
}

/// Every binding of a pattern without `mut` (matched through a reference, it binds one).
struct Immutable;

impl VisitMut for Immutable {
    fn visit_pat_ident_mut(&mut self, ident: &mut syn::PatIdent) {
        ident.mutability = None;
        visit_mut::visit_pat_ident_mut(self, ident);
    }
}

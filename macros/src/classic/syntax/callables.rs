//! What a parameter's declared type says of calling it: one the signature declares `FnOnce` and
//! nothing less (`f: impl FnOnce() -> T`, `f: F` with `F: FnOnce(..)`, `f: Box<dyn FnOnce()>`)
//! is moved into its call, as Rust's call resolution picks `FnOnce::call_once` only when
//! neither `Fn` nor `FnMut` is known. A macro cannot otherwise tell an `FnOnce` callee from an
//! `Fn` one; for a parameter the signature answers, with no guess.

/// Whether a parameter of type `ty` in a function with `generics` is called by value.
pub(crate) fn called_by_value(ty: &syn::Type, generics: &syn::Generics) -> bool {
    match strip_groups(ty) {
        syn::Type::ImplTrait(node) => once_only(node.bounds.iter()),
        syn::Type::TraitObject(node) => once_only(node.bounds.iter()),
        syn::Type::Path(node) if node.qself.is_none() => {
            let path = &node.path;
            if let Some(ident) = path.get_ident() {
                return once_only(bounds_of(ident, generics));
            }
            // `Box<dyn FnOnce()>`: calling the box moves it (`impl FnOnce for Box<F>`).
            let last = path.segments.last();
            let boxed = last.filter(|last| last.ident == "Box").and_then(|last| match &last.arguments {
                syn::PathArguments::AngleBracketed(args) => args.args.first(),
                _ => None,
            });
            matches!(boxed, Some(syn::GenericArgument::Type(syn::Type::TraitObject(object)))
                if once_only(object.bounds.iter()))
        }
        _ => false,
    }
}

fn strip_groups(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Paren(node) => strip_groups(&node.elem),
        syn::Type::Group(node) => strip_groups(&node.elem),
        other => other,
    }
}

/// The bounds the generics put on the type parameter `ident`, inline and in the `where` clause.
fn bounds_of<'a>(ident: &'a syn::Ident, generics: &'a syn::Generics) -> impl Iterator<Item = &'a syn::TypeParamBound> {
    let inline =
        generics.type_params().filter(move |param| param.ident == *ident).flat_map(|param| param.bounds.iter());
    let predicates = generics.where_clause.iter().flat_map(|clause| clause.predicates.iter());
    let in_where = predicates
        .filter_map(move |predicate| match predicate {
            syn::WherePredicate::Type(node)
                if matches!(strip_groups(&node.bounded_ty), syn::Type::Path(path)
                    if path.qself.is_none() && path.path.is_ident(ident)) =>
            {
                Some(node.bounds.iter())
            }
            _ => None,
        })
        .flatten();
    inline.chain(in_where)
}

/// `FnOnce` among the bounds, and neither `Fn` nor `FnMut` (nor anything the macro cannot
/// read, a trait of the user's that may have either as a supertrait, is enough to doubt).
fn once_only<'a>(bounds: impl Iterator<Item = &'a syn::TypeParamBound>) -> bool {
    let mut once = false;
    for bound in bounds {
        let syn::TypeParamBound::Trait(bound) = bound else { continue };
        match bound.path.segments.last().map(|last| last.ident.to_string()).as_deref() {
            Some("FnOnce" | "AsyncFnOnce") => once = true,
            Some("Fn" | "FnMut" | "AsyncFn" | "AsyncFnMut") => return false,
            // Auto traits and the usual markers add no call: anything else might.
            Some("Send" | "Sync" | "Unpin" | "Sized" | "UnwindSafe" | "RefUnwindSafe" | "Copy" | "Clone") => {}
            _ => return false,
        }
    }
    once
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_value(signature: &str) -> Vec<bool> {
        let item: syn::ItemFn = syn::parse_str(&format!("{signature} {{}}")).unwrap();
        item.sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                syn::FnArg::Typed(typed) => Some(called_by_value(&typed.ty, &item.sig.generics)),
                syn::FnArg::Receiver(_) => None,
            })
            .collect()
    }

    #[test]
    fn only_what_the_signature_declares_fn_once_and_nothing_less() {
        assert_eq!(
            by_value("fn f(a: impl FnOnce() -> u32, b: impl Fn(), c: impl FnOnce() + Send)"),
            [true, false, true]
        );
        assert_eq!(
            by_value(
                "fn f<F: FnOnce(u8) -> Fut, G, H: FnOnce() + FnMut(), Fut>(a: F, b: G, c: H, d: Fut) where G: Send + std::ops::FnOnce()"
            ),
            [true, true, false, false]
        );
        assert_eq!(
            by_value("fn f(a: Box<dyn FnOnce() + Send>, b: Box<dyn Fn()>, c: &dyn FnOnce(), d: (F))"),
            [true, false, false, false]
        );
        // A trait of the user's may have `Fn` as a supertrait: not known to be called by value.
        assert_eq!(by_value("fn f<F: FnOnce() + MyCallable>(a: F)"), [false]);
    }
}

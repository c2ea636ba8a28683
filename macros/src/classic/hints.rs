//! The user's hints (`#[lowering(classic, moves(cmd), keeps(tx))]`, `moves(d.to_t())` for a
//! call's value, `awaits(read_exact)` and `returns(ensure)` for a macro whose expansion awaits or returns, `args::Hints`), for
//! the analyses that decide how a method call takes its receiver and for
//! `parse::awaiting_expansions`. Set for the one function being lowered (`with`), read where the decision is made
//! (`loans`, `mentions`, `places`, and `parse::lower`, which keeps a hinted call's value as the
//! method's operand rather than a temporary in place).

use std::cell::RefCell;
use std::collections::HashSet;

use syn::visit::Visit;

use crate::args::{Args, Hints};
use crate::classic::syntax;
use crate::func::Function;

thread_local! {
    static HINTS: RefCell<Hints> = RefCell::new(Hints::default());
}

/// Runs `f` with `hints` in force (the function being lowered), then clears them.
pub(crate) fn with<R>(hints: &Hints, f: impl FnOnce() -> R) -> R {
    HINTS.with(|current| *current.borrow_mut() = hints.clone());
    let result = f();
    HINTS.with(|current| *current.borrow_mut() = Hints::default());
    result
}

/// A method called on `name` (a local, or a field of one as written: `self.txn`) at its last
/// use takes it by value.
pub(crate) fn moves(name: &str) -> bool {
    let name = as_written(name);
    HINTS.with(|hints| hints.borrow().moves.iter().any(|place| place.text == name))
}

/// A method called on `name` borrows it, at its last use too.
pub(crate) fn keeps(name: &str) -> bool {
    let name = as_written(name);
    HINTS.with(|hints| hints.borrow().keeps.iter().any(|place| place.text == name))
}

/// The macro `name!`'s expansion awaits or returns in the function's context (`awaits(name)`,
/// `returns(name)`): its invocations run apart, in `async` blocks of their own.
pub(crate) fn runs_apart(name: &str) -> bool {
    HINTS.with(|hints| {
        let hints = hints.borrow();
        hints.awaits.iter().chain(&hints.returns).any(|hinted| hinted == name)
    })
}

/// The macro `name!`'s expansion may return from the function (`returns(name)`).
pub(crate) fn returns(name: &str) -> bool {
    HINTS.with(|hints| hints.borrow().returns.iter().any(|hinted| hinted == name))
}

/// Does an `awaits` or `returns` hint hold for this function?
pub(crate) fn any_expansions() -> bool {
    HINTS.with(|hints| {
        let hints = hints.borrow();
        !hints.awaits.is_empty() || !hints.returns.is_empty()
    })
}

/// A method's receiver that is a call's value (`d.to_t()` in `d.to_t().finish()`), named by a
/// `moves` hint: the method takes that temporary by value.
pub(crate) fn moves_temporary(receiver: &syn::Expr) -> bool {
    let receiver = crate::classic::syntax::strip_parens(receiver);
    if !is_call(receiver) {
        return false;
    }
    let text = call_text(receiver);
    HINTS.with(|hints| hints.borrow().moves.iter().any(|place| place.call && place.text == text))
}

/// A value a call makes, as a hint may name it: a call, a method call, an await of one, `?` on
/// one (`open().await?`).
fn is_call(expr: &syn::Expr) -> bool {
    matches!(expr, syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Await(_) | syn::Expr::Try(_))
}

/// A call as a hint names it, and as the lowering compares it with a hint: its tokens without
/// spaces (`d.to_t()`, `P::start(self.inner)`).
pub(crate) fn call_text(call: &syn::Expr) -> String {
    quote::ToTokens::to_token_stream(call).to_string().split_whitespace().collect()
}

/// A hint's place: a local (or `self`) and the fields after it (`self.txn`, `w.a.0`).
pub(crate) fn hinted_place(expr: &syn::Expr) -> Option<(proc_macro2::Ident, Vec<syn::Member>)> {
    match expr {
        syn::Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => {
            Some((path.path.get_ident()?.clone(), Vec::new()))
        }
        syn::Expr::Field(field) => {
            let (root, mut members) = hinted_place(&field.base)?;
            members.push(field.member.clone());
            Some((root, members))
        }
        _ => None,
    }
}

/// A place as a hint names it, and as the lowering compares it with a hint: the local, then its
/// members, without spaces (`cmd`, `self.txn`, `w.a.0`).
pub(crate) fn place_text(root: &str, members: &[syn::Member]) -> String {
    if members.is_empty() {
        root.to_owned()
    } else {
        format!("{root}.{}", crate::classic::syntax::members_text(members))
    }
}

/// The receiver as the user names it in a hint: `self`, where the lowering calls it by the
/// hidden local that holds it.
fn as_written(name: &str) -> &str {
    crate::classic::syntax::mentions::written_name(name)
}

/// Each hinted name is a parameter or a local of the body, each hinted call one the body calls a
/// method on: a hint about nothing is a mistake.
pub(crate) fn check(args: &Args, function: &Function) -> syn::Result<()> {
    let mut named = HashSet::new();
    struct Names<'n>(&'n mut HashSet<String>);
    impl<'ast> Visit<'ast> for Names<'_> {
        fn visit_ident(&mut self, ident: &'ast syn::Ident) {
            self.0.insert(ident.to_string());
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            syntax::each_ident(mac.tokens.clone(), &mut |ident| {
                self.0.insert(ident);
            });
            syn::visit::visit_macro(self, mac);
        }
    }
    Names(&mut named).visit_block(&function.block);
    // The calls whose values methods are called on (`d.to_t()` in `d.to_t().finish()`).
    struct Receivers<'r>(&'r mut HashSet<String>);
    impl<'ast> Visit<'ast> for Receivers<'_> {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if is_call(syntax::strip_parens(&call.receiver)) {
                self.0.insert(call_text(syntax::strip_parens(&call.receiver)));
            }
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            syntax::std_macros::visit_arguments(&mut mac.clone(), |expr| self.visit_expr(expr));
        }
    }
    let mut receivers = HashSet::new();
    Receivers(&mut receivers).visit_block(&function.block);
    for call in args.hints.moves.iter().filter(|place| place.call) {
        if !receivers.contains(&call.text) {
            return Err(syn::Error::new_spanned(
                &call.written,
                format!(
                    "`{}` is no call whose value `{}` calls a method on: a hint names the receiver as the body \
                     writes it",
                    call.text, function.sig.ident
                ),
            ));
        }
    }
    // The macros the body invokes, by name (outside closures, async blocks and items too: a
    // hint about one there is still about a macro the function has).
    let invoked = syntax::invoked_macros(|visitor| visitor.visit_block(&function.block));
    // (In the module form the hint is the module's: a function that does not invoke the macro
    // has nothing to run apart, and `module` checks that some function does.)
    let module_form = args.context != crate::args::Context::Unknown;
    for (word, name) in args
        .hints
        .awaits
        .iter()
        .map(|name| ("awaits", name))
        .chain(args.hints.returns.iter().map(|name| ("returns", name)))
    {
        if !module_form && !invoked.contains(&name.to_string()) {
            return Err(syn::Error::new(
                name.span(),
                format!(
                    "`{name}!` is no macro `{}` invokes: `{word}` names a macro of the body whose expansion {word}",
                    function.sig.ident
                ),
            ));
        }
    }
    for ident in args.hints.moves.iter().chain(&args.hints.keeps).filter(|place| !place.call).map(|place| &place.root) {
        if !named.contains(&ident.to_string()) {
            return Err(syn::Error::new(
                ident.span(),
                format!(
                    "`{ident}` is not a local of `{}`: a hint names a local the body calls a method on",
                    function.sig.ident
                ),
            ));
        }
    }
    Ok(())
}

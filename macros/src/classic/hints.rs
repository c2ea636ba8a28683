//! The user's hints (`#[lowering(classic, moves(cmd), keeps(tx))]`, `args::Hints`), for the
//! analyses that decide how a method call takes its receiver. Set for the one function being
//! lowered (`with`), read where the decision is made (`loans`, `mentions`, `places`).

use std::cell::RefCell;

use crate::args::Hints;

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
    if name == crate::classic::syntax::mentions::SELF_LOCAL { "self" } else { name }
}

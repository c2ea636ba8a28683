//! A local as the next walk of the same function finds it again.
//!
//! What one walk learned of a local (its state at a loop's head, a field of it used by value)
//! the next walk assumes. A `VarId` numbers the locals of one walk only: a walk that learned
//! more can declare a hidden value earlier than the one before it did (an inner `let` that
//! hides a local which may hold a value at a loop's head is bound through one), and every
//! local after it is renumbered. What is carried is keyed by where the local is declared
//! instead: the user's bindings by where their identifier is, the lowering's hidden values by
//! their kind (`__bound`, `__t`, without the counter in their names) and how many of that
//! kind the walk declared before.

use proc_macro2::Ident;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct VarKey {
    kind: String,
    line: usize,
    column: usize,
    /// How many locals of the same kind and place the walk declared before this one.
    occurrence: usize,
}

impl VarKey {
    /// The key of `name`, declared after `earlier`.
    pub(crate) fn new<'k>(name: &Ident, earlier: impl IntoIterator<Item = &'k VarKey>) -> VarKey {
        let text = name.to_string();
        let kind = if text.starts_with("__") { text.trim_end_matches(|c: char| c.is_ascii_digit()) } else { &text };
        let start = name.span().start();
        let mut key = VarKey { kind: kind.to_owned(), line: start.line, column: start.column, occurrence: 0 };
        key.occurrence = earlier.into_iter().filter(|other| other.same_place(&key)).count();
        key
    }

    fn same_place(&self, other: &VarKey) -> bool {
        self.kind == other.kind && self.line == other.line && self.column == other.column
    }
}

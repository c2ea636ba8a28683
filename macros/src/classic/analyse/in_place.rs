//! The one table of the locals that live in place, and why each does.
//!
//! A local lives in place when some state may end while a borrow of it is still held: it then
//! stays in its field of the pinned state machine for its whole life (`generate::places`)
//! instead of moving out of it where a state begins and back where it ends. Three parts of the
//! lowering find such locals, each from what it alone can see: the loans analysis from the
//! body's syntax before any code is written (`loans`), the signature (a parameter pattern
//! that binds by reference), and the walk that writes the states, from what it finds saved at
//! a state's end (`generate::emit`). All three write here, with a [`Reason`]; the walk reads
//! only this table to decide, and the expansion snapshots print it.

use std::collections::BTreeMap;
use std::fmt;

use proc_macro2::Ident;

/// The binding a fact is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Binding {
    /// The receiver, `self`.
    SelfValue,
    /// The binding whose identifier is at this line and column of the source: another binding
    /// of the same name (`let p = p.finish().await?;`) is another local.
    At { name: String, line: usize, column: usize },
    /// Every binding of the name: where the identifier's span carries no position, and for the
    /// parameters the stub binds under names of the lowering's own.
    Named(String),
}

impl Binding {
    /// The binding `ident` declares (or, for a mention, the one that mention means, when the
    /// caller resolved it to its declaration's identifier).
    pub(crate) fn of(ident: &Ident) -> Binding {
        let name = ident.to_string();
        let name = name.trim_start_matches("r#");
        let start = ident.span().start();
        if name == "self" || start.line == 0 {
            Binding::named(name)
        } else {
            Binding::At { name: name.to_owned(), line: start.line, column: start.column }
        }
    }

    /// Every binding of `name` (`self` is one binding).
    pub(crate) fn named(name: &str) -> Binding {
        match name.trim_start_matches("r#") {
            "self" => Binding::SelfValue,
            name => Binding::Named(name.to_owned()),
        }
    }

    /// The name the binding has in the source.
    pub(crate) fn name(&self) -> &str {
        match self {
            Binding::SelfValue => "self",
            Binding::At { name, .. } | Binding::Named(name) => name,
        }
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Binding::SelfValue => f.write_str("self"),
            Binding::At { name, line, column } => write!(f, "{name} ({line}:{column})"),
            Binding::Named(name) => write!(f, "{name} (every binding of the name)"),
        }
    }
}

/// Why a local lives in place: the first finding that put it there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reason {
    /// A value that may be held across an await borrows it (an awaited operand, a `let`'s
    /// value or an assignment's that code after an await still uses, a scrutinee whose arms
    /// await).
    HeldAcrossAwait,
    /// A closure or async block that may be held across an await captures it, by reference.
    CapturedAcrossAwait,
    /// A value stored into another local that lives across an await borrows it
    /// (`seen.push(&name)`).
    StoredAcrossAwait,
    /// A macro whose tokens await names it: its expansion may borrow it across its awaits.
    NamedByAwaitingMacro,
    /// A parameter whose pattern binds by reference (`(ref a, b): (String, u32)`).
    RefPatternParameter,
    /// A temporary the lowering hoisted out of a statement that awaits, whose awaits may hold
    /// a borrow of it (`len_of(&String::from("x")).await`).
    HoistedTemporary,
    /// Found by the walk: a field of it, or its value, moves out while the local stays declared
    /// across a state's end.
    PartlyMovedAcrossState,
    /// Found by the walk: another local saved at a state's end borrows it.
    BorrowedBySavedLocal,
    /// Found by the walk: a local that lives in place borrows it (a hoisted temporary,
    /// `__h0 = v.iter()`), which the state machine holds past this run of `move_next`.
    BorrowedByLocalInPlace,
    /// Found by the walk: a closure saved at a state's end captures it.
    CapturedBySavedClosure,
    /// Found by the walk: a `let` that hides a live local ends a state right after its
    /// initializer, whose value borrows it.
    BorrowedByHidingLet,
}

impl Reason {
    fn describe(self) -> &'static str {
        match self {
            Reason::HeldAcrossAwait => "a value held across an await borrows it",
            Reason::CapturedAcrossAwait => "a closure or async block held across an await captures it",
            Reason::StoredAcrossAwait => "a value stored into a local that lives across an await borrows it",
            Reason::NamedByAwaitingMacro => "a macro that awaits names it",
            Reason::RefPatternParameter => "a parameter pattern binds it by reference",
            Reason::HoistedTemporary => "a temporary hoisted out of a statement whose awaits may borrow it",
            Reason::PartlyMovedAcrossState => "a part of it moves out while it stays declared across a state's end",
            Reason::BorrowedBySavedLocal => "a local saved at a state's end borrows it",
            Reason::BorrowedByLocalInPlace => "a local that lives in place borrows it",
            Reason::CapturedBySavedClosure => "a closure saved at a state's end captures it",
            Reason::BorrowedByHidingLet => "a `let` that hides a live local borrows it before the state ends",
        }
    }
}

/// The locals that live in place, each with the first reason found for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeptInPlace {
    bindings: BTreeMap<Binding, Reason>,
}

impl KeptInPlace {
    /// Puts `binding` in place for `reason`, unless it already is (the first reason stays);
    /// whether it is new.
    pub(crate) fn insert(&mut self, binding: Binding, reason: Reason) -> bool {
        if self.bindings.contains_key(&binding) {
            return false;
        }
        self.bindings.insert(binding, reason);
        true
    }

    /// Why the local that `ident` declares lives in place, if it does: as that binding, or as
    /// every binding of its name.
    pub(crate) fn reason(&self, ident: &Ident) -> Option<Reason> {
        let binding = Binding::of(ident);
        self.bindings.get(&binding).copied().or_else(|| match binding {
            Binding::At { name, .. } => self.bindings.get(&Binding::Named(name)).copied(),
            _ => None,
        })
    }

    /// Does `other` put in place a binding this table does not?
    pub(crate) fn lacks_any_of(&self, other: &KeptInPlace) -> bool {
        other.bindings.keys().any(|binding| !self.bindings.contains_key(binding))
    }

    /// Adds what `other` finds (the first reason of a binding stays).
    pub(crate) fn extend(&mut self, other: KeptInPlace) {
        for (binding, reason) in other.bindings {
            self.insert(binding, reason);
        }
    }

    /// Keeps the bindings `keep` says to.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&Binding) -> bool) {
        self.bindings.retain(|binding, _| keep(binding));
    }
}

impl fmt::Display for KeptInPlace {
    /// One line per local: what the expansion snapshots print above the code.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.bindings.is_empty() {
            return writeln!(f, "in place: none");
        }
        for (binding, reason) in &self.bindings {
            writeln!(f, "in place: {binding}: {}", reason.describe())?;
        }
        Ok(())
    }
}

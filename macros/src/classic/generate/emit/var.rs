//! A local of the walk: what it is called, what it holds, where it comes from, what it
//! borrows, and what the walk learned of it so far.

use proc_macro2::{Ident, Span};

use super::VarId;
use crate::classic::analyse::in_place::Reason;
use crate::classic::syntax::mentions;

pub(crate) struct Var {
    /// What code calls it: the user's identifier, or a mixed-site one for hidden values.
    pub name: Ident,
    /// Its slot in the state machine.
    pub field: Ident,
    pub mutable: bool,
    /// Declaration order; fields are declared in reverse of it so that a state machine
    /// dropped while suspended drops its locals in reverse declaration order.
    pub seq: u32,
    pub span: Span,
    /// What it holds, as far as saving and dropping it go.
    pub holds: Holds,
    /// Where it comes from.
    pub role: Role,
    /// What a call of it does to it, where that is known.
    pub calls: Calls,
    /// What it borrows.
    pub loan: Loan,
    /// The hidden names its code uses.
    pub names: HiddenNames,
    /// Lives in place in a pinned state machine, and why (`analyse::in_place`): never saved
    /// or restored, reached through a `Place` bound under its name, dropped by a guard
    /// (`names.guard`).
    pub in_place: Option<Reason>,
    /// What the walk learned of it so far.
    pub walk: WalkState,
}

/// What a call of a local (`f(x)`) does to it, where the code or the signature says.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Calls {
    /// Nothing known: taken at its last use (maybe an `FnOnce`), left where code after names it.
    Unknown,
    /// A closure that moves nothing it captures (`mentions::closure_moves_captures`): a call
    /// leaves it in place, to drop where its scope ends.
    LeaveIt,
    /// A parameter the signature declares `FnOnce` only (`syntax::callables`): its call takes
    /// it, as Rust's does, inside a closure too.
    TakeIt,
}

/// What a local holds, as far as saving and dropping it go.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holds {
    /// A value to drop: saved at an await even where nothing reads it later.
    Owned,
    /// A shared reference or a literal: saved only when read later, never just to be dropped.
    Borrowed,
    /// A `&mut` parameter (or `&mut self`): as `Borrowed`, and an await that reborrows it
    /// cannot be saved.
    Exclusive,
}

/// Where a local comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// A `let` (or pattern) binding, or a temporary of the lowering's.
    Local,
    /// A parameter: the stub stores its value.
    Param,
    /// Receives a construct's value: read right after the construct, which `mentioned_later`
    /// cannot see.
    Sink,
}

/// What a local borrows.
#[derive(Clone, Default)]
pub(crate) struct Loan {
    /// The local it borrows (`let r = &v;`), with the borrow's span.
    pub of: Option<(VarId, Span)>,
    /// The local its initializer borrows from, through a reference too (`self.buf.iter()`
    /// for a `&mut self`): a jump that saves this variable keeps that local in place.
    pub root: Option<VarId>,
    /// The locals a closure that is not `move` captures (`let f = || mix(v, p1);`), which it
    /// may borrow: a jump that saves the closure keeps them in place too.
    pub captures: Vec<VarId>,
}

/// The hidden names of a local's code.
pub(crate) struct HiddenNames {
    /// The `Option` holding it where it is only maybe initialized.
    pub maybe: Ident,
    /// The guard that drops it where it lives in place.
    pub guard: Ident,
}

/// What the walk learned of a local so far.
#[derive(Clone, Copy, Default)]
pub(crate) struct WalkState {
    /// Ever saved: it needs a slot.
    pub slotted: bool,
    /// Hidden by a binding of a nested scope, and known by a hidden name until that scope
    /// ends (`bind_let`, `unshadow`).
    pub hidden: bool,
}

impl Var {
    /// Lives in place (`in_place`).
    pub(crate) fn lives_in_place(&self) -> bool {
        self.in_place.is_some()
    }

    /// Nothing to drop: saved only when read later.
    pub(crate) fn no_drop(&self) -> bool {
        self.holds != Holds::Owned
    }

    pub(crate) fn exclusive_ref(&self) -> bool {
        self.holds == Holds::Exclusive
    }

    pub(crate) fn param(&self) -> bool {
        self.role == Role::Param
    }

    /// A parameter (or the receiver) whose declared type is a reference, and which is not
    /// `mut` (nothing assigns it another reference): `Some(true)` for `&mut`. (A local's
    /// `Holds::Borrowed` may mean a literal; a parameter's is its type's.)
    pub(crate) fn declared_reference(&self) -> Option<bool> {
        self.declared_reference_type().filter(|_| !self.mutable)
    }

    /// A parameter (or the receiver) whose declared type is a reference, `mut` or not.
    pub(crate) fn declared_reference_type(&self) -> Option<bool> {
        let declared = self.param() || self.name == mentions::SELF_LOCAL;
        match self.holds {
            Holds::Exclusive if declared => Some(true),
            Holds::Borrowed if declared => Some(false),
            _ => None,
        }
    }

    pub(crate) fn sink(&self) -> bool {
        self.role == Role::Sink
    }

    /// A reference or a literal after all (what its initializer is says so): nothing to drop.
    pub(crate) fn holds_no_drop(&mut self) {
        if self.holds == Holds::Owned {
            self.holds = Holds::Borrowed;
        }
    }
}

//! Support for the code `#[lowering(classic)]` generates. Not a public API: names and
//! signatures change with the macro.

use std::marker::PhantomData;

pub use linkme;

pub use crate::awaiter::{AwaitAnyFuture, Awaiter, fill_awaiter, poll_awaiter};
pub use crate::builder::{start, start_pinned, start_value, start_value_pinned};
pub use crate::expansion::{Expansion, expansion};
pub use crate::join::{join, try_join};
pub use crate::record::RECORDS;
pub use crate::select::*;
pub use crate::slot::{
    ByValue, Capture, CaptureByValue, CaptureCopy, CaptureReborrow, Captured, CopiedBinding, CopyBinding, CopyFieldOut,
    CopyOut, FieldByValue, MoveBinding, MoveFieldOut, MoveOut, MovedFields, Place, ReborrowFieldOut, ReborrowOut, Slot,
    SlotGuard, bindings_of_an_arm_that_moves_part_of_a_local_read_again_must_be_copy, lend, matched_type_of,
};
pub use crate::task::cache::{CachePolicy, Cacheable, NoTable, Table};
pub use crate::task::{BodyWitness, Ctx, MoveNext, MoveNextFn};
pub use std::future::IntoFuture;
pub use std::pin::Pin;

/// Restore a value saved in a state-machine slot when the state machine resumes.
#[inline]
pub fn restore<T>(slot: &mut Option<T>) -> T {
    match slot.take() {
        Some(value) => value,
        None => {
            unreachable!("lowering: a state machine resumed without a value it saved (a bug in the classic lowering)")
        }
    }
}

/// Picks a function's [`CachePolicy`] from its return type `T`, by autoref specialisation:
/// `(&CacheProbe::<T>::NEW).policy()` resolves to [`ViaTable`] (giving [`Table`]) when
/// `T: Cacheable` and to [`ViaNoTable`] (giving [`NoTable`]) otherwise (including for a
/// generic `T`).
pub struct CacheProbe<T>(PhantomData<fn() -> T>);

impl<T> CacheProbe<T> {
    pub const NEW: Self = CacheProbe(PhantomData);
}

pub trait ViaTable<T> {
    fn policy(&self) -> Table;
}

impl<T: Cacheable> ViaTable<T> for CacheProbe<T> {
    fn policy(&self) -> Table {
        Table
    }
}

pub trait ViaNoTable<T> {
    fn policy(&self) -> NoTable;
}

impl<T> ViaNoTable<T> for &CacheProbe<T> {
    fn policy(&self) -> NoTable {
        NoTable
    }
}

/// `impl Witness + Captures<'a>`: the returned task may hold borrows of lifetime `'a`
/// (edition 2021 captures only the lifetimes an opaque type names; 2024 captures them all).
pub trait Captures<'a> {}

impl<'a, T: ?Sized> Captures<'a> for T {}

/// `impl Witness + CapturesType<Self>`: the returned task may hold borrows of the lifetimes of
/// `Self` (an `impl<'a> Selector<'a>` method taking `self`: edition 2021 captures a lifetime
/// that only `Self` names only when a bound names `Self`).
pub trait CapturesType<T: ?Sized> {}

impl<T: ?Sized, U: ?Sized> CapturesType<T> for U {}

/// The twin's stand-in for an awaited call the lowering takes for a call of the function
/// itself (`classic::twin`): a future of the call's own output, made after the call, which
/// the twin then awaits instead of the call's future (whose type is the stub's own opaque one).
pub fn awaited_call_output<F: std::future::IntoFuture>(_call: F) -> std::future::Pending<F::Output> {
    std::future::pending()
}

/// The twin (`lowering-macros`, `classic::twin`): the user's body as an `async` block, which
/// rustc type- and borrow-checks and which never runs; the stub calls this in a branch that
/// is never taken. It gives `witness` the body's type (`crate::task::witness`).
#[inline(always)]
pub fn twin<T, B: std::future::Future<Output = T>>(witness: &mut BodyWitness<B>, body: B) {
    let _ = (witness, body);
}

/// A discarded call of a function named like a standard one that never returns
/// (`resume_unwind(p);`), which the classic lowering reads as leaving the function (nothing
/// after it runs): written `match called_function_must_never_return(resume_unwind(p)) {}`, so
/// that rustc checks the call's type is `!` (a function of that name that returns is a type
/// error at the call, naming this function, never a path the lowering thought ended going on).
#[inline(always)]
pub fn called_function_must_never_return(never: std::convert::Infallible) -> std::convert::Infallible {
    never
}

/// `!` where stable Rust takes no `!`, as a type argument (`Task<!>` for an `async fn` that
/// returns `!`): the result type of a function type that returns `!`, which is `!` itself.
pub trait Returns {
    type Output;
}

impl<T> Returns for fn() -> T {
    type Output = T;
}

/// The left operand of a comparison whose right operand awaits and mentions it
/// (`c.count < c.bump(1).await`), held as Rust holds it: a primitive (built-in comparison) is
/// read before the right operand runs, an overloaded comparison borrows the place for the
/// whole expression. `(&ComparedProbe(&place)).hold()` resolves by autoref specialisation to
/// [`HoldCopy`] (a copy) when the type is `Copy`, and to [`HoldRef`] (the borrow) otherwise,
/// including for a generic type (whose comparison is always overloaded). Either way
/// `*Compared::get(&held)` is the operand.
pub struct ComparedProbe<'a, T: ?Sized>(pub &'a T);

pub trait HoldCopy<T> {
    fn hold(&self) -> Copied<T>;
}

impl<T: Copy> HoldCopy<T> for ComparedProbe<'_, T> {
    #[inline(always)]
    fn hold(&self) -> Copied<T> {
        Copied(*self.0)
    }
}

pub trait HoldRef<'a, T: ?Sized> {
    fn hold(&self) -> &'a T;
}

impl<'a, T: ?Sized> HoldRef<'a, T> for &ComparedProbe<'a, T> {
    #[inline(always)]
    fn hold(&self) -> &'a T {
        self.0
    }
}

/// A held comparison operand, copied.
pub struct Copied<T>(T);

/// A held comparison operand, copied or borrowed.
pub trait Compared {
    type Operand: ?Sized;
    fn get(&self) -> &Self::Operand;
}

impl<T> Compared for Copied<T> {
    type Operand = T;
    #[inline(always)]
    fn get(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Compared for &T {
    type Operand = T;
    #[inline(always)]
    fn get(&self) -> &T {
        self
    }
}

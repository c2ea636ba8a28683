//! Support for the code `#[lowering(classic)]` generates. Not a public API: names and
//! signatures change with the macro.

use std::marker::PhantomData;

pub use linkme;

pub use crate::awaiter::{AwaitAnyFuture, Awaiter, poll_awaiter};
pub use crate::builder::{Ctx, MoveNext, MoveNextFn, start, start_value};
pub use crate::record::RECORDS;
pub use crate::task::cache::{CachePolicy, Cacheable, NoTable, Table};

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

/// A field the classic lowering lets user code use by value (`consume(pair.a)`) before it
/// saves the whole local where a state ends (an await, a loop's head or exit): fine when the
/// field is `Copy` (it was copied), not otherwise (it moved out, and a partly moved local
/// cannot be saved). Implemented for every `Copy` type only, so that a moved field fails
/// here, at the user's field, with this message instead of a borrow error at the save.
#[diagnostic::on_unimplemented(
    message = "classic lowering: this moves a field of type `{Self}` out of a local that the state machine saves later",
    label = "moved out here; the rest of the local lives on past a later await, loop or branch",
    note = "the classic lowering saves a local whole where one state of the state machine ends (an await, a loop's head or exit, the end of a branch that awaits), and a partly moved local cannot be saved",
    note = "move the whole value apart instead (`let Pair {{ a, b }} = pair;` binds every field), or clone the field"
)]
pub trait FieldCopied {}

impl<T: Copy> FieldCopied for T {}

/// See [`FieldCopied`]; generated before the save of a local some of whose fields were used
/// by value. Compiles to nothing.
#[inline(always)]
pub fn field_copied<T: FieldCopied + ?Sized>(_: &T) {}

//! Support for the code `#[lowering(classic)]` generates. Not a public API: names and
//! signatures change with the macro.

use std::marker::PhantomData;

pub use linkme;

pub use crate::awaiter::{AwaitAnyFuture, Awaiter, poll_awaiter};
pub use crate::builder::{Ctx, MoveNext, start};
pub use crate::record::RECORDS;
pub use crate::task::cache::{CachePolicy, Cacheable};

/// Restore a value saved in a state-machine slot when the state machine resumes.
#[inline]
pub fn restore<T>(slot: &mut Option<T>) -> T {
    match slot.take() {
        Some(value) => value,
        None => unreachable!(
            "lowering: a state machine resumed without a value it saved (a bug in the classic lowering)"
        ),
    }
}

/// Picks a function's [`CachePolicy`] from its return type `T`, by autoref specialisation:
/// `(&CacheProbe::<T>::NEW).policy()` resolves to [`ViaTable`] when `T: Cacheable` and to
/// [`ViaNoTable`] otherwise (including for a generic `T`).
pub struct CacheProbe<T>(PhantomData<fn() -> T>);

impl<T> CacheProbe<T> {
    pub const NEW: Self = CacheProbe(PhantomData);
}

pub trait ViaTable<T> {
    fn policy(&self) -> CachePolicy<T>;
}

impl<T: Cacheable> ViaTable<T> for CacheProbe<T> {
    fn policy(&self) -> CachePolicy<T> {
        CachePolicy::TABLE
    }
}

pub trait ViaNoTable<T> {
    fn policy(&self) -> CachePolicy<T>;
}

impl<T> ViaNoTable<T> for &CacheProbe<T> {
    fn policy(&self) -> CachePolicy<T> {
        CachePolicy::NONE
    }
}

/// The state a `move_next` call resumes at, consumed when execution reaches that await.
///
/// Generated code asks `resume.is_in(..)` before each construct that contains awaits, to
/// skip what already ran and enter the construct holding the await it resumes at, and
/// `resume.arrive(k)` at await `k`, after which everything runs as on a fresh start.
pub struct Resume(u32);

impl Resume {
    /// The state number of a state machine that has not started yet.
    pub const START: u32 = 0;
    /// The state number while `move_next` runs.
    pub const RUNNING: u32 = u32::MAX;

    /// Read the saved state and mark the state machine as running.
    #[inline(always)]
    pub fn enter(state: &mut u32) -> Self {
        let resume = Resume(*state);
        *state = Self::RUNNING;
        resume
    }

    /// Is this call resuming at one of `states`?
    #[inline(always)]
    pub fn is_in(&self, states: &[u32]) -> bool {
        states.contains(&self.0)
    }

    /// Is this call resuming at await `state`? If so, the resumption is complete: from here
    /// on, code runs as it does on a fresh start.
    #[inline(always)]
    pub fn arrive(&mut self, state: u32) -> bool {
        let arrived = self.0 == state;
        if arrived {
            self.0 = Self::START;
        }
        arrived
    }
}

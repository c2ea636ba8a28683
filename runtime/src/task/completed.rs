//! The task object of a call that completed synchronously.
//!
//! A classic call that never suspends still hands back a heap task (C#'s `Task<T>` object,
//! allocated by `AsyncTaskMethodBuilder<T>.SetResult`), unless its result is cached. The
//! object holds only the outcome: the state machine stayed on the caller's stack and is
//! already gone, so this allocation is smaller than the box of a suspended call.
//!
//! The outcome is written once, before the object is shared, and never changes while
//! several handles see it: the last handle moves it out (it owns the object by then), the
//! others copy it. No lock is needed for that, and none is paid on every synchronous call.

use std::mem;
use std::ptr;
use std::sync::Arc;
use std::sync::atomic::{AtomicPtr, Ordering};

use super::outcome::Outcome;

pub(crate) struct Completed<T> {
    outcome: Outcome<T>,
    /// The `fn(&T) -> T` that copies the value for every handle but the last, set by the
    /// first `Task::clone` (null until then: a task nobody cloned is never copied).
    clone_value: AtomicPtr<()>,
}

// SAFETY: through `&Completed`, other threads read the value only (`T: Sync`, copied by the
// clone function, which needs `T: Clone` to exist) and a panic payload only through
// `Outcome::share`, which calls its `type_id` and reads it as a `&'static str` or a
// `String`, both `Sync`. The payload is otherwise touched by the last handle alone, which
// owns the object (`Arc::try_unwrap`).
unsafe impl<T: Send + Sync> Sync for Completed<T> {}

impl<T> Completed<T> {
    pub(crate) fn new(outcome: Outcome<T>) -> Arc<Self> {
        Arc::new(Completed { outcome, clone_value: AtomicPtr::new(ptr::null_mut()) })
    }

    /// Remember how to copy the result, for a handle that is about to be duplicated.
    pub(crate) fn allow_sharing(&self, clone: fn(&T) -> T) {
        let _ =
            self.clone_value.compare_exchange(ptr::null_mut(), clone as *mut (), Ordering::AcqRel, Ordering::Acquire);
    }

    /// The outcome for the handle that owns `this`: moved out when it is the last handle,
    /// copied otherwise.
    #[inline]
    pub(crate) fn claim(this: Arc<Self>) -> Outcome<T> {
        match Arc::try_unwrap(this) {
            Ok(only) => only.outcome,
            Err(shared) => Self::copy(&shared),
        }
    }

    /// The outcome for one of several handles.
    #[cold]
    fn copy(shared: &Self) -> Outcome<T> {
        let clone = shared.clone_value.load(Ordering::Acquire);
        // SAFETY: a non-null pointer was stored by `allow_sharing` from a `fn(&T) -> T` of
        // this very `T`.
        let clone = (!clone.is_null()).then(|| unsafe { mem::transmute::<*mut (), fn(&T) -> T>(clone) });
        shared.outcome.share(clone)
    }
}

//! The task object of a call that completed synchronously.
//!
//! A classic call that never suspends still hands back a heap task (C#'s `Task<T>` object,
//! allocated by `AsyncTaskMethodBuilder<T>.SetResult`), unless its result is cached. The
//! object holds only the outcome: the state machine stayed on the caller's stack and is
//! already gone, so this allocation is smaller than the box of a suspended call.
//!
//! The outcome is written once, before the object is shared, and never changes while
//! several handles see it: the last handle moves it out (it owns the object by then), the
//! others copy it one at a time. Only the copies serialise (on the clone function's slot);
//! a call that completes synchronously and is awaited once (the usual case) never does.

use std::mem;
use std::ptr;
use std::sync::Arc;
use std::sync::atomic::{AtomicPtr, Ordering};

use super::outcome::Outcome;

pub(crate) struct Completed<T> {
    outcome: Outcome<T>,
    /// The `fn(&T) -> T` that copies the value for every handle but the last, set by the
    /// first `Task::clone` (null until then: a task nobody cloned is never copied). A handle
    /// copying the outcome holds it, leaving [`COPYING`] in its place: `T` need not be
    /// `Sync` (a task is `Send` when its result is), so two copies never read it at once.
    clone_value: AtomicPtr<()>,
}

/// Marks `clone_value` while a handle copies the outcome: an address no function has.
const COPYING: *mut () = std::ptr::dangling_mut::<u8>() as *mut ();

// SAFETY: through `&Completed`, the outcome is read only by `copy`, one thread at a time
// (what `Mutex<Outcome<T>>: Sync` needs, `T: Send`). The last handle moves it out once it
// owns the object (`Arc::try_unwrap`).
unsafe impl<T: Send> Sync for Completed<T> {}

impl<T> Completed<T> {
    pub(crate) fn new(outcome: Outcome<T>) -> Arc<Self> {
        Arc::new(Completed { outcome, clone_value: AtomicPtr::new(ptr::null_mut()) })
    }

    /// Remember how to copy the result, for a handle that is about to be duplicated.
    pub(crate) fn allow_sharing(&self, clone: fn(&T) -> T) {
        // Fails when a function is there already (or a copy holds it, which implies one).
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
        // Take the clone function out of its slot, waiting while another copy holds it.
        let held = loop {
            let held = shared.clone_value.swap(COPYING, Ordering::Acquire);
            if held != COPYING {
                break held;
            }
            std::thread::yield_now();
        };
        // Put it back even if copying panics (a user's `Clone`).
        struct Release<'a>(&'a AtomicPtr<()>, *mut ());
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.store(self.1, Ordering::Release);
            }
        }
        let _release = Release(&shared.clone_value, held);
        // SAFETY: a pointer other than null and `COPYING` was stored by `allow_sharing` from
        // a `fn(&T) -> T` of this very `T`.
        let clone = (!held.is_null()).then(|| unsafe { mem::transmute::<*mut (), fn(&T) -> T>(held) });
        shared.outcome.share(clone)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use crate::Task;

    fn is_send<X: Send>() {}

    #[test]
    fn a_task_is_send_when_its_result_is_send_even_if_not_sync() {
        // `Cell` is `Send` and not `Sync`: the completed task's copies are serialised, so the
        // handle still moves between threads, as the model says (`Send` exactly when the
        // state machine and the result are).
        is_send::<Task<Cell<u32>>>();
    }
}

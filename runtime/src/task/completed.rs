//! The task object of a call that completed synchronously.
//!
//! A classic call that never suspends still hands back a heap task (C#'s `Task<T>` object,
//! allocated by `AsyncTaskMethodBuilder<T>.SetResult`), unless its result is cached. The
//! object holds only the outcome: the state machine stayed on the caller's stack and is
//! already gone, so this allocation is smaller than the box of a suspended call.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::outcome::Outcome;

pub(crate) struct Completed<T> {
    outcome: Mutex<Option<Outcome<T>>>,
    clone_value: OnceLock<fn(&T) -> T>,
}

impl<T> Completed<T> {
    pub(crate) fn new(outcome: Outcome<T>) -> Arc<Self> {
        Arc::new(Completed { outcome: Mutex::new(Some(outcome)), clone_value: OnceLock::new() })
    }

    /// Remember how to copy the result, for a handle that is about to be duplicated.
    pub(crate) fn allow_sharing(&self, clone: fn(&T) -> T) {
        let _ = self.clone_value.set(clone);
    }

    /// The outcome for the handle that owns `this`: moved out when it is the last handle,
    /// copied otherwise.
    pub(crate) fn claim(this: Arc<Self>) -> Outcome<T> {
        match Arc::try_unwrap(this) {
            Ok(only) => only
                .outcome
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .expect("a completed task holds its outcome until its last handle claims it"),
            Err(shared) => {
                let outcome = shared.outcome.lock().unwrap_or_else(PoisonError::into_inner);
                outcome
                    .as_ref()
                    .expect("a completed task holds its outcome until its last handle claims it")
                    .share(shared.clone_value.get().copied())
            }
        }
    }
}

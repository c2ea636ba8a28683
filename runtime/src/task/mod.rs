//! [`Task`]: what every classic call returns.
//!
//! A task is a handle to the outcome of one call, in one of three shapes:
//!
//! | shape | when | allocation |
//! |---|---|---|
//! | cached | completed synchronously with a result from [`cache`]'s table | none |
//! | completed | completed synchronously with any other result, or panicked | one small object holding the outcome |
//! | suspended | `move_next` returned `Pending` at least once | one box holding the state machine, the header and later the outcome |
//!
//! Handles are cheap to clone when `T: Clone`; every clone can be awaited (C#'s shared
//! `Task<T>`), and each awaiter gets the value, or the stored panic raised again.

pub mod cache;
mod completed;
pub(crate) mod core;
pub(crate) mod header;
mod lock;
mod outcome;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use self::cache::{CachePolicy, CachedRef};
use self::completed::Completed;
use self::core::{Claimed, Core};
pub use self::lock::{Lock, LockGuard};
pub use self::outcome::SharedPanic;
use self::outcome::{Outcome, PanicPayload};

/// The result of calling a `#[lowering(classic)]` function: a shareable, awaitable handle to
/// its outcome (C#'s `Task<T>`).
///
/// `S` is the function's state-machine type, named only so that the task is `Send` exactly
/// when the state machine is: the macro spells it `impl StateMachine`, so callers write
/// `Task<T, impl StateMachine>` or let it be inferred.
///
/// A task implements [`Future`] (it is `Unpin`), so any executor and any plain `async` code
/// can await it; classic state machines await it through a continuation instead (see
/// [`header`](self::header)'s scheduling model).
#[must_use = "a classic call has already run up to its first suspension; dropping the task cancels the rest"]
pub struct Task<T, S = ()> {
    repr: Repr<T, S>,
}

// Two words: the synchronous paths move tasks in and out of awaiter slots on every level.
enum Repr<T, S> {
    Cached(CachedRef<T>),
    Completed(Arc<Completed<T>>),
    /// The heap task, and the waiter this handle registered there (withdrawn when the handle
    /// is dropped).
    Suspended(Arc<Core<T, S>>, Option<u32>),
    /// Polled to completion as a future; nothing left.
    Consumed,
}

/// Implemented by every state machine the classic lowering generates (a marker: the macro
/// names the state-machine type of a task as `impl StateMachine`).
pub trait StateMachine {}

impl StateMachine for () {}

impl<T, S> Task<T, S> {
    /// A call that completed synchronously with `value`: a cached task when the policy has
    /// one for it, otherwise one allocation.
    #[inline]
    pub(crate) fn from_value(value: T, cache: impl CachePolicy<T>) -> Self {
        let value = match cache.lookup(value) {
            Ok(cached) => return Task { repr: Repr::Cached(cached) },
            Err(value) => value,
        };
        Task { repr: Repr::Completed(Completed::new(Outcome::Value(value))) }
    }

    /// A call whose `move_next` panicked before its first suspension.
    pub(crate) fn from_panic(payload: PanicPayload) -> Self {
        Task { repr: Repr::Completed(Completed::new(Outcome::Panic(payload))) }
    }

    pub(crate) fn from_core(core: Arc<Core<T, S>>) -> Self {
        Task { repr: Repr::Suspended(core, None) }
    }

    /// Has the call finished (with a value or a panic)?
    pub fn is_completed(&self) -> bool {
        match &self.repr {
            Repr::Cached(_) | Repr::Completed(_) | Repr::Consumed => true,
            Repr::Suspended(core, _) => core.is_completed(),
        }
    }

    /// Did the call complete synchronously with a cached result (so that it allocated nothing)?
    pub fn is_cached(&self) -> bool {
        matches!(self.repr, Repr::Cached(_))
    }

    /// Did the call suspend at least once (so that its state machine was moved to the heap)?
    pub fn has_suspended(&self) -> bool {
        matches!(self.repr, Repr::Suspended(..))
    }

    /// Nothing to drop: consumed, or a reference to a cached value (the awaiter's
    /// `poll_slot` forgets such a handle instead of running its drop glue).
    #[inline]
    pub(crate) fn holds_nothing(&self) -> bool {
        matches!(self.repr, Repr::Cached(_) | Repr::Consumed)
    }

    /// Poll from a classic state machine (the awaiter side; see `crate::awaiter`). The
    /// synchronous shapes are inlined into the awaiting `move_next`; a suspended task's
    /// protocol is a call of its own.
    #[inline]
    pub(crate) fn poll_from_state_machine(&mut self, ctx: &mut crate::builder::Ctx<'_>) -> Poll<T> {
        match &self.repr {
            Repr::Cached(cached) => Poll::Ready(cached.value()),
            Repr::Completed(_) => Poll::Ready(self.take_completed().into_value()),
            Repr::Suspended(..) | Repr::Consumed => self.poll_suspended_from_state_machine(ctx),
        }
    }

    // Inlined: the protocol is `Core`'s calls; what is left here is a few moves, which as a
    // call of their own cost a frame per level on a suspending chain.
    #[inline]
    fn poll_suspended_from_state_machine(&mut self, ctx: &mut crate::builder::Ctx<'_>) -> Poll<T> {
        let Repr::Suspended(core, key) = &mut self.repr else { panic!("`Task` polled after it completed") };
        let polled = match (core.try_claim(key), ctx.this()) {
            (Some(claimed), _) => Poll::Ready(claimed),
            // Still on the caller's stack: only a completed task can be consumed; otherwise
            // the builder must box the awaiting state machine first.
            (None, None) => Poll::Pending,
            (None, Some(parent)) => core.poll_from_parent(key, parent),
        };
        polled.map(|claimed| self.settle(claimed).into_value())
    }

    /// The outcome of a claim; a handle that gave up its share with it (the last one) keeps
    /// nothing but its reference to the allocation, released here.
    #[inline]
    fn settle(&mut self, claimed: Claimed<T>) -> Outcome<T> {
        if claimed.released {
            // Replacing the representation drops the `Arc` without `Task::drop`'s release.
            self.repr = Repr::Consumed;
        }
        claimed.outcome
    }

    #[inline]
    fn take_completed(&mut self) -> Outcome<T> {
        let Repr::Completed(completed) = std::mem::replace(&mut self.repr, Repr::Consumed) else {
            unreachable!("called on a completed task")
        };
        Completed::claim(completed)
    }
}

impl<T, S> Future for Task<T, S> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        let outcome = match &mut this.repr {
            Repr::Cached(cached) => {
                let value = cached.value();
                this.repr = Repr::Consumed;
                return Poll::Ready(value);
            }
            Repr::Completed(_) => this.take_completed(),
            Repr::Suspended(core, key) => match core.poll_as_future(key, cx) {
                Poll::Ready(claimed) => {
                    let outcome = this.settle(claimed);
                    this.release();
                    outcome
                }
                Poll::Pending => return Poll::Pending,
            },
            Repr::Consumed => panic!("`Task` polled after it completed"),
        };
        Poll::Ready(outcome.into_value())
    }
}

impl<T, S> Task<T, S> {
    /// Give up this handle's share of a suspended task (its waiter and its count).
    #[inline]
    fn release(&mut self) {
        // Only a suspended task has a share to give up; the others drop their `Arc` as fields.
        if matches!(self.repr, Repr::Suspended(..)) {
            self.release_suspended();
        }
    }

    #[cold]
    fn release_suspended(&mut self) {
        if let Repr::Suspended(core, key) = std::mem::replace(&mut self.repr, Repr::Consumed) {
            if let Some(key) = key {
                core.withdraw(key);
            }
            core.drop_handle();
        }
    }
}

impl<T, S> Drop for Task<T, S> {
    #[inline]
    fn drop(&mut self) {
        self.release();
    }
}

impl<T: Clone, S> Clone for Task<T, S> {
    /// Another handle to the same call; each handle can be awaited once.
    fn clone(&self) -> Self {
        let repr = match &self.repr {
            Repr::Cached(cached) => Repr::Cached(cached.clone()),
            Repr::Completed(completed) => {
                completed.allow_sharing(T::clone);
                Repr::Completed(Arc::clone(completed))
            }
            Repr::Suspended(core, _) => {
                core.add_handle(T::clone);
                Repr::Suspended(Arc::clone(core), None)
            }
            Repr::Consumed => Repr::Consumed,
        };
        Task { repr }
    }
}

impl<T, S> fmt::Debug for Task<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = match &self.repr {
            Repr::Cached(_) => "cached",
            Repr::Completed(_) => "completed",
            Repr::Suspended(core, _) if core.is_completed() => "suspended, now completed",
            Repr::Suspended(..) => "suspended",
            Repr::Consumed => "consumed",
        };
        f.debug_struct("Task").field("shape", &shape).finish()
    }
}

//! A task handle without its witness: what [`super::Task`] wraps and awaiters hold.
//!
//! All the code of a task handle lives here, generic over the result type only, so that
//! every awaiter of a `Task<u64>` shares one copy of it whatever function made the task.

use std::sync::Arc;
use std::task::Poll;

use super::cache::{CachePolicy, CachedRef};
use super::completed::Completed;
use super::header::Ctx;
use super::heap::{Claimed, HeapRef};
use super::outcome::{Outcome, PanicPayload};

pub(crate) struct Handle<T> {
    pub(super) repr: Repr<T>,
}

// Two words: the synchronous paths move tasks in and out of awaiter slots on every level.
pub(super) enum Repr<T> {
    Cached(CachedRef<T>),
    Completed(Arc<Completed<T>>),
    /// The heap task, and the waiter this handle registered there (withdrawn when the handle
    /// is dropped).
    Suspended(HeapRef<T>, Option<u32>),
    /// Polled to completion as a future; nothing left.
    Consumed,
}

impl<T> Handle<T> {
    #[inline]
    fn new(repr: Repr<T>) -> Self {
        Handle { repr }
    }

    /// A call that completed synchronously with `value`: a cached task when the policy has
    /// one for it, otherwise one allocation.
    #[inline]
    pub(crate) fn from_value(value: T, cache: impl CachePolicy<T>) -> Self {
        let value = match cache.lookup(value) {
            Ok(cached) => return Handle::new(Repr::Cached(cached)),
            Err(value) => value,
        };
        Handle::new(Repr::Completed(Completed::new(Outcome::Value(value))))
    }

    /// A call that finished during its eager start: with its value (cached when the policy
    /// has it), or with the panic its `move_next` raised. Inlined into the builder: the
    /// synchronous completion of every level of a chain goes through it.
    #[inline]
    pub(crate) fn finished(polled: Result<Poll<T>, PanicPayload>, cache: impl CachePolicy<T>) -> Self {
        match polled {
            Ok(Poll::Ready(value)) => Handle::from_value(value, cache),
            Err(payload) => Handle::from_panic(payload),
            Ok(Poll::Pending) => unreachable!("lowering: a pending call was taken for a finished one"),
        }
    }

    /// A call whose `move_next` panicked before its first suspension.
    #[cold]
    pub(crate) fn from_panic(payload: PanicPayload) -> Self {
        Handle::new(Repr::Completed(Completed::new(Outcome::Panic(payload))))
    }

    /// A call that suspended: the handle of its heap task.
    pub(crate) fn from_heap(task: HeapRef<T>) -> Self {
        Handle::new(Repr::Suspended(task, None))
    }

    pub(crate) fn is_completed(&self) -> bool {
        match &self.repr {
            Repr::Cached(_) | Repr::Completed(_) | Repr::Consumed => true,
            Repr::Suspended(core, _) => core.is_completed(),
        }
    }

    pub(crate) fn is_cached(&self) -> bool {
        matches!(self.repr, Repr::Cached(_))
    }

    pub(crate) fn has_suspended(&self) -> bool {
        matches!(self.repr, Repr::Suspended(..))
    }

    pub(crate) fn shape(&self) -> &'static str {
        match &self.repr {
            Repr::Cached(_) => "cached",
            Repr::Completed(_) => "completed",
            Repr::Suspended(core, _) if core.is_completed() => "suspended, now completed",
            Repr::Suspended(..) => "suspended",
            Repr::Consumed => "consumed",
        }
    }

    /// Nothing to drop: consumed, or a reference to a cached value (the awaiter's
    /// `poll_slot` forgets such a handle instead of running its drop glue).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn holds_nothing(&self) -> bool {
        matches!(self.repr, Repr::Cached(_) | Repr::Consumed)
    }

    /// Poll from a classic state machine (the awaiter side; see `crate::awaiter`). The
    /// synchronous shapes are inlined into the awaiting `move_next`; a suspended task's
    /// protocol is a call of its own. Always inlined in optimized builds, as the awaiter's
    /// `poll_slot` is.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn poll_from_state_machine(&mut self, ctx: &mut Ctx<'_>) -> Poll<T> {
        match &self.repr {
            Repr::Cached(cached) => Poll::Ready(cached.value()),
            Repr::Completed(_) => Poll::Ready(self.take_completed().into_value()),
            Repr::Suspended(..) | Repr::Consumed => self.poll_suspended_from_state_machine(ctx),
        }
    }

    // Inlined: the protocol is `HeapRef`'s calls; what is left here is a few moves, which as a
    // call of their own cost a frame per level on a suspending chain.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn poll_suspended_from_state_machine(&mut self, ctx: &mut Ctx<'_>) -> Poll<T> {
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
    pub(super) fn settle(&mut self, claimed: Claimed<T>) -> Outcome<T> {
        if claimed.released {
            // Replacing the representation drops the reference without `Handle::drop`'s
            // release of the share.
            self.repr = Repr::Consumed;
        }
        claimed.outcome
    }

    #[inline]
    pub(super) fn take_completed(&mut self) -> Outcome<T> {
        let Repr::Completed(completed) = std::mem::replace(&mut self.repr, Repr::Consumed) else {
            unreachable!("called on a completed task")
        };
        Completed::claim(completed)
    }

    /// Give up this handle's share of a suspended task (its waiter and its count).
    #[inline]
    pub(super) fn release(&mut self) {
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

impl<T> Drop for Handle<T> {
    #[inline]
    fn drop(&mut self) {
        self.release();
    }
}

impl<T: Clone> Clone for Handle<T> {
    fn clone(&self) -> Self {
        let repr = match &self.repr {
            Repr::Cached(cached) => Repr::Cached(cached.clone()),
            Repr::Completed(completed) => {
                completed.allow_sharing(T::clone);
                Repr::Completed(Arc::clone(completed))
            }
            Repr::Suspended(core, _) => {
                core.add_handle(T::clone);
                Repr::Suspended(core.share(), None)
            }
            Repr::Consumed => Repr::Consumed,
        };
        Handle::new(repr)
    }
}

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
pub(crate) mod context;
pub(crate) mod core;
pub(crate) mod header;
pub(crate) mod heap;
mod lock;
mod outcome;
mod witness;

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use self::cache::{CachePolicy, CachedRef};
use self::completed::Completed;
pub use self::context::{Ctx, MoveNext};
use self::heap::{Claimed, HeapRef};
pub use self::lock::{Lock, LockGuard};
pub use self::outcome::SharedPanic;
use self::outcome::{Outcome, PanicPayload};
pub use self::witness::{BodyWitness, Witness};

/// The result of calling a `#[lowering(classic)]` function: a shareable, awaitable handle to
/// its outcome (C#'s `Task<T>`).
///
/// `W` is the function's [`Witness`]: a zero-sized type that stands for the body of the
/// function as rustc sees it, so that the task is `Send` and `Sync` exactly when the plain
/// `async fn`'s future would be (and `T` is `Send`). The macro spells it `impl Witness`, so
/// callers write `Task<T, impl Witness>` or let it be inferred. The state machine's own type
/// appears nowhere in the task's: a caller that holds a callee's task does not contain the
/// callee's state machine, as in C#, where a `Task<TResult>` is not generic over the state
/// machine that completes it.
///
/// A task implements [`Future`] (it is `Unpin`), so any executor and any plain `async` code
/// can await it; classic state machines await it through a continuation instead (see
/// [`header`](self::header)'s scheduling model).
#[must_use = "a classic call has already run up to its first suspension; dropping the task cancels the rest"]
pub struct Task<T, W = ()> {
    repr: Repr<T>,
    witness: PhantomData<W>,
}

// SAFETY: what a task shares between threads is its outcome (`T: Send`; copies of it are
// serialised, see `completed`) and its heap box, whose state machine runs on whichever thread
// drives its root: `W: Send` says the state machine may move between threads. The classic
// state machine holds, at any suspension, the values the plain `async fn` holds there (the
// lowering keeps Rust's drop order and scopes; a local it keeps in place but which Rust has
// moved out is an empty slot), so it is `Send` whenever the plain future, whose auto traits
// `W` has, is. A shared `&Task` gives nothing but clones of the handle, hence the same
// bounds for `Sync`.
unsafe impl<T: Send, W: Send> Send for Task<T, W> {}
unsafe impl<T: Send, W: Send> Sync for Task<T, W> {}

// Nothing of a task is pinned: the heap box never moves, whatever moves the handle.
impl<T, W> Unpin for Task<T, W> {}

// Two words: the synchronous paths move tasks in and out of awaiter slots on every level.
enum Repr<T> {
    Cached(CachedRef<T>),
    Completed(Arc<Completed<T>>),
    /// The heap task, and the waiter this handle registered there (withdrawn when the handle
    /// is dropped).
    Suspended(HeapRef<T>, Option<u32>),
    /// Polled to completion as a future; nothing left.
    Consumed,
}

impl<T, W> Task<T, W> {
    /// A call that completed synchronously with `value`: a cached task when the policy has
    /// one for it, otherwise one allocation.
    #[inline]
    pub(crate) fn from_value(value: T, cache: impl CachePolicy<T>) -> Self {
        let value = match cache.lookup(value) {
            Ok(cached) => return Task::new(Repr::Cached(cached)),
            Err(value) => value,
        };
        Task::new(Repr::Completed(Completed::new(Outcome::Value(value))))
    }

    /// A call whose `move_next` panicked before its first suspension.
    pub(crate) fn from_panic(payload: PanicPayload) -> Self {
        Task::new(Repr::Completed(Completed::new(Outcome::Panic(payload))))
    }

    /// A call that suspended: the handle of its heap task.
    pub(crate) fn from_heap(task: HeapRef<T>) -> Self {
        Task::new(Repr::Suspended(task, None))
    }

    #[inline]
    fn new(repr: Repr<T>) -> Self {
        Task { repr, witness: PhantomData }
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
    pub(crate) fn poll_from_state_machine(&mut self, ctx: &mut Ctx<'_>) -> Poll<T> {
        match &self.repr {
            Repr::Cached(cached) => Poll::Ready(cached.value()),
            Repr::Completed(_) => Poll::Ready(self.take_completed().into_value()),
            Repr::Suspended(..) | Repr::Consumed => self.poll_suspended_from_state_machine(ctx),
        }
    }

    // Inlined: the protocol is `HeapRef`'s calls; what is left here is a few moves, which as a
    // call of their own cost a frame per level on a suspending chain.
    #[inline]
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

impl<T, W> Future for Task<T, W> {
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

impl<T, W> Task<T, W> {
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

impl<T, W> Drop for Task<T, W> {
    #[inline]
    fn drop(&mut self) {
        self.release();
    }
}

impl<T: Clone, W> Clone for Task<T, W> {
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
                Repr::Suspended(core.share(), None)
            }
            Repr::Consumed => Repr::Consumed,
        };
        Task::new(repr)
    }
}

impl<T, W> fmt::Debug for Task<T, W> {
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

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
mod handle;
pub(crate) mod header;
pub(crate) mod heap;
mod lock;
mod outcome;
mod schedule;
mod witness;

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

pub(crate) use self::handle::Handle;
use self::handle::Repr;
pub use self::header::{Ctx, MoveNext, MoveNextFn};
pub use self::lock::{Lock, LockGuard};
pub(crate) use self::outcome::PanicPayload;
pub use self::outcome::SharedPanic;
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
/// machine that completes it. Only the witness is per function; every other piece of a task's
/// code (awaiting it, dropping it) is generic over its result type alone.
///
/// A task implements [`Future`] (it is `Unpin`), so any executor and any plain `async` code
/// can await it; classic state machines await it through a continuation instead (see
/// `schedule`'s scheduling model).
#[must_use = "a classic call has already run up to its first suspension; dropping the task cancels the rest"]
pub struct Task<T, W = ()> {
    handle: Handle<T>,
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

impl<T, W> Task<T, W> {
    #[inline]
    pub(crate) fn from_handle(handle: Handle<T>) -> Self {
        Task { handle, witness: PhantomData }
    }

    /// The handle without its witness: what awaiters hold (`crate::awaiter`).
    #[inline]
    pub(crate) fn into_handle(self) -> Handle<T> {
        self.handle
    }

    /// Has the call finished (with a value or a panic)?
    #[inline]
    pub fn is_completed(&self) -> bool {
        self.handle.is_completed()
    }

    /// Did the call complete synchronously with a cached result (so that it allocated nothing)?
    #[inline]
    pub fn is_cached(&self) -> bool {
        self.handle.is_cached()
    }

    /// Did the call suspend at least once (so that its state machine was moved to the heap)?
    #[inline]
    pub fn has_suspended(&self) -> bool {
        self.handle.has_suspended()
    }
}

impl<T, W> Future for Task<T, W> {
    type Output = T;

    // Written here rather than as a call of the handle's: a task polled by plain code (the
    // root of a chain) is below every resumed classic task's frames (D3).
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let handle = &mut self.get_mut().handle;
        let outcome = match &mut handle.repr {
            Repr::Cached(cached) => {
                let value = cached.value();
                handle.repr = Repr::Consumed;
                return Poll::Ready(value);
            }
            Repr::Completed(_) => handle.take_completed(),
            Repr::Suspended(core, key) => match core.poll_as_future(key, cx) {
                Poll::Ready(claimed) => {
                    let outcome = handle.settle(claimed);
                    handle.release();
                    outcome
                }
                Poll::Pending => return Poll::Pending,
            },
            Repr::Consumed => panic!("`Task` polled after it completed"),
        };
        Poll::Ready(outcome.into_value())
    }
}

impl<T: Clone, W> Clone for Task<T, W> {
    /// Another handle to the same call; each handle can be awaited once.
    #[inline]
    fn clone(&self) -> Self {
        Task::from_handle(self.handle.clone())
    }
}

impl<T, W> fmt::Debug for Task<T, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task").field("shape", &self.handle.shape()).finish()
    }
}

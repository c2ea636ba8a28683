//! Awaiters: what a classic state machine keeps in an awaiter slot (C#'s `TaskAwaiter`).
//!
//! The generated code turns `operand.await` into `operand.__lowering_awaiter()`, stores the
//! result in the slot of that await, and polls it with [`poll_awaiter`]. Method resolution
//! picks the awaiter:
//!
//! - [`crate::Task`] (and the other `lowering` awaitables) have an inherent
//!   `__lowering_awaiter`, which wins: a completed task is consumed on the caller's stack
//!   (C#'s `IsCompleted` fast path) and an incomplete one registers the awaiting state
//!   machine as its continuation.
//! - Every other [`IntoFuture`] goes through the [`AwaitAnyFuture`] blanket trait: a
//!   [`FutureAwaiter`], polled with the running task's waker once the state machine is in its
//!   heap task.

use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::Poll;

use crate::task::{Ctx, Handle, Task};

/// One await in progress.
pub trait Awaiter {
    type Output;

    /// Try to finish the await. `Pending` on the stack means "move the state machine to the
    /// heap and ask again"; `Pending` on the heap means a waker or continuation is registered.
    fn poll_await(self: Pin<&mut Self>, ctx: &mut Ctx<'_>) -> Poll<Self::Output>;

    /// [`poll_awaiter`]'s work: poll the awaiter in `slot` and, on `Ready`, empty the slot,
    /// dropping the spent awaiter. An awaiter that knows it holds nothing once spent (a
    /// value task's inline value, moved out) overrides this to empty the slot without
    /// running its drop glue, which the optimizer otherwise calls out of line on every
    /// synchronous await.
    #[inline]
    fn poll_slot(slot: &mut Option<Self>, ctx: &mut Ctx<'_>) -> Poll<Self::Output>
    where
        Self: Sized,
    {
        let Some(awaiter) = slot.as_mut() else { unfilled_slot() };
        // SAFETY: see `poll_awaiter`; the slot's contents are never moved while pinned.
        let polled = unsafe { Pin::new_unchecked(awaiter) }.poll_await(ctx);
        if polled.is_ready() {
            *slot = None;
        }
        polled
    }
}

#[cold]
#[inline(never)]
pub(crate) fn unfilled_slot() -> ! {
    unreachable!("an awaiter slot is filled before it is polled")
}

/// The awaiter of a classic [`Task`]: its handle, and its witness.
///
/// The witness is zero-sized, but its type is what tells rustc, in the awaiting state
/// machine, what the awaited call borrows: it names the callee's body, whose type carries the
/// lifetimes of the callee's parameters (`reader.fill(&mut buffer)` borrows `reader` and
/// `buffer` for as long as the slot may hold the awaiter). rustc checks the awaiting code's
/// uses of those locals against that, as it does for a plain future held across an await; the
/// classic lowering keeps a borrowed local in place, and a borrow its analysis missed is a
/// compile error (E0505) rather than a dangling pointer. The witness names the callee's body,
/// not its state machine, so the awaiting state machine's type does not grow with the call
/// graph; all of the awaiter's code is the handle's, generic over the result type only.
pub struct TaskAwaiter<T, W> {
    task: Handle<T>,
    witness: PhantomData<W>,
}

// Nothing of it is pinned (the witness holds nothing).
impl<T, W> Unpin for TaskAwaiter<T, W> {}

impl<T, W> Task<T, W> {
    #[doc(hidden)]
    pub fn __lowering_awaiter(self) -> TaskAwaiter<T, W> {
        TaskAwaiter { task: self.into_handle(), witness: PhantomData }
    }
}

impl<T, W> Awaiter for TaskAwaiter<T, W> {
    type Output = T;

    #[inline]
    fn poll_await(self: Pin<&mut Self>, ctx: &mut Ctx<'_>) -> Poll<T> {
        // A handle is `Unpin`.
        self.get_mut().task.poll_from_state_machine(ctx)
    }

    // A task whose outcome this await claimed is usually left holding nothing (consumed, or a
    // reference to a cached value): its slot is emptied without the drop glue of
    // `Option<TaskAwaiter>`, which the optimizer calls out of line at every await. A handle
    // that still holds a share (a shared task's other handles remain) is dropped as usual.
    // Always inlined in optimized builds: one copy of this code serves every await of a
    // `Task<u64>`, so the optimizer would otherwise make it a call of its own on every level
    // of a chain. (A debug build inlines nothing else either, and each forced copy would
    // cost compile time there.)
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn poll_slot(slot: &mut Option<Self>, ctx: &mut Ctx<'_>) -> Poll<T> {
        let Some(this) = slot.as_mut() else { unfilled_slot() };
        let polled = this.task.poll_from_state_machine(ctx);
        if polled.is_ready() {
            if this.task.holds_nothing() {
                // Forgetting what owns nothing is dropping it.
                std::mem::forget(slot.take());
            } else {
                *slot = None;
            }
        }
        polled
    }
}

/// The awaiter of any other [`IntoFuture`].
pub struct FutureAwaiter<F> {
    future: F,
}

/// Resolves `operand.__lowering_awaiter()` for every `IntoFuture` without an awaiter of its own.
pub trait AwaitAnyFuture: IntoFuture + Sized {
    #[doc(hidden)]
    fn __lowering_awaiter(self) -> FutureAwaiter<Self::IntoFuture> {
        FutureAwaiter { future: self.into_future() }
    }
}

impl<F: IntoFuture> AwaitAnyFuture for F {}

impl<F: Future> Awaiter for FutureAwaiter<F> {
    type Output = F::Output;

    fn poll_await(self: Pin<&mut Self>, ctx: &mut Ctx<'_>) -> Poll<F::Output> {
        // A foreign future may be `!Unpin`: it is polled only once the state machine sits in
        // its heap task, where it never moves again.
        let Some(mut cx) = ctx.std_context() else { return Poll::Pending };
        // SAFETY: structural pinning of the only field; `FutureAwaiter` never moves it out.
        let future = unsafe { self.map_unchecked_mut(|awaiter| &mut awaiter.future) };
        future.poll(&mut cx)
    }
}

/// Put the awaiter of an await in its slot, which is empty: every await's slot is emptied when
/// its await completes (`poll_awaiter`), and the state machine is dropped whole when an
/// await does not complete. Assigning the slot would run the drop glue of the `None` it holds,
/// a call per await once the awaiter's type is shared by many functions (every
/// `TaskAwaiter<u64>`): this writes over it instead.
#[doc(hidden)]
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn fill_awaiter<A>(slot: &mut Option<A>, awaiter: A) {
    let previous = slot.replace(awaiter);
    debug_assert!(previous.is_none(), "an awaiter slot is empty when its await begins");
    // `None`, which owns nothing (were it ever not, leaking it would be safe).
    std::mem::forget(previous);
}

/// Poll the awaiter in `slot`; on `Ready`, drop it (an awaited future is dropped as soon as
/// its await completes).
///
/// The slot is pinned in place: the state machine holding it is either still on the stack,
/// where [`FutureAwaiter`] refuses to poll, or in its heap task, which never moves it. Only
/// code generated by `#[lowering(classic)]` calls this, on a slot it never moves out of.
///
/// If polling panics (an awaited task re-raising its stored panic), nothing here needs to
/// clean up: the generated code polls before it takes any local out of the state machine,
/// so the builder drops the whole state machine, and its fields drop in their declared
/// order, the awaiter in flight first, as the plain `async fn` drops its awaited future
/// before its locals.
#[doc(hidden)]
#[inline]
pub fn poll_awaiter<A: Awaiter>(slot: &mut Option<A>, ctx: &mut Ctx<'_>) -> Poll<A::Output> {
    A::poll_slot(slot, ctx)
}

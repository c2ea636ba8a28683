//! [`ValueTask`]: C#'s `ValueTask<T>`, the shape that completes synchronously without an
//! allocation.
//!
//! `#[lowering(classic, value_task)]` returns one: a call that completes synchronously hands
//! its value back inline (no task object); a call that suspends returns the heap [`Task`] it
//! needs anyway. Like C#'s, a value task is awaited once (it is not `Clone`); a panic is
//! stored in a completed task, as C# stores the exception.

use std::fmt;
use std::future::Future;
use std::mem::ManuallyDrop;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::awaiter::{Awaiter, TaskAwaiter, unfilled_slot};
use crate::task::{Ctx, Task};

/// The result of a `#[lowering(classic, value_task)]` call.
#[must_use = "a classic call has already run up to its first suspension; dropping the task cancels the rest"]
pub struct ValueTask<T, W = ()> {
    repr: Repr<T, W>,
}

enum Repr<T, W> {
    /// Completed synchronously: the value itself.
    Ready(Option<T>),
    Task(Task<T, W>),
}

// The value is never pinned: it is moved out when the task is awaited.
impl<T, W> Unpin for ValueTask<T, W> {}

impl<T, W> ValueTask<T, W> {
    pub(crate) fn ready(value: T) -> Self {
        ValueTask { repr: Repr::Ready(Some(value)) }
    }

    /// A call that finished during its eager start: the value inline, or the panic in a
    /// completed task.
    pub(crate) fn finished(polled: Result<Poll<T>, crate::task::PanicPayload>) -> Self {
        match polled {
            Ok(Poll::Ready(value)) => ValueTask::ready(value),
            Err(payload) => ValueTask::task(Task::from_handle(crate::task::Handle::from_panic(payload))),
            Ok(Poll::Pending) => unreachable!("lowering: a pending call was taken for a finished one"),
        }
    }

    pub(crate) fn task(task: Task<T, W>) -> Self {
        ValueTask { repr: Repr::Task(task) }
    }

    /// Did the call complete (synchronously, or since)?
    pub fn is_completed(&self) -> bool {
        match &self.repr {
            Repr::Ready(_) => true,
            Repr::Task(task) => task.is_completed(),
        }
    }

    /// Did the call complete synchronously with a value, allocating nothing?
    pub fn is_inline(&self) -> bool {
        matches!(self.repr, Repr::Ready(_))
    }

    #[doc(hidden)]
    pub fn __lowering_awaiter(self) -> ValueTaskAwaiter<T, W> {
        ValueTaskAwaiter { repr: self.repr_into_awaiter() }
    }

    fn repr_into_awaiter(self) -> AwaiterRepr<T, W> {
        match self.repr {
            Repr::Ready(value) => AwaiterRepr::Ready(value),
            Repr::Task(task) => AwaiterRepr::Task(ManuallyDrop::new(task.__lowering_awaiter())),
        }
    }
}

impl<T, W> Future for ValueTask<T, W> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match &mut self.get_mut().repr {
            Repr::Ready(value) => Poll::Ready(value.take().expect("`ValueTask` polled after it completed")),
            Repr::Task(task) => Pin::new(task).poll(cx),
        }
    }
}

impl<T, W> fmt::Debug for ValueTask<T, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = match &self.repr {
            Repr::Ready(_) => "inline",
            Repr::Task(_) => "task",
        };
        f.debug_struct("ValueTask").field("shape", &shape).field("completed", &self.is_completed()).finish()
    }
}

/// The awaiter of a [`ValueTask`].
pub struct ValueTaskAwaiter<T, W> {
    repr: AwaiterRepr<T, W>,
}

enum AwaiterRepr<T, W> {
    Ready(Option<T>),
    /// Dropped by `ValueTaskAwaiter`'s `Drop`, out of line: see there.
    Task(ManuallyDrop<TaskAwaiter<T, W>>),
}

// The awaiter's drop glue runs where its slot is filled and where the state machine drops,
// on every level of a synchronous value-task chain; with the task awaiter's drop inline in
// it, the optimizer calls the glue out of line. Kept out of line here, the glue is a check
// of the variant, which inlines.
impl<T, W> Drop for ValueTaskAwaiter<T, W> {
    #[inline]
    fn drop(&mut self) {
        if let AwaiterRepr::Task(awaiter) = &mut self.repr {
            drop_task_awaiter(awaiter);
        }
    }
}

#[cold]
#[inline(never)]
fn drop_task_awaiter<T, W>(awaiter: &mut ManuallyDrop<TaskAwaiter<T, W>>) {
    // SAFETY: called once, from `ValueTaskAwaiter::drop`; the field is not used again.
    unsafe { ManuallyDrop::drop(awaiter) }
}

// The task awaiter's poll is inlined into a task's awaiting `move_next` (its suspended path
// included); a value task takes it only when its call suspended, so that path stays out of
// line here and the synchronous value remains a move.
#[inline(never)]
fn poll_task_awaiter<T, W>(awaiter: &mut TaskAwaiter<T, W>, ctx: &mut Ctx<'_>) -> Poll<T> {
    Pin::new(awaiter).poll_await(ctx)
}

impl<T, W> Awaiter for ValueTaskAwaiter<T, W> {
    type Output = T;

    // Inlined into the awaiting `move_next`: a synchronous value is a move, not a call.
    #[inline]
    fn poll_await(self: Pin<&mut Self>, ctx: &mut Ctx<'_>) -> Poll<T> {
        // SAFETY: neither variant is structurally pinned (`TaskAwaiter` is `Unpin`, the value
        // is moved out).
        let this = unsafe { self.get_unchecked_mut() };
        match &mut this.repr {
            AwaiterRepr::Ready(Some(_)) => {
                let AwaiterRepr::Ready(value) = &mut this.repr else { unreachable!() };
                Poll::Ready(value.take().expect("checked above"))
            }
            AwaiterRepr::Ready(None) => awaited_twice(),
            AwaiterRepr::Task(awaiter) => poll_task_awaiter(awaiter, ctx),
        }
    }

    // The inline value leaves a spent awaiter that owns nothing: the slot is emptied without
    // the drop glue of `Option<ValueTaskAwaiter>`, which is not inlined and would otherwise
    // run on every synchronous await of a value task. A task awaiter is dropped as usual.
    #[inline]
    fn poll_slot(slot: &mut Option<Self>, ctx: &mut Ctx<'_>) -> Poll<T> {
        let Some(this) = slot.as_mut() else { unfilled_slot() };
        match &mut this.repr {
            AwaiterRepr::Ready(value) => {
                let Some(value) = value.take() else { awaited_twice() };
                // `Ready(None)` owns nothing: forgetting it is dropping it.
                std::mem::forget(slot.take());
                Poll::Ready(value)
            }
            AwaiterRepr::Task(awaiter) => {
                let polled = poll_task_awaiter(awaiter, ctx);
                if polled.is_ready() {
                    *slot = None;
                }
                polled
            }
        }
    }
}

#[cold]
fn awaited_twice() -> ! {
    panic!("`ValueTask` awaited after it completed")
}

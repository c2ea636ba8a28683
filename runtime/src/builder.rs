//! The builder: how a classic call starts (C#'s `AsyncTaskMethodBuilder<T>.Start`).
//!
//! The generated stub builds the state machine on its own stack and calls [`start`], which
//! runs `move_next` at once (eager start), before returning anything:
//!
//! - `move_next` returns `Ready`: the call completed synchronously. The state machine is
//!   dropped where it is, and the result goes into a cached task (no allocation) or a small
//!   completed task object (one allocation): C#'s `SetResult`.
//! - `move_next` panics: the panic is caught and stored in a completed task, to be raised
//!   again at each awaiter: C#'s `SetException`.
//! - `move_next` returns `Pending`: an await could not complete on the stack. The state
//!   machine moves into a heap task (C#'s boxing into `AsyncStateMachineBox`) and runs again
//!   there, so that the pending awaiter is polled in its final, pinned place and can register
//!   a waker or a continuation.
//!
//! An awaiter on the stack never polls a foreign future (it could not be moved afterwards):
//! it completes at once only when it can tell without polling (a completed [`crate::Task`],
//! a ready value task, a `lowering::leaf` primitive). Anything else moves the state machine
//! to the heap first. That is the one place where Rust's pinning changes the C# model, and it
//! costs nothing extra: the heap task is the allocation the call would make anyway.

use std::mem::ManuallyDrop;
use std::panic::{self, AssertUnwindSafe};
use std::task::{Context, Poll, Waker};

use crate::task::Task;
use crate::task::cache::CachePolicy;
use crate::task::core::Core;
use crate::task::header::CoreRef;
use crate::value_task::ValueTask;

/// A state machine's `move_next`: resume at the saved state, run to the next incomplete
/// await (`Pending`) or to the end (`Ready`).
pub type MoveNext<T, S> = fn(&mut S, &mut Ctx<'_>) -> Poll<T>;

/// Where `move_next` is running: on the caller's stack during the eager start, or in its
/// heap task.
pub struct Ctx<'run> {
    heap: Option<(&'run ManuallyDrop<CoreRef>, &'run Waker)>,
}

impl<'run> Ctx<'run> {
    fn stack() -> Self {
        Ctx { heap: None }
    }

    pub(crate) fn heap(this: &'run ManuallyDrop<CoreRef>, waker: &'run Waker) -> Self {
        Ctx { heap: Some((this, waker)) }
    }

    /// Is the state machine in its heap task (so that its awaiters are pinned)?
    pub fn is_pinned(&self) -> bool {
        self.heap.is_some()
    }

    /// The running heap task, which awaited tasks resume through their continuation.
    pub(crate) fn this(&self) -> Option<&CoreRef> {
        self.heap.map(|(this, _)| &**this)
    }

    /// A `std` context whose waker schedules the running task; `None` on the stack.
    pub fn std_context(&self) -> Option<Context<'run>> {
        self.heap.map(|(_, waker)| Context::from_waker(waker))
    }
}

/// Start a classic call: run it eagerly, then wrap what it produced in a [`Task`].
pub fn start<T, S>(state_machine: S, cache: impl CachePolicy<T>, move_next: MoveNext<T, S>) -> Task<T, S> {
    let mut state_machine = state_machine;
    let mut ctx = Ctx::stack();
    let polled = panic::catch_unwind(AssertUnwindSafe(|| move_next(&mut state_machine, &mut ctx)));
    match polled {
        Ok(Poll::Ready(value)) => {
            drop(state_machine);
            Task::from_value(value, cache)
        }
        Ok(Poll::Pending) => Task::from_core(Core::spawn(state_machine, move_next)),
        Err(payload) => {
            drop(state_machine);
            Task::from_panic(payload)
        }
    }
}

/// Start a classic `value_task` call: as [`start`], but a synchronous completion hands its
/// value back inline, allocating nothing (C#'s `AsyncValueTaskMethodBuilder<T>`).
///
/// The eager run is written out in both builders on purpose: a shared helper would add a
/// live stack frame to every classic level in debug builds, which D1/D2 report (and
/// `inspect`'s fixture test asserts).
pub fn start_value<T, S>(state_machine: S, move_next: MoveNext<T, S>) -> ValueTask<T, S> {
    let mut state_machine = state_machine;
    let mut ctx = Ctx::stack();
    let polled = panic::catch_unwind(AssertUnwindSafe(|| move_next(&mut state_machine, &mut ctx)));
    match polled {
        Ok(Poll::Ready(value)) => {
            drop(state_machine);
            ValueTask::ready(value)
        }
        Ok(Poll::Pending) => ValueTask::task(Task::from_core(Core::spawn(state_machine, move_next))),
        Err(payload) => {
            drop(state_machine);
            ValueTask::task(Task::from_panic(payload))
        }
    }
}

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
//!
//! # Pinned state machines
//!
//! A function whose awaits may hold a borrow of one of its own locals (`read(&mut buf).await`,
//! `let r = &v; f().await; r.len()`) keeps that local in place in its field, and the borrow
//! points into the state machine. Such a state machine must not move once `move_next` has run:
//! [`start_pinned`] puts it in its heap task first and runs it there, so the call allocates its
//! task even when it completes synchronously (no cached result). That is the price of holding
//! borrows across awaits in a named struct; the plain `async fn` pays nothing for it, because
//! its caller pins the whole future.

use std::panic::{self, AssertUnwindSafe};
use std::task::Poll;

use crate::task::cache::CachePolicy;
use crate::task::core;
use crate::task::{Ctx, Handle, MoveNextFn, Task};
use crate::value_task::ValueTask;

// The eager run is written out in both builders on purpose: a shared helper would add a live
// stack frame to every classic level, which D1/D2 report (and `inspect`'s fixture test
// asserts). The closure given to `catch_unwind` is one `FnOnce` call (no `FnMut` shim) and is
// unwind-safe by itself (no `AssertUnwindSafe` frame around it): it moves its captures, each
// wrapped in `AssertUnwindSafe`, into plain bindings, so that it captures them whole.

/// Start a classic call: run it eagerly, then wrap what it produced in a [`Task`]. `witness`
/// gives the task its auto traits (`crate::task::Witness`); it holds nothing.
pub fn start<T, S, W, M: MoveNextFn<T, S>>(
    witness: W,
    mut state_machine: S,
    cache: impl CachePolicy<T>,
    move_next: M,
) -> Task<T, W> {
    let _ = witness;
    let mut ctx = Ctx::stack();
    let (machine, context, next) =
        (AssertUnwindSafe(&mut state_machine), AssertUnwindSafe(&mut ctx), AssertUnwindSafe(move_next));
    let polled = panic::catch_unwind(move || {
        let (machine, context, next) = (machine, context, next);
        (next.0)(machine.0, context.0)
    });
    // A finished call's state machine is dropped at the end, where it is (the value or the
    // panic has been moved out of it by then; what is left are the locals a panic skipped).
    let handle = match polled {
        Ok(Poll::Pending) => Handle::from_heap(core::spawn(state_machine, move_next)),
        finished => Handle::finished(finished, cache),
    };
    Task::from_handle(handle)
}

/// Start a classic `value_task` call: as [`start`], but a synchronous completion hands its
/// value back inline, allocating nothing (C#'s `AsyncValueTaskMethodBuilder<T>`).
pub fn start_value<T, S, W, M: MoveNextFn<T, S>>(witness: W, mut state_machine: S, move_next: M) -> ValueTask<T, W> {
    let _ = witness;
    let mut ctx = Ctx::stack();
    let (machine, context, next) =
        (AssertUnwindSafe(&mut state_machine), AssertUnwindSafe(&mut ctx), AssertUnwindSafe(move_next));
    let polled = panic::catch_unwind(move || {
        let (machine, context, next) = (machine, context, next);
        (next.0)(machine.0, context.0)
    });
    match polled {
        Ok(Poll::Pending) => {
            ValueTask::task(Task::from_handle(Handle::from_heap(core::spawn(state_machine, move_next))))
        }
        finished => ValueTask::finished(finished),
    }
}

/// Start a classic call whose state machine holds borrows of its own fields (module docs,
/// "Pinned state machines"): it moves into its heap task before `move_next` first runs, and
/// never moves again. Still eager: `move_next` runs before this returns.
pub fn start_pinned<T, S, W, M: MoveNextFn<T, S>>(witness: W, state_machine: S, move_next: M) -> Task<T, W> {
    let _ = witness;
    Task::from_handle(Handle::from_heap(core::spawn(state_machine, move_next)))
}

/// [`start_pinned`] for a `value_task` function: the heap task is needed all the same.
pub fn start_value_pinned<T, S, W, M: MoveNextFn<T, S>>(witness: W, state_machine: S, move_next: M) -> ValueTask<T, W> {
    ValueTask::task(start_pinned(witness, state_machine, move_next))
}

//! Where a state machine's `move_next` runs: on its caller's stack during the eager start, or
//! in its heap task once it has suspended.
//!
//! The heap task ([`super::core`]) calls `move_next` with a context of the second kind; the
//! builder (`crate::builder`) with one of the first. Awaiters read it to decide whether they
//! may poll (a foreign future is only ever polled in its final, pinned place) and whom a
//! completing task resumes.

use std::mem::ManuallyDrop;
use std::task::{Context, Poll, Waker};

use super::header::CoreRef;

/// A state machine's `move_next`: resume at the saved state, run to the next incomplete
/// await (`Pending`) or to the end (`Ready`).
pub type MoveNext<T, S> = fn(&mut S, &mut Ctx<'_>) -> Poll<T>;

/// The closure the macro writes as `move_next`: non-capturing, hence zero-sized.
///
/// The builders take it as its own type rather than as a [`MoveNext`] pointer, so that the
/// eager run calls it directly: a closure coerced to a `fn` pointer is called through a
/// shim, one more live frame per classic level. The heap task's vtable calls it the same way
/// (`super::core`), without a pointer of its own.
pub trait MoveNextFn<T, S>: Fn(&mut S, &mut Ctx<'_>) -> Poll<T> + Copy {}

impl<T, S, M: Fn(&mut S, &mut Ctx<'_>) -> Poll<T> + Copy> MoveNextFn<T, S> for M {}

/// Where `move_next` is running: on the caller's stack during the eager start, or in its
/// heap task.
pub struct Ctx<'run> {
    heap: Option<(&'run ManuallyDrop<CoreRef>, &'run Waker)>,
}

impl<'run> Ctx<'run> {
    pub(crate) fn stack() -> Self {
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

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::awaiter::Awaiter;
use crate::task::Ctx;

/// Suspend once and let whoever drives the task run something else (C#'s `Task.Yield`).
///
/// The first poll wakes its own task and returns `Pending`; the second completes. Under the
/// classic lowering the wake arrives while `move_next` is running, so the task goes back to
/// its root's run queue and really reaches the executor before it resumes.
pub fn yield_now() -> Yield {
    Yield { yielded: false }
}

/// See [`yield_now`].
#[must_use = "futures do nothing unless awaited"]
#[derive(Debug)]
pub struct Yield {
    yielded: bool,
}

impl Future for Yield {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        if this.yielded {
            return Poll::Ready(());
        }
        this.yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl Yield {
    #[doc(hidden)]
    pub fn __lowering_awaiter(self) -> Self {
        self
    }
}

impl Awaiter for Yield {
    type Output = ();

    fn poll_await(self: Pin<&mut Self>, ctx: &mut Ctx<'_>) -> Poll<()> {
        // On the caller's stack a yield cannot register anything: ask to be moved to the heap,
        // and yield from there.
        let Some(mut cx) = ctx.std_context() else { return Poll::Pending };
        self.poll(&mut cx)
    }
}

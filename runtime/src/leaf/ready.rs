use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::awaiter::Awaiter;
use crate::task::Ctx;

/// A future that is already complete with `value` (C#'s `Task.FromResult`, or
/// `Task.CompletedTask` for `()`).
pub fn ready<T>(value: T) -> Ready<T> {
    Ready { value: Some(value) }
}

/// See [`ready`].
#[must_use = "futures do nothing unless awaited"]
#[derive(Debug, Clone)]
pub struct Ready<T> {
    value: Option<T>,
}

impl<T> Unpin for Ready<T> {}

impl<T> Future for Ready<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<T> {
        Poll::Ready(self.get_mut().value.take().expect("`Ready` polled after completion"))
    }
}

impl<T> Ready<T> {
    #[doc(hidden)]
    pub fn __lowering_awaiter(self) -> Self {
        self
    }
}

impl<T> Awaiter for Ready<T> {
    type Output = T;

    fn poll_await(self: Pin<&mut Self>, _: &mut Ctx<'_>) -> Poll<T> {
        Poll::Ready(self.get_mut().value.take().expect("`Ready` awaited after completion"))
    }
}

//! An ambient value that flows with an operation (C#'s `AsyncLocal<T>`).
//!
//! Rust has no execution context that flows into every async call, under either lowering,
//! so the flow is explicit: [`scope`] runs a callee with its own copy of the caller's value.
//! What the callee sets stays in its scope and does not leak to the caller, and the value a
//! scope holds is the one seen after every suspension inside it, whatever ran on the thread
//! in between. Both lowerings await the same [`Scope`] future.

use std::cell::Cell;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};

thread_local! {
    static CURRENT: Cell<Option<u64>> = const { Cell::new(None) };
}

/// The ambient value of the running scope.
pub fn get() -> Option<u64> {
    CURRENT.with(Cell::get)
}

/// Set the ambient value of the running scope.
pub fn set(value: u64) {
    CURRENT.with(|current| current.set(Some(value)));
}

/// Run the operation `call` makes in a scope that starts with the caller's value. `call`
/// runs on the scope's first poll, inside the scope, so that a classic callee's eager part
/// sees (and sets) the scope's value too.
pub fn scope<F, Fut>(call: F) -> Scope<F, Fut::IntoFuture>
where
    F: FnOnce() -> Fut,
    Fut: IntoFuture,
{
    Scope { call: Some(call), future: None, value: get() }
}

/// See [`scope`].
#[must_use = "futures do nothing unless awaited"]
pub struct Scope<F, Fut> {
    call: Option<F>,
    future: Option<Pin<Box<Fut>>>,
    /// The scope's value while it is not running.
    value: Option<u64>,
}

impl<F, Fut> Unpin for Scope<F, Fut> {}

impl<F, I> Future for Scope<F, I::IntoFuture>
where
    F: FnOnce() -> I,
    I: IntoFuture,
{
    type Output = I::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<I::Output> {
        let this = self.get_mut();
        // Enter: the scope's value becomes current; leave: it is saved back and the outer
        // value restored, also if the poll panics.
        struct Enter<'s>(&'s mut Option<u64>, Option<u64>);
        impl Drop for Enter<'_> {
            fn drop(&mut self) {
                *self.0 = CURRENT.with(|current| current.replace(self.1));
            }
        }
        let outer = CURRENT.with(|current| current.replace(this.value));
        let _enter = Enter(&mut this.value, outer);
        if let Some(call) = this.call.take() {
            this.future = Some(Box::pin(call().into_future()));
        }
        this.future.as_mut().expect("a scope's operation exists once it was polled").as_mut().poll(cx)
    }
}

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use crate::awaiter::Awaiter;
use crate::builder::Ctx;

/// A one-shot gate the caller opens (C#'s `TaskCompletionSource<T>`): awaiting it suspends
/// until [`Gate::open`] supplies the value, so a test has a definite before and after.
#[derive(Debug)]
pub struct Gate<T> {
    shared: Arc<Mutex<GateState<T>>>,
}

#[derive(Debug)]
enum GateState<T> {
    Closed { waiters: Vec<Waker> },
    Open(T),
}

impl<T> Clone for Gate<T> {
    fn clone(&self) -> Self {
        Gate { shared: Arc::clone(&self.shared) }
    }
}

impl<T: Clone> Default for Gate<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Clone> Gate<T> {
    pub fn new() -> Self {
        Gate { shared: Arc::new(Mutex::new(GateState::Closed { waiters: Vec::new() })) }
    }

    /// Open the gate: every current and future waiter gets a clone of `value`. Opening an
    /// open gate does nothing.
    pub fn open(&self, value: T) {
        let waiters = {
            let mut state = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
            match &mut *state {
                GateState::Open(_) => return,
                GateState::Closed { waiters } => {
                    let waiters = std::mem::take(waiters);
                    *state = GateState::Open(value);
                    waiters
                }
            }
        };
        for waker in waiters {
            waker.wake();
        }
    }

    pub fn is_open(&self) -> bool {
        matches!(*self.shared.lock().unwrap_or_else(PoisonError::into_inner), GateState::Open(_))
    }

    /// A future that completes with the gate's value once it is open.
    pub fn wait(&self) -> GateWait<T> {
        GateWait { shared: Arc::clone(&self.shared) }
    }
}

/// See [`Gate::wait`].
#[must_use = "futures do nothing unless awaited"]
#[derive(Debug)]
pub struct GateWait<T> {
    shared: Arc<Mutex<GateState<T>>>,
}

impl<T: Clone> GateWait<T> {
    fn poll_with(&self, waker: Option<&Waker>) -> Poll<T> {
        let mut state = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        match &mut *state {
            GateState::Open(value) => Poll::Ready(value.clone()),
            GateState::Closed { waiters } => {
                if let Some(waker) = waker {
                    if !waiters.iter().any(|known| known.will_wake(waker)) {
                        waiters.push(waker.clone());
                    }
                }
                Poll::Pending
            }
        }
    }

    #[doc(hidden)]
    pub fn __lowering_awaiter(self) -> Self {
        self
    }
}

impl<T: Clone> Future for GateWait<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        self.poll_with(Some(cx.waker()))
    }
}

impl<T: Clone> Awaiter for GateWait<T> {
    type Output = T;

    fn poll_await(self: Pin<&mut Self>, ctx: &mut Ctx<'_>) -> Poll<T> {
        // An open gate completes on the stack; a closed one needs the heap task's waker.
        let cx = ctx.std_context();
        self.poll_with(cx.as_ref().map(Context::waker))
    }
}

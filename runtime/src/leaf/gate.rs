use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use crate::awaiter::Awaiter;
use crate::task::Ctx;

/// A one-shot gate the caller opens (C#'s `TaskCompletionSource<T>`): awaiting it suspends
/// until [`Gate::open`] supplies the value, so a test has a definite before and after.
#[derive(Debug)]
pub struct Gate<T> {
    shared: Arc<Mutex<GateState<T>>>,
}

#[derive(Debug)]
enum GateState<T> {
    /// Each waiter's waker under the waiter's id: a waiter dropped before the gate opens
    /// takes its waker out (it would otherwise keep what it wakes alive until then).
    Closed {
        waiters: Vec<(u64, Waker)>,
        next_id: u64,
    },
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
        Gate { shared: Arc::new(Mutex::new(GateState::Closed { waiters: Vec::new(), next_id: 0 })) }
    }

    /// Open the gate: every current and future waiter gets a clone of `value`. Opening an
    /// open gate does nothing.
    pub fn open(&self, value: T) {
        let waiters = {
            let mut state = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
            match &mut *state {
                GateState::Open(_) => return,
                GateState::Closed { waiters, .. } => {
                    let waiters = std::mem::take(waiters);
                    *state = GateState::Open(value);
                    waiters
                }
            }
        };
        for (_, waker) in waiters {
            waker.wake();
        }
    }

    pub fn is_open(&self) -> bool {
        matches!(*self.shared.lock().unwrap_or_else(PoisonError::into_inner), GateState::Open(_))
    }

    /// A future that completes with the gate's value once it is open.
    pub fn wait(&self) -> GateWait<T> {
        GateWait { shared: Arc::clone(&self.shared), id: None }
    }
}

/// See [`Gate::wait`].
#[must_use = "futures do nothing unless awaited"]
#[derive(Debug)]
pub struct GateWait<T> {
    shared: Arc<Mutex<GateState<T>>>,
    /// The id of the waker this wait registered, if any.
    id: Option<u64>,
}

impl<T> Drop for GateWait<T> {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        let mut state = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        if let GateState::Closed { waiters, .. } = &mut *state {
            waiters.retain(|(known, _)| *known != id);
            if waiters.is_empty() {
                // Give the buffer back too: a dropped wait leaves nothing behind.
                *waiters = Vec::new();
            }
        }
    }
}

impl<T: Clone> GateWait<T> {
    fn poll_with(&mut self, waker: Option<&Waker>) -> Poll<T> {
        let mut state = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        match &mut *state {
            GateState::Open(value) => Poll::Ready(value.clone()),
            GateState::Closed { waiters, next_id } => {
                if let Some(waker) = waker {
                    match self.id.and_then(|id| waiters.iter_mut().find(|(known, _)| *known == id)) {
                        Some((_, known)) => known.clone_from(waker),
                        None => {
                            let id = *next_id;
                            *next_id += 1;
                            waiters.push((id, waker.clone()));
                            self.id = Some(id);
                        }
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
        self.get_mut().poll_with(Some(cx.waker()))
    }
}

impl<T: Clone> Awaiter for GateWait<T> {
    type Output = T;

    fn poll_await(self: Pin<&mut Self>, ctx: &mut Ctx<'_>) -> Poll<T> {
        // An open gate completes on the stack; a closed one needs the heap task's waker.
        let cx = ctx.std_context();
        self.get_mut().poll_with(cx.as_ref().map(Context::waker))
    }
}

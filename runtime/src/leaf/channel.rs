//! An unbounded channel whose receive future owns a handle to the channel.
//!
//! The futures crate's receivers are awaited through `&mut receiver`; a classic state
//! machine cannot lend one of its own fields to the awaiter it stores next to it (see the
//! README), so [`Receiver::recv`] takes `&self` and returns a future that holds its own
//! reference to the shared queue. One receiver waits at a time (single consumer).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

struct Shared<T> {
    queue: VecDeque<T>,
    receiver: Option<Waker>,
    senders: usize,
}

/// A new channel.
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Mutex::new(Shared { queue: VecDeque::new(), receiver: None, senders: 1 }));
    (Sender { shared: Arc::clone(&shared) }, Receiver { shared })
}

/// The sending half; cloneable. The channel closes when the last sender is dropped.
pub struct Sender<T> {
    shared: Arc<Mutex<Shared<T>>>,
}

/// The receiving half.
pub struct Receiver<T> {
    shared: Arc<Mutex<Shared<T>>>,
}

impl<T> Sender<T> {
    /// Queue `value` and wake the receiver.
    pub fn send(&self, value: T) {
        let waker = {
            let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
            shared.queue.push_back(value);
            shared.receiver.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner).senders += 1;
        Sender { shared: Arc::clone(&self.shared) }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
            shared.senders -= 1;
            if shared.senders == 0 { shared.receiver.take() } else { None }
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Receiver<T> {
    /// The next value, or `None` once every sender is gone and the queue is empty.
    pub fn recv(&self) -> Recv<T> {
        Recv { shared: Arc::clone(&self.shared) }
    }
}

/// See [`Receiver::recv`].
#[must_use = "futures do nothing unless awaited"]
pub struct Recv<T> {
    shared: Arc<Mutex<Shared<T>>>,
}

impl<T> Future for Recv<T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(value) = shared.queue.pop_front() {
            return Poll::Ready(Some(value));
        }
        if shared.senders == 0 {
            return Poll::Ready(None);
        }
        match &mut shared.receiver {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

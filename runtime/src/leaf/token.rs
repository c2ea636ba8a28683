use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

/// A cancellation token (C#'s `CancellationToken`): cancelled once, by whoever holds it, and
/// observed by every operation that awaits through [`with_cancellation`]. Each token has an
/// identity, so that an operation's [`Cancelled`] error says which token ended it.
#[derive(Clone)]
pub struct CancellationToken {
    inner: Arc<TokenInner>,
}

struct TokenInner {
    id: u64,
    cancelled: AtomicBool,
    waiters: Mutex<Vec<Waker>>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl CancellationToken {
    pub fn new() -> Self {
        CancellationToken {
            inner: Arc::new(TokenInner {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                cancelled: AtomicBool::new(false),
                waiters: Mutex::new(Vec::new()),
            }),
        }
    }

    /// This token's identity.
    pub fn id(&self) -> u64 {
        self.inner.id
    }

    /// Cancel every operation watching this token (once; later calls do nothing).
    pub fn cancel(&self) {
        if self.inner.cancelled.swap(true, Ordering::AcqRel) {
            return;
        }
        let waiters = std::mem::take(&mut *self.inner.waiters.lock().unwrap_or_else(PoisonError::into_inner));
        for waker in waiters {
            waker.wake();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }
}

impl Default for CancellationToken {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for CancellationToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancellationToken").field("id", &self.id()).field("cancelled", &self.is_cancelled()).finish()
    }
}

/// An operation ended by a cancelled token (C#'s `OperationCanceledException`, which
/// carries its token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled {
    /// The [`CancellationToken::id`] of the token that ended it.
    pub token: u64,
}

impl fmt::Display for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the operation was cancelled by token {}", self.token)
    }
}

impl std::error::Error for Cancelled {}

/// Await `future` unless `token` is cancelled first: `Err(Cancelled)` carrying the token's
/// identity then, and `future` is dropped.
pub fn with_cancellation<F: IntoFuture>(future: F, token: &CancellationToken) -> WithCancellation<F::IntoFuture> {
    WithCancellation { future: Box::pin(future.into_future()), token: token.clone() }
}

/// See [`with_cancellation`].
#[must_use = "futures do nothing unless awaited"]
pub struct WithCancellation<F> {
    future: Pin<Box<F>>,
    token: CancellationToken,
}

impl<F: Future> Future for WithCancellation<F> {
    type Output = Result<F::Output, Cancelled>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let cancelled = || Poll::Ready(Err(Cancelled { token: this.token.id() }));
        if this.token.is_cancelled() {
            return cancelled();
        }
        if let Poll::Ready(value) = this.future.as_mut().poll(cx) {
            return Poll::Ready(Ok(value));
        }
        let mut waiters = this.token.inner.waiters.lock().unwrap_or_else(PoisonError::into_inner);
        // Checked again under the lock: a `cancel` in between has taken the list already.
        if this.token.is_cancelled() {
            drop(waiters);
            return cancelled();
        }
        if !waiters.iter().any(|known| known.will_wake(cx.waker())) {
            waiters.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

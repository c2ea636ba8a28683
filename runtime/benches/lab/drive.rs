//! The executor every scenario runs on, the same for both variants: poll on the calling
//! thread; re-poll at once after a wake that arrived during the poll (a yield); park the
//! thread until a wake otherwise.

use std::future::{Future, IntoFuture};
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

struct Flag {
    woken: AtomicBool,
    thread: Thread,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.woken.swap(true, Ordering::AcqRel) {
            self.thread.unpark();
        }
    }
}

/// One executor for one sample: its waker is made once, not per operation.
pub struct Driver {
    flag: Arc<Flag>,
    waker: Waker,
}

impl Driver {
    pub fn new() -> Self {
        let flag = Arc::new(Flag { woken: AtomicBool::new(false), thread: thread::current() });
        let waker = Waker::from(Arc::clone(&flag));
        Driver { flag, waker }
    }

    /// Run `operation` to completion.
    pub fn run<F: IntoFuture>(&self, operation: F) -> F::Output {
        let mut future = pin!(operation.into_future());
        let mut cx = Context::from_waker(&self.waker);
        loop {
            if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
                return value;
            }
            while !self.flag.woken.swap(false, Ordering::AcqRel) {
                thread::park();
            }
        }
    }

    /// Poll `future` once (a scenario that must see the operation pending first).
    pub fn poll_once<F: Future>(&self, future: std::pin::Pin<&mut F>) -> Poll<F::Output> {
        self.flag.woken.store(false, Ordering::Release);
        future.poll(&mut Context::from_waker(&self.waker))
    }
}

// rustc 1.95 at opt-level 0: a `match` on an array element (`a[0]`) whose guard uses its
// binding and awaits crashes or takes the wrong arm. Build and run:
//   rustc --edition 2024 guard_await_indexed_scrutinee.rs -o /tmp/guard && /tmp/guard
// With -O (or -C opt-level=1) it prints `result 12`.

use std::future::Future;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

/// Pending once, then ready: one real suspension.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

async fn later<T>(value: T) -> T {
    YieldOnce(false).await;
    value
}

async fn pick() -> u32 {
    let a = [2u32, 3];
    match a[0] {
        v if later(v < 3).await => 12,
        _ => 16,
    }
}

fn main() {
    let mut future = pin!(pick());
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            println!("result {value} (Rust says 12)");
            break;
        }
    }
}

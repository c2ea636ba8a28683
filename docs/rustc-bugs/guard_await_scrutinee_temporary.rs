use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

struct D(u32);
impl Drop for D {
    fn drop(&mut self) {
        println!("drop {}", self.0);
    }
}
fn weigh(d: &D) -> u32 {
    d.0
}

struct YieldOnce(bool);
impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 { Poll::Ready(()) } else { self.0 = true; cx.waker().wake_by_ref(); Poll::Pending }
    }
}
async fn later<T>(v: T) -> T {
    YieldOnce(false).await;
    v
}

async fn f() -> u32 {
    match [weigh(&D(2)), later(3u32).await][0] {
        v if later(v < 3).await => 12,
        _ => 16,
    }
}

fn main() {
    let mut fut = pin!(f());
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            println!("result {v} (expected 12)");
            break;
        }
    }
}

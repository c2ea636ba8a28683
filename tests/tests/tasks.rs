//! Recursion, panics through levels, `Send`, and awaiting anything (`IntoFuture`): plain
//! async fns, futures channels, classic tasks awaited from plain code and shared tasks.

use std::rc::Rc;

use futures::channel::{mpsc, oneshot};
use futures::executor::block_on;
use futures::{SinkExt, StreamExt};
use lowering::leaf::yield_now;
use lowering_tests::*;

pub async fn plain_leaf(x: u64) -> u64 {
    yield_now().await;
    x + 1
}

differential! {
    pub async fn fact(n: u64) -> u64 {
        if n == 0 {
            return 1;
        }
        let below = Box::pin(fact(n - 1)).await;
        log(format!("level {n}"));
        yield_now().await;
        n * below
    }

    pub async fn panics_at(depth: u32, at: u32) -> u32 {
        let _guard = Loud::new(format!("level {depth}"));
        if depth == at {
            panic!("boom at {depth}");
        }
        let below = Box::pin(panics_at(depth + 1, at)).await;
        below + 1
    }

    pub async fn errors_at(depth: u32, at: u32) -> Result<u32, String> {
        if depth == at {
            return Err(format!("error at {depth}"));
        }
        let below = Box::pin(errors_at(depth + 1, at)).await?;
        Ok(below + 1)
    }

    // Recursion whose result names a type parameter, a lifetime, or whose argument borrows
    // the caller's data (`&node.kids[i]`): each call is a task of its own, whose type names
    // its result and the body's witness, not a state machine.
    pub async fn repeat<T: Clone + std::ops::Add<Output = T>>(x: T, n: u32) -> T {
        if n == 0 {
            return x;
        }
        let below = Box::pin(repeat(x.clone(), n - 1)).await;
        yield_now().await;
        below + x
    }

    pub async fn suffix<'a>(text: &'a str, drop: usize) -> &'a str {
        if drop == 0 {
            return text;
        }
        log(format!("drop {drop}"));
        yield_now().await;
        Box::pin(suffix(&text[1..], drop - 1)).await
    }

    pub async fn tree_total(node: &Tree) -> u32 {
        let _guard = Loud::new(format!("node {}", node.value));
        let mut total = node.value;
        let mut index = 0;
        while index < node.children.len() {
            total += Box::pin(tree_total(&node.children[index])).await;
            index += 1;
        }
        yield_now().await;
        total
    }

    pub async fn awaits_plain(x: u64) -> u64 {
        plain_leaf(x).await + plain_leaf(x).await
    }

    pub async fn receive(mut rx: mpsc::Receiver<u32>, reply: oneshot::Sender<u32>) -> u32 {
        let mut total = 0;
        // A classic state machine cannot lend its own field `rx` to an awaiter
        // (`rx.next().await`): the receiver travels by value instead.
        loop {
            let (next, rest) = StreamExt::into_future(rx).await;
            rx = rest;
            match next {
                Some(value) => total += value,
                None => break,
            }
        }
        reply.send(total).ok();
        total
    }

    pub async fn send_safe(n: u32) -> u32 {
        {
            // Not `Send`, but its scope ends before the await.
            let local = Rc::new(n);
            log(format!("rc {local}"));
        }
        later("send", n).await
    }
}

#[test]
fn recursion() {
    for n in [0, 3, 10] {
        let outcome = same_at_every_suspension(|| classic::fact(n), || runtime::fact(n));
        assert_eq!(outcome, Outcome::Value((1..=n).product::<u64>().max(1)));
    }
}

pub struct Tree {
    pub value: u32,
    pub children: Vec<Tree>,
}

#[test]
fn recursion_with_generic_borrowed_and_lifetime_results() {
    for n in [0, 1, 4] {
        assert_eq!(
            same_at_every_suspension(|| classic::repeat(3u64, n), || runtime::repeat(3u64, n)),
            Outcome::Value(3 * (u64::from(n) + 1))
        );
        let text = String::from("recursion");
        let outcome =
            same_at_every_suspension(|| classic::suffix(&text, n as usize), || runtime::suffix(&text, n as usize));
        assert_eq!(outcome, Outcome::Value(&text[n as usize..]));
    }
    let leaf = |value| Tree { value, children: Vec::new() };
    let tree = Tree { value: 1, children: vec![leaf(2), Tree { value: 3, children: vec![leaf(4), leaf(5)] }] };
    let outcome = same_at_every_suspension(|| classic::tree_total(&tree), || runtime::tree_total(&tree));
    assert_eq!(outcome, Outcome::Value(15));
}

#[test]
fn panics_and_errors_through_levels() {
    for at in [0, 3, 10] {
        let (outcome, log) = same(|| classic::panics_at(0, at), || runtime::panics_at(0, at));
        assert_eq!(outcome, Outcome::Panic(format!("boom at {at}")));
        assert_eq!(log.iter().filter(|event| event.starts_with("drop")).count() as u32, at + 1);
        let (outcome, _) = same(|| classic::errors_at(0, at), || runtime::errors_at(0, at));
        assert_eq!(outcome, Outcome::Value(Err(format!("error at {at}"))));
    }
}

#[test]
fn awaits_any_into_future() {
    same(|| classic::awaits_plain(1), || runtime::awaits_plain(1));
    for variant in ["classic", "runtime"] {
        let (mut tx, rx) = mpsc::channel(4);
        let (reply, answer) = oneshot::channel();
        let total = block_on(async move {
            let consumer = async move {
                if variant == "classic" { classic::receive(rx, reply).await } else { runtime::receive(rx, reply).await }
            };
            let producer = async move {
                for value in 1..=5 {
                    tx.send(value).await.unwrap();
                }
            };
            let (total, ()) = futures::future::join(consumer, producer).await;
            total
        });
        assert_eq!(total, 15);
        assert_eq!(block_on(answer), Ok(15));
    }
}

#[test]
fn classic_tasks_are_futures_and_shareable() {
    let task = classic::fact(5);
    let shared = task.clone();
    let from_plain = block_on(async { task.await + 1 });
    assert_eq!(from_plain, 121);
    assert_eq!(block_on(shared), 120);
}

#[test]
fn send_when_the_plain_future_is() {
    fn assert_send<T: Send>(_: &T) {}
    let plain = runtime::send_safe(1);
    assert_send(&plain);
    let task = classic::send_safe(1);
    assert_send(&task);
    let handle = std::thread::spawn(move || block_on(task));
    assert_eq!(handle.join().unwrap(), 1);
    drop(plain);
    take_log();
}

mod polls_and_wakes {
    //! Under a plain executor, a classic task is polled and wakes its executor as the plain
    //! future does: a yield in its eager start reaches the executor at the first poll, a
    //! foreign future that woke it lets the next poll finish it.

    use std::future::Future;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Wake, Waker};

    use lowering_tests::{differential, take_log};

    /// Wakes its waker, then is pending once (rustc's "yields once, then returns" shape).
    pub struct WakeOnce(bool);

    impl Future for WakeOnce {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.0 {
                return Poll::Ready(());
            }
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    pub fn wake_once() -> WakeOnce {
        WakeOnce(false)
    }

    differential! {
        use super::wake_once;

        pub async fn once(x: u8) -> u8 {
            wake_once().await;
            x
        }

        pub async fn borrowed(x: &u8) -> u8 {
            wake_once().await;
            *x
        }

        pub async fn twice(x: u8) -> u8 {
            once(x).await;
            wake_once().await;
            x + 1
        }

        pub async fn nested(x: u8) -> u8 {
            once(x).await + once(x).await
        }

        pub async fn in_a_block(x: u8) -> u8 {
            async move { wake_once().await; x }.await
        }

        pub struct Holder(pub u8);

        impl Holder {
            pub async fn method(&self) -> u8 {
                wake_once().await;
                self.0
            }
        }
    }

    struct CountWakes(AtomicUsize);

    impl Wake for CountWakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Poll `future` until it is ready: each poll's result and the wakes so far.
    fn drive<F: Future>(future: F) -> Vec<(bool, usize)> {
        let wakes = Arc::new(CountWakes(AtomicUsize::new(0)));
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        let mut future = Box::pin(future);
        let mut trace = Vec::new();
        loop {
            let ready = future.as_mut().poll(&mut cx).is_ready();
            trace.push((ready, wakes.0.load(Ordering::SeqCst)));
            if ready || trace.len() > 10 {
                return trace;
            }
        }
    }

    #[test]
    fn the_plain_futures_polls_and_wakes() {
        let value = 9;
        let cases: Vec<(&str, Vec<(bool, usize)>, Vec<(bool, usize)>)> = vec![
            ("once", drive(classic::once(1)), drive(runtime::once(1))),
            ("borrowed", drive(classic::borrowed(&value)), drive(runtime::borrowed(&value))),
            ("twice", drive(classic::twice(1)), drive(runtime::twice(1))),
            ("nested", drive(classic::nested(1)), drive(runtime::nested(1))),
            ("in a block", drive(classic::in_a_block(1)), drive(runtime::in_a_block(1))),
            ("method", drive(classic::Holder(1).method()), drive(runtime::Holder(1).method())),
            (
                "awaited in plain code",
                drive(async { classic::twice(1).await }),
                drive(async { runtime::twice(1).await }),
            ),
        ];
        for (name, classic, runtime) in cases {
            assert_eq!(classic, runtime, "{name}: (ready, wakes) per poll, classic then runtime");
        }
        // The shape itself: one pending poll per yield, each woken, then the one that finishes.
        assert_eq!(drive(classic::twice(1)), [(false, 1), (false, 2), (true, 2)]);
        take_log();
    }
}

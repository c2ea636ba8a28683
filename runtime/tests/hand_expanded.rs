//! The runtime driven by a hand-written copy of what `#[lowering(classic)]` generates, so that
//! the builder, tasks and scheduling are tested independently of the macro.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::task::Poll;

use futures::executor::block_on;
#[allow(unused_imports)]
use lowering::__private::{self as rt, AwaitAnyFuture as _, Resume, ViaNoTable as _, ViaTable as _};
use lowering::leaf::{Gate, ready, yield_now};
use lowering::{StateMachine, Task};

#[global_allocator]
static ALLOCATOR: lowering::alloc::CountingAllocator = lowering::alloc::CountingAllocator::system();

thread_local!(static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) });
fn log(event: impl Into<String>) {
    LOG.with(|log| log.borrow_mut().push(event.into()));
}
fn take_log() -> Vec<String> {
    LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
}

struct Loud(&'static str);
impl Drop for Loud {
    fn drop(&mut self) {
        log(format!("drop {}", self.0));
    }
}

/// `async fn leaf(x: u32, yields: bool) -> u32 { if yields { yield_now().await; } x + 1 }`
fn leaf(x: u32, yields: bool) -> Task<u32, impl StateMachine> {
    struct LeafStateMachine<A1, P0, P1> {
        state: u32,
        awaiter_1: Option<A1>,
        yields: Option<P1>,
        x: Option<P0>,
    }
    impl<A1, P0, P1> StateMachine for LeafStateMachine<A1, P0, P1> {}
    rt::start(
        LeafStateMachine { state: 0, awaiter_1: None, yields: Some(yields), x: Some(x) },
        (&rt::CacheProbe::<u32>::NEW).policy(),
        |sm, cx| {
            let mut resume = Resume::enter(&mut sm.state);
            let x = rt::restore(&mut sm.x);
            let yields = rt::restore(&mut sm.yields);
            if resume.is_in(&[1]) || yields {
                if !resume.arrive(1) {
                    sm.awaiter_1 = Some(yield_now().__lowering_awaiter());
                }
                match rt::poll_awaiter(&mut sm.awaiter_1, cx) {
                    Poll::Ready(value) => value,
                    Poll::Pending => {
                        sm.x = Some(x);
                        sm.yields = Some(yields);
                        sm.state = 1;
                        return Poll::Pending;
                    }
                }
            }
            Poll::Ready(x + 1)
        },
    )
}

/// `async fn middle(x: u32, yields: bool) -> u32 { let d = Loud("middle"); leaf(x, yields).await * 2 }`
fn middle(x: u32, yields: bool) -> Task<u32, impl StateMachine> {
    struct MiddleStateMachine<A1, L0, P0, P1> {
        state: u32,
        awaiter_1: Option<A1>,
        d: Option<L0>,
        yields: Option<P1>,
        x: Option<P0>,
    }
    impl<A1, L0, P0, P1> StateMachine for MiddleStateMachine<A1, L0, P0, P1> {}
    rt::start(
        MiddleStateMachine { state: 0, awaiter_1: None, d: None, yields: Some(yields), x: Some(x) },
        (&rt::CacheProbe::<u32>::NEW).policy(),
        |sm, cx| {
            let mut resume = Resume::enter(&mut sm.state);
            let x = rt::restore(&mut sm.x);
            let yields = rt::restore(&mut sm.yields);
            let d;
            if resume.is_in(&[1]) {
                d = rt::restore(&mut sm.d);
            } else {
                d = Loud("middle");
            }
            let t1 = {
                if !resume.arrive(1) {
                    sm.awaiter_1 = Some(leaf(x, yields).__lowering_awaiter());
                }
                match rt::poll_awaiter(&mut sm.awaiter_1, cx) {
                    Poll::Ready(value) => value,
                    Poll::Pending => {
                        sm.x = Some(x);
                        sm.yields = Some(yields);
                        sm.d = Some(d);
                        sm.state = 1;
                        return Poll::Pending;
                    }
                }
            };
            let _ = &d;
            Poll::Ready(t1 * 2)
        },
    )
}

/// `async fn top(x: u32, gate: Gate<u32>) -> u32 { let g = gate.wait().await; middle(x + g, true).await + 1 }`
fn top(x: u32, gate: Gate<u32>) -> Task<u32, impl StateMachine> {
    struct TopStateMachine<A1, A2, L0, P0, P1> {
        state: u32,
        awaiter_2: Option<A2>,
        awaiter_1: Option<A1>,
        g: Option<L0>,
        gate: Option<P1>,
        x: Option<P0>,
    }
    impl<A1, A2, L0, P0, P1> StateMachine for TopStateMachine<A1, A2, L0, P0, P1> {}
    rt::start(
        TopStateMachine { state: 0, awaiter_2: None, awaiter_1: None, g: None, gate: Some(gate), x: Some(x) },
        (&rt::CacheProbe::<u32>::NEW).policy(),
        |sm, cx| {
            let mut resume = Resume::enter(&mut sm.state);
            let x = rt::restore(&mut sm.x);
            let gate = rt::restore(&mut sm.gate);
            let g;
            if resume.is_in(&[2]) {
                g = rt::restore(&mut sm.g);
            } else {
                g = {
                    if !resume.arrive(1) {
                        sm.awaiter_1 = Some(gate.wait().__lowering_awaiter());
                    }
                    match rt::poll_awaiter(&mut sm.awaiter_1, cx) {
                        Poll::Ready(value) => value,
                        Poll::Pending => {
                            sm.x = Some(x);
                            sm.gate = Some(gate);
                            sm.state = 1;
                            return Poll::Pending;
                        }
                    }
                };
            }
            let t2 = {
                if !resume.arrive(2) {
                    sm.awaiter_2 = Some(middle(x + g, true).__lowering_awaiter());
                }
                match rt::poll_awaiter(&mut sm.awaiter_2, cx) {
                    Poll::Ready(value) => value,
                    Poll::Pending => {
                        sm.x = Some(x);
                        sm.gate = Some(gate);
                        sm.g = Some(g);
                        sm.state = 2;
                        return Poll::Pending;
                    }
                }
            };
            Poll::Ready(t2 + 1)
        },
    )
}

/// `async fn boom(after_yield: bool) -> u32 { if after_yield { yield_now().await; } panic!("boom") }`
fn boom(after_yield: bool) -> Task<u32, impl StateMachine> {
    struct BoomStateMachine<A1, P0> {
        state: u32,
        awaiter_1: Option<A1>,
        after_yield: Option<P0>,
    }
    impl<A1, P0> StateMachine for BoomStateMachine<A1, P0> {}
    rt::start(
        BoomStateMachine { state: 0, awaiter_1: None, after_yield: Some(after_yield) },
        (&rt::CacheProbe::<u32>::NEW).policy(),
        |sm, cx| {
            let mut resume = Resume::enter(&mut sm.state);
            let after_yield = rt::restore(&mut sm.after_yield);
            if resume.is_in(&[1]) || after_yield {
                if !resume.arrive(1) {
                    sm.awaiter_1 = Some(yield_now().__lowering_awaiter());
                }
                match rt::poll_awaiter(&mut sm.awaiter_1, cx) {
                    Poll::Ready(value) => value,
                    Poll::Pending => {
                        sm.after_yield = Some(after_yield);
                        sm.state = 1;
                        return Poll::Pending;
                    }
                }
            }
            std::panic::panic_any(String::from("boom"))
        },
    )
}

/// `async fn catcher(after_yield: bool) -> u32 { let l = Loud("catcher"); boom(after_yield).await }`
fn catcher(after_yield: bool) -> Task<u32, impl StateMachine> {
    struct CatcherStateMachine<A1, L0, P0> {
        state: u32,
        awaiter_1: Option<A1>,
        l: Option<L0>,
        after_yield: Option<P0>,
    }
    impl<A1, L0, P0> StateMachine for CatcherStateMachine<A1, L0, P0> {}
    rt::start(
        CatcherStateMachine { state: 0, awaiter_1: None, l: None, after_yield: Some(after_yield) },
        (&rt::CacheProbe::<u32>::NEW).policy(),
        |sm, cx| {
            let mut resume = Resume::enter(&mut sm.state);
            let after_yield = rt::restore(&mut sm.after_yield);
            let l;
            if resume.is_in(&[1]) {
                l = rt::restore(&mut sm.l);
            } else {
                l = Loud("catcher");
            }
            let t1 = {
                if !resume.arrive(1) {
                    sm.awaiter_1 = Some(boom(after_yield).__lowering_awaiter());
                }
                match rt::poll_awaiter(&mut sm.awaiter_1, cx) {
                    Poll::Ready(value) => value,
                    Poll::Pending => {
                        sm.after_yield = Some(after_yield);
                        sm.l = Some(l);
                        sm.state = 1;
                        return Poll::Pending;
                    }
                }
            };
            let _ = &l;
            Poll::Ready(t1)
        },
    )
}

fn small(x: i32) -> Task<i32, impl StateMachine> {
    struct SmallStateMachine<A1, P0> {
        state: u32,
        awaiter_1: Option<A1>,
        x: Option<P0>,
    }
    impl<A1, P0> StateMachine for SmallStateMachine<A1, P0> {}
    rt::start(
        SmallStateMachine { state: 0, awaiter_1: None, x: Some(x) },
        (&rt::CacheProbe::<i32>::NEW).policy(),
        |sm, cx| {
            let mut resume = Resume::enter(&mut sm.state);
            let x = rt::restore(&mut sm.x);
            let v = {
                if !resume.arrive(1) {
                    sm.awaiter_1 = Some(ready(x).__lowering_awaiter());
                }
                match rt::poll_awaiter(&mut sm.awaiter_1, cx) {
                    Poll::Ready(value) => value,
                    Poll::Pending => {
                        sm.x = Some(x);
                        sm.state = 1;
                        return Poll::Pending;
                    }
                }
            };
            Poll::Ready(v)
        },
    )
}

#[test]
fn synchronous_chain_completes_eagerly() {
    let task = middle(3, false);
    assert!(task.is_completed());
    assert!(!task.has_suspended());
    assert_eq!(block_on(task), 8);
    assert_eq!(take_log(), ["drop middle"]);
}

#[test]
fn yield_at_the_bottom_resumes_every_level() {
    let task = middle(3, true);
    assert!(!task.is_completed(), "a yield really suspends");
    assert!(task.has_suspended());
    assert_eq!(take_log(), Vec::<String>::new(), "locals stay alive while suspended");
    assert_eq!(block_on(task), 8);
    assert_eq!(take_log(), ["drop middle"]);
}

#[test]
fn gate_suspends_until_opened() {
    let gate = Gate::new();
    let mut task = top(1, gate.clone());
    assert!(!task.is_completed());
    let waker = futures::task::noop_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(std::pin::Pin::new(&mut task).poll(&mut cx).is_pending());
    gate.open(10);
    // (1 + 10 + 1) * 2 + 1
    assert_eq!(block_on(task), 25);
    assert_eq!(take_log(), ["drop middle"]);
}

use std::future::Future;

#[test]
fn panics_reach_the_awaiter_with_their_payload() {
    for after_yield in [false, true] {
        let result = std::panic::catch_unwind(|| block_on(catcher(after_yield)));
        let payload = result.expect_err("the panic propagates");
        assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some("boom"));
        assert_eq!(take_log(), ["drop catcher"], "after_yield = {after_yield}");
    }
}

#[test]
fn dropping_a_suspended_chain_drops_each_local_once_and_frees_everything() {
    let ((), counts) = lowering::alloc::count_on_thread(|| {
        let gate: Gate<u32> = Gate::new();
        let mut task = top(1, gate.clone());
        let waker = futures::task::noop_waker();
        let mut cx = std::task::Context::from_waker(&waker);
        assert!(std::pin::Pin::new(&mut task).poll(&mut cx).is_pending());
        drop(task);
        drop(gate);
    });
    assert_eq!(take_log(), Vec::<String>::new(), "middle never started");
    assert_eq!(counts.live(), 0, "everything allocated is freed: {counts:?}");

    // Suspended below `middle`: its local is dropped exactly once, at cancellation.
    let ((), counts) = lowering::alloc::count_on_thread(|| {
        let gate = Gate::new();
        gate.open(1);
        let task = top(1, gate);
        assert!(!task.is_completed());
        drop(task);
    });
    let log = take_log();
    assert_eq!(log, ["drop middle"]);
    assert_eq!(counts.live(), 2, "only the log's own string and vector remain: {counts:?}");
}

#[test]
fn a_shared_task_gives_every_awaiter_the_result() {
    let task = middle(1, true);
    let again = task.clone();
    let third = task.clone();
    assert_eq!(block_on(task), 4);
    assert_eq!(block_on(again), 4);
    assert_eq!(block_on(third), 4);
    take_log();
}

#[test]
fn a_shared_panic_reaches_every_awaiter() {
    let task = boom(true);
    let again = task.clone();
    for task in [task, again] {
        let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| block_on(task)))
            .expect_err("panics");
        assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some("boom"));
    }
}

#[test]
fn allocation_model() {
    // Cached small result: nothing allocated.
    let (task, counts) = lowering::alloc::count_on_thread(|| small(3));
    assert!(task.is_cached());
    assert_eq!(counts.allocations, 0);
    assert_eq!(block_on(task), 3);
    // Uncached synchronous result: one task object.
    let (task, counts) = lowering::alloc::count_on_thread(|| small(300));
    assert!(!task.is_cached() && task.is_completed());
    assert_eq!(counts.allocations, 1);
    assert_eq!(block_on(task), 300);
    // A synchronous leaf awaited by a synchronous caller: one task each.
    let (task, counts) = lowering::alloc::count_on_thread(|| small_chain(300));
    assert_eq!(counts.allocations, 2, "{counts:?}");
    assert_eq!(block_on(task), 301);
    // A suspended call: one heap task holding its state machine.
    let (task, counts) = lowering::alloc::count_on_thread(|| leaf(1, true));
    assert_eq!(counts.allocations, 1, "{counts:?}");
    let (value, counts) = lowering::alloc::count_on_thread(|| block_on(task));
    assert_eq!(value, 2);
    assert_eq!(counts.allocations, 0, "resuming allocates nothing: {counts:?}");
}

/// `async fn small_chain(x: i32) -> i32 { small(x).await + 1 }`
fn small_chain(x: i32) -> Task<i32, impl StateMachine> {
    struct SmallChainStateMachine<A1, P0> {
        state: u32,
        awaiter_1: Option<A1>,
        x: Option<P0>,
    }
    impl<A1, P0> StateMachine for SmallChainStateMachine<A1, P0> {}
    rt::start(
        SmallChainStateMachine { state: 0, awaiter_1: None, x: Some(x) },
        (&rt::CacheProbe::<i32>::NEW).policy(),
        |sm, cx| {
            let mut resume = Resume::enter(&mut sm.state);
            let x = rt::restore(&mut sm.x);
            let v = {
                if !resume.arrive(1) {
                    sm.awaiter_1 = Some(small(x).__lowering_awaiter());
                }
                match rt::poll_awaiter(&mut sm.awaiter_1, cx) {
                    Poll::Ready(value) => value,
                    Poll::Pending => {
                        sm.x = Some(x);
                        sm.state = 1;
                        return Poll::Pending;
                    }
                }
            };
            Poll::Ready(v + 1)
        },
    )
}

/// `async fn twice() { yield_now().await; yield_now().await; }`
fn twice() -> Task<(), impl StateMachine> {
    struct TwiceStateMachine<A1, A2> {
        state: u32,
        awaiter_2: Option<A2>,
        awaiter_1: Option<A1>,
    }
    impl<A1, A2> StateMachine for TwiceStateMachine<A1, A2> {}
    rt::start(
        TwiceStateMachine { state: 0, awaiter_2: None, awaiter_1: None },
        (&rt::CacheProbe::<()>::NEW).policy(),
        |sm, cx| {
            let mut resume = Resume::enter(&mut sm.state);
            if !resume.is_in(&[2]) {
                if !resume.arrive(1) {
                    sm.awaiter_1 = Some(yield_now().__lowering_awaiter());
                }
                match rt::poll_awaiter(&mut sm.awaiter_1, cx) {
                    Poll::Ready(value) => value,
                    Poll::Pending => {
                        sm.state = 1;
                        return Poll::Pending;
                    }
                }
            }
            if !resume.arrive(2) {
                sm.awaiter_2 = Some(yield_now().__lowering_awaiter());
            }
            match rt::poll_awaiter(&mut sm.awaiter_2, cx) {
                Poll::Ready(value) => value,
                Poll::Pending => {
                    sm.state = 2;
                    return Poll::Pending;
                }
            }
            Poll::Ready(())
        },
    )
}

#[test]
fn tasks_are_send_when_their_state_is() {
    fn assert_send<T: Send>(_: &T) {}
    let task = top(1, Gate::new());
    assert_send(&task);
    let gate = Gate::new();
    let handle = std::thread::spawn({
        let task = top(2, gate.clone());
        move || block_on(task)
    });
    std::thread::sleep(std::time::Duration::from_millis(20));
    gate.open(1);
    assert_eq!(handle.join().unwrap(), (2 + 1 + 1) * 2 + 1);
    drop(task);
    take_log();
}

#[test]
fn yields_reach_the_executor() {
    // Count polls of the outermost future: a yield during a poll must come back to the
    // executor. (The first yield happens during the eager start, which already returned an
    // incomplete task to the caller; the first poll runs its continuation.)
    struct CountPolls<F>(F, Arc<Mutex<u32>>);
    impl<F: Future + Unpin> Future for CountPolls<F> {
        type Output = F::Output;
        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<F::Output> {
            *self.1.lock().unwrap() += 1;
            std::pin::Pin::new(&mut self.0).poll(cx)
        }
    }
    let polls = Arc::new(Mutex::new(0));
    let task = twice();
    assert!(!task.is_completed());
    block_on(CountPolls(task, polls.clone()));
    assert_eq!(*polls.lock().unwrap(), 2, "the second yield returns to the executor");

    let polls = Arc::new(Mutex::new(0));
    assert_eq!(block_on(CountPolls(middle(1, true), polls.clone())), 4);
    assert_eq!(*polls.lock().unwrap(), 1, "the first poll runs the continuation of the yield");
    take_log();
}

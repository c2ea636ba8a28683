//! The task model (eager start, one task per call, shared results, panics re-raised at each
//! awaiter, cancellation, `Send`, scheduling) driven through `#[lowering(classic)]` functions.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::task::Poll;

use futures::executor::block_on;
use lowering::leaf::{Gate, yield_now};
use lowering::lowering;

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

#[lowering(classic)]
async fn leaf(x: u32, yields: bool) -> u32 {
    if yields {
        yield_now().await;
    }
    x + 1
}

#[lowering(classic)]
async fn middle(x: u32, yields: bool) -> u32 {
    let _d = Loud("middle");
    leaf(x, yields).await * 2
}

#[lowering(classic)]
async fn top(x: u32, gate: Gate<u32>) -> u32 {
    let g = gate.wait().await;
    middle(x + g, true).await + 1
}

#[lowering(classic)]
async fn boom(after_yield: bool) -> u32 {
    if after_yield {
        yield_now().await;
    }
    panic!("{}", String::from("boom"))
}

#[lowering(classic)]
async fn catcher(after_yield: bool) -> u32 {
    let _l = Loud("catcher");
    boom(after_yield).await
}

#[lowering(classic)]
async fn small(x: i32) -> i32 {
    x
}

#[lowering(classic)]
async fn small_chain(x: i32) -> i32 {
    small(x).await + 1
}

#[lowering(classic)]
async fn twice() {
    yield_now().await;
    yield_now().await;
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
        let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| block_on(task))).expect_err("panics");
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
    // Count polls of the outermost future: every yield must come back to the executor, as the
    // plain future's does. (The first yield happens during the eager start, which already
    // returned an incomplete task to the caller; the first poll returns `Pending` and wakes
    // the caller, the second runs the yield's continuation.)
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
    assert_eq!(*polls.lock().unwrap(), 3, "each of the two yields returns to the executor");

    let polls = Arc::new(Mutex::new(0));
    assert_eq!(block_on(CountPolls(middle(1, true), polls.clone())), 4);
    assert_eq!(*polls.lock().unwrap(), 2, "the eager start's yield returns to the executor");
    take_log();
}

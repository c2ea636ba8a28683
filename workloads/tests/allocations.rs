//! Exact allocations per call for the synchronous shapes, against what each lowering's model
//! predicts. The counts come from the counting allocator, on this thread, for one call driven
//! to completion.

use std::pin::pin;
use std::task::{Context, Poll, Waker};

use lowering::alloc::count_on_thread;
use workloads::{classic, runtime};

#[global_allocator]
static ALLOCATOR: lowering::alloc::CountingAllocator = lowering::alloc::CountingAllocator::system();

/// Allocations made by `call()` and polling its result to completion once.
fn allocations<F: std::future::IntoFuture>(call: impl FnOnce() -> F) -> u64 {
    let (_, counts) = count_on_thread(|| {
        let future = pin!(call().into_future());
        match future.poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(value) => value,
            Poll::Pending => panic!("a synchronous shape suspended"),
        }
    });
    assert_eq!(counts.live(), 0, "everything allocated is freed: {counts:?}");
    counts.allocations
}

#[test]
fn value_chain10() {
    // Classic: one completed task per call, ten calls (results > 8 are not cached).
    assert_eq!(allocations(|| classic::value_chain10(17)), 10);
    // Runtime: the chain is one future, on the caller's stack.
    assert_eq!(allocations(|| runtime::value_chain10(17)), 0);
}

#[test]
fn completed_chain10_and_hot_path12() {
    assert_eq!(allocations(|| classic::completed_chain10(17)), 10);
    assert_eq!(allocations(|| runtime::completed_chain10(17)), 0);
    assert_eq!(allocations(|| classic::hot_path12(17)), 12);
    assert_eq!(allocations(|| runtime::hot_path12(17)), 0);
}

#[test]
fn read_loop_borrows_its_buffer() {
    // Classic: the buffer is borrowed by each awaited read, so the state machine is pinned in
    // its heap task before it runs: one allocation, although every read completes at once.
    assert_eq!(allocations(|| classic::read_loop(100)), 1);
    // Runtime: the caller pins the whole future; nothing is allocated.
    assert_eq!(allocations(|| runtime::read_loop(100)), 0);
}

#[test]
fn value_task_chain10() {
    // Classic value tasks hand synchronous results back inline: nothing at all.
    assert_eq!(allocations(|| classic::vt_chain10(17)), 0);
    assert_eq!(allocations(|| runtime::vt_chain10(17)), 0);
}

#[test]
fn cache_hit_loop() {
    // Classic: 100 lookups, each a completed task, plus the outer call's own task.
    assert_eq!(allocations(|| classic::cache_hit_loop(17)), 100 + 1);
    assert_eq!(allocations(|| runtime::cache_hit_loop(17)), 0);
}

#[test]
fn chain3_and_leaf() {
    // chain3 and its three leaves.
    assert_eq!(allocations(|| classic::chain3(17)), 4);
    assert_eq!(allocations(|| runtime::chain3(17)), 0);
    assert_eq!(allocations(|| classic::leaf_value(17)), 1);
    assert_eq!(allocations(|| runtime::leaf_value(17)), 0);
}

#[test]
fn cached_results_allocate_nothing() {
    // `completed_method` returns 0 or 1: 0 is in the cache of small `u64` results (as .NET
    // caches default values), 1 is not.
    assert_eq!(allocations(|| classic::completed_method(2)), 0);
    assert_eq!(allocations(|| classic::completed_method(3)), 1);
    // sync_loop(10): the loop's own task (result 5 is not cached) and the five odd calls.
    assert_eq!(allocations(|| classic::sync_loop(10)), 1 + 5);
    assert_eq!(allocations(|| runtime::sync_loop(10)), 0);
}

//! How heap tasks run, wait and wake each other: the protocol over their headers.
//!
//! A suspended task is resumed by one of three paths:
//!
//! 1. **Continuation** (C#'s shallow resume). When a classic task completes, the classic task
//!    that drives it (the first one that awaited it) is resumed directly, by a nested call,
//!    if it is idle. Nothing is queued and no executor is involved.
//! 2. **Run queue.** When something else wakes a task (a channel, a gate, a yield, another
//!    tree's completion), the task is marked scheduled and put on the run queue of its
//!    *root*: the outermost classic task of its chain, the one polled by plain Rust code
//!    (an executor, or a runtime-lowered `async fn`). The root's driver waker is woken; the
//!    next poll of the root runs the queued tasks, each directly from that poll.
//! 3. **Eager start.** A new call runs `move_next` synchronously until its first incomplete
//!    await; see `crate::builder`.
//!
//! A wake that arrives while the task's `move_next` is running (a yield wakes its own task
//! before returning `Pending`) never resumes it inline: the task goes on the run queue once
//! `move_next` has returned, so a yield really reaches the executor.
//!
//! Before a chain has a root (during eager starts), a task with nobody to drive it keeps its
//! queued descendants itself, and hands them up when a parent starts awaiting it.
//!
//! # Locking
//!
//! Each header has one lock (`super::lock`, a mutex without poisoning). Code here holds at
//! most one header lock at a time and never runs a state machine, wakes a waker or drops a
//! task while holding one.

use std::mem::{self, ManuallyDrop};
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::task::{RawWaker, RawWakerVTable, Waker};

use super::header::{CoreRef, Ctx, Header, Status, Step, TaskQueue, WaiterKind, Waiters};

/// How far a walk to the root goes before assuming a cycle of tasks awaiting each other.
const MAX_CHAIN: usize = 1 << 16;

/// Put `tasks` on the run queue of the root that drives `start`, and wake that root.
///
/// `start` is borrowed: its caller holds a reference anyway (the task itself, or the running
/// parent), and the usual walk ends there, so that no count goes up and down for it.
pub(crate) fn enqueue_under(start: &CoreRef, tasks: TaskQueue) {
    if tasks.is_empty() {
        return;
    }
    // The tasks above `start`, each held by a reference of our own while it is visited.
    let mut above: Option<CoreRef> = None;
    for _ in 0..MAX_CHAIN {
        let current = above.as_ref().unwrap_or(start);
        let mut state = current.lock();
        match state.waiters.driver() {
            Some(WaiterKind::Parent(parent)) => {
                let parent = parent.clone();
                drop(state);
                above = Some(parent);
            }
            Some(WaiterKind::Waker(driver)) => {
                let driver = driver.clone();
                state.queue.append(tasks);
                drop(state);
                driver.wake();
                return;
            }
            None => {
                // No root yet (the chain is still starting eagerly): keep the tasks here;
                // they move up when a parent registers, or run when this task is polled.
                state.queue.append(tasks);
                return;
            }
        }
    }
    // Tasks awaiting each other in a cycle never complete (as in C#); park the entries.
    above.as_ref().unwrap_or(start).lock().queue.append(tasks);
}

fn single(task: CoreRef) -> TaskQueue {
    let mut queue = TaskQueue::default();
    queue.push(task);
    queue
}

/// A waker (or a completing child) wakes `task`.
pub(crate) fn wake(task: &CoreRef) {
    let mut state = task.lock();
    match state.status {
        Status::Running => state.status = Status::RunningNotified,
        Status::Idle => {
            state.status = Status::Scheduled;
            drop(state);
            enqueue_under(task, single(task.clone()));
        }
        Status::RunningNotified | Status::Scheduled | Status::Completed | Status::Dead => {}
    }
}

/// A task on a run queue is about to run: `Scheduled` becomes `Running`, which gives the
/// runner the state machine. False when it is not scheduled any more (run, or dead).
#[inline]
pub(crate) fn claim_scheduled(header: &Header) -> bool {
    let mut state = header.lock();
    if state.status != Status::Scheduled {
        return false;
    }
    state.status = Status::Running;
    true
}

/// `move_next` returned `Ready` (its outcome is stored): the task is `Completed`, for good.
/// Returns the waiters to notify, and whether every handle is gone already (then the
/// runner drops the outcome, which nobody can claim).
#[inline]
pub(crate) fn complete(header: &Header) -> (Waiters, bool) {
    let mut state = header.lock();
    state.status = Status::Completed;
    // `Completed` is never left: the header's mark says so without its lock.
    state.mark();
    (state.waiters.take_all(), state.orphaned)
}

/// `move_next` returned `Pending`: go idle, or onto the run queue if woken meanwhile.
/// Returns true when the runner must drop the state machine (every handle is gone).
pub(crate) fn after_pending(task: &CoreRef) -> bool {
    let mut state = task.lock();
    if state.orphaned {
        state.status = Status::Dead;
        return true;
    }
    match state.status {
        Status::RunningNotified => {
            state.status = Status::Scheduled;
            drop(state);
            enqueue_under(task, single(task.clone()));
        }
        _ => state.status = Status::Idle,
    }
    false
}

thread_local! {
    /// How many continuations are running nested on this thread's stack.
    static CONTINUATION_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Beyond this many nested continuations a completion schedules its parent instead of
/// resuming it inline, as .NET does when the stack gets deep.
const MAX_INLINE_CONTINUATIONS: usize = 128;

/// A task completed: resume its driver directly when that is a classic parent waiting
/// idle (the continuation), and wake everyone else.
pub(crate) fn notify_completion(waiters: Waiters) {
    let Waiters { first, rest } = waiters;
    if let Some(driver) = first {
        match driver.kind {
            WaiterKind::Parent(parent) => resume_continuation(parent),
            WaiterKind::Waker(waker) => waker.wake(),
        }
    }
    // Usually nobody else: no iterator over an empty list is built and dropped.
    if rest.is_empty() {
        return;
    }
    for waiter in rest {
        match waiter.kind {
            WaiterKind::Parent(parent) => wake(&parent),
            WaiterKind::Waker(waker) => waker.wake(),
        }
    }
}

fn resume_continuation(parent: CoreRef) {
    let depth = CONTINUATION_DEPTH.with(|depth| depth.get());
    if depth >= MAX_INLINE_CONTINUATIONS {
        wake(&parent);
        return;
    }
    let mut state = parent.lock();
    match state.status {
        Status::Idle => {
            state.status = Status::Running;
            drop(state);
            CONTINUATION_DEPTH.with(|d| d.set(depth + 1));
            let _restore = DepthGuard(depth);
            // SAFETY: `parent` holds a reference; the status is now `Running`.
            unsafe { run_claimed(parent.ptr()) };
        }
        Status::Running => state.status = Status::RunningNotified,
        Status::RunningNotified | Status::Scheduled | Status::Completed | Status::Dead => {}
    }
}

struct DepthGuard(usize);

impl Drop for DepthGuard {
    fn drop(&mut self) {
        CONTINUATION_DEPTH.with(|depth| depth.set(self.0));
    }
}

/// The waker of a heap task: waking it schedules the task (path 2 in the module docs).
static WAKER_VTABLE: RawWakerVTable = RawWakerVTable::new(waker_clone, waker_wake, waker_wake_by_ref, waker_drop);

unsafe fn waker_clone(data: *const ()) -> RawWaker {
    // SAFETY: the waker being cloned holds a strong reference, which the borrowed `CoreRef`
    // stands for; the clone takes a new one, which the new waker owns.
    let task = mem::ManuallyDrop::new(unsafe { CoreRef::from_counted(NonNull::new_unchecked(data as *mut Header)) });
    mem::forget(CoreRef::clone(&task));
    RawWaker::new(data, &WAKER_VTABLE)
}

unsafe fn waker_wake(data: *const ()) {
    // SAFETY: a waker owns one strong reference, which the `CoreRef` takes over.
    let task = unsafe { CoreRef::from_counted(NonNull::new_unchecked(data as *mut Header)) };
    wake(&task);
}

unsafe fn waker_wake_by_ref(data: *const ()) {
    // SAFETY: the waker's own reference keeps the task alive for the call; the borrowed
    // `CoreRef` is not dropped.
    let task = mem::ManuallyDrop::new(unsafe { CoreRef::from_counted(NonNull::new_unchecked(data as *mut Header)) });
    wake(&task);
}

unsafe fn waker_drop(data: *const ()) {
    // SAFETY: a waker owns one strong reference.
    drop(unsafe { CoreRef::from_counted(NonNull::new_unchecked(data as *mut Header)) });
}

/// A waker that borrows `task`'s reference for the duration of one run (no count change
/// unless it is cloned).
pub(crate) fn borrowed_waker(task: &CoreRef) -> mem::ManuallyDrop<Waker> {
    let raw = RawWaker::new(task.ptr().as_ptr() as *const (), &WAKER_VTABLE);
    // SAFETY: the vtable upholds the `RawWaker` contract; the result is never dropped, so it
    // does not release the reference it borrows, and it lives no longer than `task`.
    mem::ManuallyDrop::new(unsafe { Waker::from_raw(raw) })
}

/// The first run of a new box, and its first reference (not generic: one copy for every
/// classic function).
pub(super) unsafe fn first_run(header: NonNull<Header>) -> CoreRef {
    // SAFETY: the caller's promise: one reference, held here for the run, then handed over.
    let task = unsafe { CoreRef::from_counted(header) };
    // SAFETY: `task` holds a reference; the status is `Running`.
    unsafe { run_claimed(header) };
    task
}

/// Run `move_next` once (`Steps::step`, through the vtable). The status is `Running`, which
/// gives this call exclusive access to the state machine. Not generic: the `catch_unwind`
/// around the step and what follows it are one copy for every classic function.
///
/// # Safety
///
/// `header` is a live heap task for which the caller holds a reference, and its status is
/// `Running`.
pub(crate) unsafe fn run_claimed(header: NonNull<Header>) {
    // SAFETY: the caller's promise.
    let vtable = unsafe { header.as_ref() }.vtable();
    // SAFETY: the caller holds a reference for the whole run.
    let this = unsafe { borrowed(header) };
    let waker = borrowed_waker(&this);
    let mut ctx = Ctx::heap(&this, &waker);
    // The closure is one `FnOnce` call and unwind-safe by itself (each capture wrapped, then
    // moved into plain bindings), so that no `AssertUnwindSafe` or `FnMut` shim adds a frame
    // below a resumed task (D3).
    let (step, task, context) = (AssertUnwindSafe(vtable.step), AssertUnwindSafe(header), AssertUnwindSafe(&mut ctx));
    let stepped = panic::catch_unwind(move || {
        let (step, task, context) = (step, task, context);
        // SAFETY: `Running` (the caller's promise), on this task's own vtable.
        unsafe { (step.0)(task.0, context.0) }
    });
    match stepped {
        Ok(Step::Pending) => {
            if after_pending(&this) {
                // Every handle is gone: drop the machine (and everything it awaits).
                // SAFETY: `Dead` status, set by `after_pending`; nobody else touches it.
                unsafe { (vtable.drop_contents)(header) };
            }
        }
        Ok(Step::Ready) => finish(&this),
        Ok(Step::Gone) => this.lock().status = Status::Dead,
        Err(payload) => {
            // SAFETY: still `Running`: the state machine that panicked is dropped (in place:
            // it may be pinned), then its payload is the outcome.
            unsafe {
                (vtable.drop_contents)(header);
                (vtable.store_panic)(header, payload);
            }
            finish(&this);
        }
    }
}

/// The outcome is stored: complete the task, and resume or wake who waits.
fn finish(task: &CoreRef) {
    let (waiters, orphaned) = complete(task.header());
    if orphaned {
        // SAFETY: no handle is left to read the outcome.
        unsafe { (task.header().vtable().drop_contents)(task.ptr()) };
    }
    notify_completion(waiters);
}

/// A `CoreRef` for the duration of a call made on behalf of a reference the caller holds.
///
/// # Safety
///
/// `header` points to a live heap task for which the caller holds a strong reference.
#[inline]
unsafe fn borrowed(header: NonNull<Header>) -> ManuallyDrop<CoreRef> {
    // SAFETY: the caller's promise; the result is never dropped, so it releases nothing.
    ManuallyDrop::new(unsafe { CoreRef::from_counted(header) })
}

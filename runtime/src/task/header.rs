//! The type-erased part of a suspended task: its status, who waits for it, and the run queue.
//!
//! Every heap task ([`super::core::Core`]) starts with a [`Header`]. Wakers, run queues and
//! parent links only ever see the header, through a [`CoreRef`]: that is how a queue can hold
//! tasks of different result and state-machine types, and how a `'static` waker can point at
//! a task whose state machine borrows from its caller.
//!
//! # Scheduling model
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

use std::alloc::Layout;
use std::mem;
use std::ptr::NonNull;
use std::sync::atomic::{self, AtomicUsize, Ordering};

use super::context::Ctx;
use super::lock::{Lock, LockGuard};
use super::outcome::PanicPayload;
use std::task::{RawWaker, RawWakerVTable, Waker};

/// The first field of every heap task.
#[repr(C)]
pub(crate) struct Header {
    state: Lock<State>,
    /// Strong references to the allocation: handles, wakers, queue entries, parent links.
    refs: AtomicUsize,
    vtable: &'static CoreVTable,
}

/// Operations that need the concrete task type (its state machine's type, or its result
/// type), reached through the header: the handles of a task know only its result type, the
/// queues and wakers not even that.
pub(crate) struct CoreVTable {
    /// Run `move_next` once if the task is scheduled (called from a run queue): one call,
    /// so that a resumed task has no more frames below it than it needs.
    pub(crate) run_scheduled: unsafe fn(NonNull<Header>),
    /// Run `move_next` once in the box, the status being `Running`; on `Ready`, the value is
    /// stored as the outcome.
    pub(crate) step: unsafe fn(NonNull<Header>, &mut Ctx<'_>) -> Step,
    /// `move_next` panicked: store the payload as the outcome (the slot is empty). Generic
    /// over the result type only.
    pub(crate) store_panic: unsafe fn(NonNull<Header>, PanicPayload),
    /// Drop what the slot holds (the state machine, or the outcome) in place, leaving it
    /// empty; the caller has the exclusive access the status protocol gives.
    pub(crate) drop_contents: unsafe fn(NonNull<Header>),
    /// The box's layout, to free it.
    pub(crate) layout: Layout,
    /// Where the slot lies in the box: the state machine, later the outcome.
    pub(crate) slot_offset: usize,
}

/// What one step of `move_next` in the box did.
pub(crate) enum Step {
    Pending,
    /// It returned its value, now stored.
    Ready,
    /// There was no state machine left to run (every handle went away before the run).
    Gone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// Suspended, waiting for whatever it awaits to wake it.
    Idle,
    /// Woken, and on (exactly one) run queue.
    Scheduled,
    /// `move_next` is running; the runner has exclusive access to the state machine.
    Running,
    /// Woken while running: goes on a run queue when `move_next` returns `Pending`.
    RunningNotified,
    /// The outcome is stored.
    Completed,
    /// Every handle was dropped before completion; the state machine is gone.
    Dead,
}

pub(crate) struct State {
    pub(crate) status: Status,
    pub(crate) waiters: Waiters,
    /// Tasks scheduled under this task, while it is a root (or a root-to-be).
    pub(crate) queue: TaskQueue,
    /// Every handle was dropped while the task was running: the runner drops the state
    /// machine when `move_next` returns.
    pub(crate) orphaned: bool,
    next_key: u32,
}

impl Header {
    pub(crate) fn new(status: Status, vtable: &'static CoreVTable) -> Self {
        Header {
            state: Lock::new(State {
                status,
                waiters: Waiters::default(),
                queue: TaskQueue::default(),
                orphaned: false,
                next_key: 0,
            }),
            refs: AtomicUsize::new(1),
            vtable,
        }
    }

    #[inline]
    pub(crate) fn lock(&self) -> LockGuard<'_, State> {
        self.state.lock()
    }

    #[inline]
    pub(crate) fn vtable(&self) -> &'static CoreVTable {
        self.vtable
    }

    /// The status is `Completed` (the lock's mark, set with that status; `Completed` is
    /// never left), read without locking.
    #[inline]
    pub(crate) fn is_completed(&self) -> bool {
        self.state.is_marked()
    }
}

impl State {
    #[inline]
    pub(crate) fn new_key(&mut self) -> u32 {
        self.next_key = self.next_key.wrapping_add(1);
        self.next_key
    }
}

/// One strong reference to a heap task, seen through its header.
pub(crate) struct CoreRef(NonNull<Header>);

// SAFETY: a `CoreRef` only touches the header (its lock) and the reference count, both
// thread-safe; running the state machine goes through the status protocol, and a task is
// only ever run by the thread that drives its root (see the module documentation), which the
// root's own `Send` bound covers.
unsafe impl Send for CoreRef {}
unsafe impl Sync for CoreRef {}

impl CoreRef {
    /// Take over one strong reference already counted for `header`.
    ///
    /// # Safety
    /// `header` must point to the header of a live heap task, and the caller must own one of
    /// its strong references, which the new `CoreRef` will release.
    pub(crate) unsafe fn from_counted(header: NonNull<Header>) -> Self {
        CoreRef(header)
    }

    #[inline]
    pub(crate) fn header(&self) -> &Header {
        // SAFETY: a `CoreRef` holds a strong reference, so the allocation is alive.
        unsafe { self.0.as_ref() }
    }

    #[inline]
    pub(crate) fn lock(&self) -> LockGuard<'_, State> {
        self.header().lock()
    }

    #[inline]
    pub(crate) fn ptr(&self) -> NonNull<Header> {
        self.0
    }

    /// Run the task once if it is still scheduled (called from a run queue).
    pub(crate) fn run_scheduled(&self) {
        // SAFETY: the reference keeps the task alive; the callee checks the status.
        unsafe { (self.header().vtable.run_scheduled)(self.0) }
    }

    /// Run the task once; the caller moved its status to `Running`.
    fn run_claimed(&self) {
        // SAFETY: the reference keeps the task alive; the `Running` status gives the run
        // exclusive access to the state machine.
        unsafe { super::core::run_claimed(self.0) }
    }
}

/// Past this many references something is leaking them (`Arc`'s limit, for the same reason).
const MAX_REFS: usize = isize::MAX as usize;

impl Clone for CoreRef {
    #[inline]
    fn clone(&self) -> Self {
        // Relaxed, as `Arc::clone`: a new reference is made from an existing one, which keeps
        // the task alive meanwhile.
        if self.header().refs.fetch_add(1, Ordering::Relaxed) > MAX_REFS {
            std::process::abort();
        }
        CoreRef(self.0)
    }
}

impl Drop for CoreRef {
    #[inline]
    fn drop(&mut self) {
        // Release, then Acquire before freeing, as `Arc`'s drop: every use of the task
        // through another reference happens before it is freed.
        if self.header().refs.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        atomic::fence(Ordering::Acquire);
        // SAFETY: the last reference: nobody can reach the task any more. What the slot still
        // holds (normally nothing: the last handle emptied it) is dropped first.
        // The rest of the box's prefix (the handle count, the clone function) owns nothing.
        unsafe {
            let vtable = self.header().vtable;
            (vtable.drop_contents)(self.0);
            std::ptr::drop_in_place(self.0.as_ptr());
            std::alloc::dealloc(self.0.as_ptr().cast(), vtable.layout);
        }
    }
}

/// Who waits for a task: a classic parent (resumed through its continuation) or any other
/// waker. The first waiter is the task's *driver*.
pub(crate) enum WaiterKind {
    Parent(CoreRef),
    Waker(Waker),
}

pub(crate) struct Waiter {
    /// Identifies the handle that registered the waiter, so that dropping the handle
    /// withdraws it.
    key: u32,
    kind: WaiterKind,
}

/// A list that does not allocate for its usual length (one waiter).
#[derive(Default)]
pub(crate) struct Waiters {
    first: Option<Waiter>,
    rest: Vec<Waiter>,
}

impl Waiters {
    #[inline]
    pub(crate) fn driver(&self) -> Option<&WaiterKind> {
        self.first.as_ref().map(|waiter| &waiter.kind)
    }

    #[inline]
    pub(crate) fn driver_key(&self) -> Option<u32> {
        self.first.as_ref().map(|waiter| waiter.key)
    }

    /// Register `kind` under `key` as the driver (ahead of the others).
    pub(crate) fn push_front(&mut self, key: u32, kind: WaiterKind) {
        if let Some(previous) = self.first.replace(Waiter { key, kind }) {
            self.rest.insert(0, previous);
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, key: u32, kind: WaiterKind) {
        let waiter = Waiter { key, kind };
        if self.first.is_none() {
            self.first = Some(waiter);
        } else {
            self.rest.push(waiter);
        }
    }

    /// Replace the waker registered under `key` (an executor may hand a new one to each
    /// poll). Returns false when nothing is registered under `key`.
    pub(crate) fn update_waker(&mut self, key: u32, waker: &Waker) -> bool {
        for waiter in self.first.iter_mut().chain(self.rest.iter_mut()) {
            if waiter.key == key {
                match &mut waiter.kind {
                    WaiterKind::Waker(old) => old.clone_from(waker),
                    WaiterKind::Parent(_) => waiter.kind = WaiterKind::Waker(waker.clone()),
                }
                return true;
            }
        }
        false
    }

    /// Withdraw the waiter registered under `key`; the next one becomes the driver.
    pub(crate) fn remove(&mut self, key: u32) -> Option<WaiterKind> {
        if self.first.as_ref().is_some_and(|waiter| waiter.key == key) {
            let removed = self.first.take();
            if !self.rest.is_empty() {
                self.first = Some(self.rest.remove(0));
            }
            return removed.map(|waiter| waiter.kind);
        }
        let index = self.rest.iter().position(|waiter| waiter.key == key)?;
        Some(self.rest.remove(index).kind)
    }

    /// Move every waiter out, leaving the list empty (no allocation).
    pub(crate) fn take_all(&mut self) -> Waiters {
        mem::take(self)
    }
}

impl IntoIterator for Waiters {
    type Item = WaiterKind;
    type IntoIter = std::iter::Map<
        std::iter::Chain<std::option::IntoIter<Waiter>, std::vec::IntoIter<Waiter>>,
        fn(Waiter) -> WaiterKind,
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.first.into_iter().chain(self.rest).map(|waiter| waiter.kind)
    }
}

/// A run queue that does not allocate for its usual length (zero or one task).
#[derive(Default)]
pub(crate) struct TaskQueue {
    first: Option<CoreRef>,
    rest: Vec<CoreRef>,
}

impl TaskQueue {
    #[inline]
    pub(crate) fn push(&mut self, task: CoreRef) {
        if self.first.is_none() {
            self.first = Some(task);
        } else {
            self.rest.push(task);
        }
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    #[inline]
    pub(crate) fn take(&mut self) -> TaskQueue {
        mem::take(self)
    }

    #[inline]
    pub(crate) fn append(&mut self, other: TaskQueue) {
        // The usual case on a suspending chain: the queue handed up one level at a time
        // lands in an empty one, and moves there whole.
        if self.is_empty() {
            *self = other;
            return;
        }
        for task in other {
            self.push(task);
        }
    }
}

impl IntoIterator for TaskQueue {
    type Item = CoreRef;
    type IntoIter = std::iter::Chain<std::option::IntoIter<CoreRef>, std::vec::IntoIter<CoreRef>>;

    fn into_iter(self) -> Self::IntoIter {
        self.first.into_iter().chain(self.rest)
    }
}

/// Whether code of the classic runtime is running on this thread's stack: a poll of a task by
/// plain code (`Core::poll_as_future` running its queue) or a call's first run in its heap
/// task (`Core::spawn`). A task that a *new* driver first polls there was created (and may
/// have yielded) within that very run: its queue waits for the driver's next poll, so that the
/// yield reaches the executor, as the plain future's does (a classic task awaited as a plain
/// future: boxed, in a `select!` or a `join!`).
pub(crate) mod polling {
    use std::cell::Cell;

    thread_local! {
        static DEPTH: Cell<usize> = const { Cell::new(0) };
    }

    pub(crate) fn inside() -> bool {
        DEPTH.with(Cell::get) > 0
    }

    /// Marks such a run, for as long as the guard lives.
    pub(crate) struct Running(());

    pub(crate) fn enter() -> Running {
        DEPTH.with(|depth| depth.set(depth.get() + 1));
        Running(())
    }

    impl Drop for Running {
        fn drop(&mut self) {
            DEPTH.with(|depth| depth.set(depth.get() - 1));
        }
    }
}

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
            parent.run_claimed();
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

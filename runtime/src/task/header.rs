//! The type-erased part of a heap task: its header (status, waiters, run queue, reference
//! count, vtable), references to it, and the context its state machine runs in.
//!
//! Every heap task (`super::core`) starts with a [`Header`]. Wakers, run queues and parent
//! links only ever see the header, through a [`CoreRef`]: that is how a queue can hold tasks
//! of different result and state-machine types, and how a `'static` waker can point at a
//! task whose state machine borrows from its caller. How tasks run and wake each other is
//! `super::schedule`'s.

use std::alloc::Layout;
use std::mem::{self, ManuallyDrop};
use std::ptr::NonNull;
use std::sync::atomic::{self, AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

use super::lock::{Lock, LockGuard};
use super::outcome::PanicPayload;

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
    pub(super) kind: WaiterKind,
}

/// A list that does not allocate for its usual length (one waiter).
#[derive(Default)]
pub(crate) struct Waiters {
    pub(super) first: Option<Waiter>,
    pub(super) rest: Vec<Waiter>,
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

/// A state machine's `move_next`: resume at the saved state, run to the next incomplete
/// await (`Pending`) or to the end (`Ready`).
pub type MoveNext<T, S> = fn(&mut S, &mut Ctx<'_>) -> Poll<T>;

/// The closure the macro writes as `move_next`: non-capturing, hence zero-sized.
///
/// The builders take it as its own type rather than as a [`MoveNext`] pointer, so that the
/// eager run calls it directly: a closure coerced to a `fn` pointer is called through a
/// shim, one more live frame per classic level. The heap task's vtable calls it the same way
/// (`super::core`), without a pointer of its own.
pub trait MoveNextFn<T, S>: Fn(&mut S, &mut Ctx<'_>) -> Poll<T> + Copy {}

impl<T, S, M: Fn(&mut S, &mut Ctx<'_>) -> Poll<T> + Copy> MoveNextFn<T, S> for M {}

// ---- The context a state machine runs in ----------------------------------------------------

/// Where `move_next` is running: on the caller's stack during the eager start, or in its
/// heap task.
pub struct Ctx<'run> {
    heap: Option<(&'run ManuallyDrop<CoreRef>, &'run Waker)>,
}

impl<'run> Ctx<'run> {
    pub(crate) fn stack() -> Self {
        Ctx { heap: None }
    }

    pub(crate) fn heap(this: &'run ManuallyDrop<CoreRef>, waker: &'run Waker) -> Self {
        Ctx { heap: Some((this, waker)) }
    }

    /// Is the state machine in its heap task (so that its awaiters are pinned)?
    pub fn is_pinned(&self) -> bool {
        self.heap.is_some()
    }

    /// The running heap task, which awaited tasks resume through their continuation.
    pub(crate) fn this(&self) -> Option<&CoreRef> {
        self.heap.map(|(this, _)| &**this)
    }

    /// A `std` context whose waker schedules the running task; `None` on the stack.
    pub fn std_context(&self) -> Option<Context<'run>> {
        self.heap.map(|(_, waker)| Context::from_waker(waker))
    }
}

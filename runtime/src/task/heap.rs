//! A heap task as its handles see it: the part of the box that depends on the result type
//! only (C#'s `Task<TResult>`, of which the state-machine box is a subclass).
//!
//! The box of a suspended call ([`super::core::Core`]) begins with a [`Heap<T>`]: the header,
//! the count of handles and the function that copies the result for shared handles. Its state
//! machine follows in the same allocation, reached only through the header's vtable. A
//! [`crate::Task`] holds a [`HeapRef<T>`], so neither its type nor the code that awaits it
//! names the state machine: a caller's state machine, which holds its callees' tasks, does not
//! contain their state machines' types, and every awaiter of a `Task<u64>` shares one copy of
//! this code, whatever function the task belongs to.

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use super::header::{CoreRef, Header, State, Status, WaiterKind};
use super::lock::LockGuard;
use super::outcome::Outcome;
use super::schedule;

/// The first part of every heap task.
#[repr(C)]
pub(crate) struct Heap<T> {
    /// First field: erased code reaches the header through a pointer to the box.
    pub(super) header: Header,
    /// Live [`crate::Task`] handles.
    pub(super) handles: AtomicUsize,
    pub(super) clone_value: OnceLock<fn(&T) -> T>,
    /// What the box's slot holds (`super::core`). Read and written only with the exclusive
    /// access the status protocol gives (the runner, the holder of a completed task's lock,
    /// the last handle).
    pub(super) contents: UnsafeCell<Contents>,
}

/// What the slot after a box's `Heap<T>` holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Contents {
    /// The state machine (from `spawn` until `move_next` returns or the last handle goes).
    Machine,
    /// The outcome, an `Outcome<T>`, until the last handle takes it.
    Outcome,
    /// Nothing: dropped or taken.
    Empty,
}

impl<T> Heap<T> {
    pub(super) fn new(header: Header) -> Self {
        Heap {
            header,
            handles: AtomicUsize::new(1),
            clone_value: OnceLock::new(),
            contents: UnsafeCell::new(Contents::Machine),
        }
    }
}

/// A new box (not generic: one copy for every classic function).
pub(super) fn allocate(layout: std::alloc::Layout) -> NonNull<u8> {
    // SAFETY: a box is never zero-sized (its header is not).
    match NonNull::new(unsafe { std::alloc::alloc(layout) }) {
        Some(memory) => memory,
        None => std::alloc::handle_alloc_error(layout),
    }
}

/// The outcome of the task at `header`, which holds an `Outcome<T>` of this `T` in its slot.
///
/// # Safety
///
/// `header` is a live heap task whose result type is `T`.
pub(super) unsafe fn outcome_place<T>(header: NonNull<Header>) -> NonNull<Outcome<T>> {
    // SAFETY: the slot lies `slot_offset` bytes into the box (the vtable's, set for this very
    // box type), and the pointer has the provenance of the whole allocation.
    unsafe { header.byte_add(header.as_ref().vtable().slot_offset).cast() }
}

/// `move_next` panicked (its state machine already dropped): store the payload as the
/// outcome (C#'s `SetException`). Generic over the result type only.
///
/// # Safety
///
/// `header` is a live heap task of result type `T`, `Running`, its slot empty.
pub(super) unsafe fn store_panic<T>(header: NonNull<Header>, payload: super::outcome::PanicPayload) {
    // SAFETY: the caller's promise: the slot is empty and this is the runner.
    unsafe {
        outcome_place::<T>(header).write(Outcome::Panic(payload));
        *header.cast::<Heap<T>>().as_ref().contents.get() = Contents::Outcome;
    }
}

/// An outcome claimed by a handle ([`HeapRef::claim_once`]).
pub(crate) struct Claimed<T> {
    pub(crate) outcome: Outcome<T>,
    /// The claiming handle was the last one and gave up its share with the claim: it must not
    /// call [`HeapRef::drop_handle`], only release its reference to the allocation.
    pub(crate) released: bool,
}

/// One strong reference to a heap task whose result type is `T`.
pub(crate) struct HeapRef<T> {
    task: CoreRef,
    result: PhantomData<fn() -> T>,
}

impl<T> HeapRef<T> {
    /// # Safety
    ///
    /// `task` is a heap task whose box begins with a `Heap<T>` of this very `T`.
    pub(super) unsafe fn new(task: CoreRef) -> Self {
        HeapRef { task, result: PhantomData }
    }

    #[inline]
    fn heap(&self) -> &Heap<T> {
        // SAFETY: the box begins with a `Heap<T>` (`new`), kept alive by the reference.
        unsafe { self.task.ptr().cast::<Heap<T>>().as_ref() }
    }

    #[inline]
    fn lock(&self) -> LockGuard<'_, State> {
        self.task.lock()
    }

    pub(crate) fn is_completed(&self) -> bool {
        self.task.header().is_completed()
    }

    /// The outcome of a completed task, which still holds it.
    ///
    /// # Safety
    ///
    /// The task is `Completed` and the caller holds its lock (or, once no handle is left to
    /// race with, owns the task's last handle).
    #[inline]
    unsafe fn outcome(&self) -> NonNull<Outcome<T>> {
        // SAFETY: the caller's promise: a completed task holds its outcome until the last
        // handle takes it, and only the caller reads it now.
        debug_assert_eq!(unsafe { *self.heap().contents.get() }, Contents::Outcome);
        // SAFETY: this task's result type is `T` (`new`).
        unsafe { outcome_place::<T>(self.task.ptr()) }
    }

    /// Claim the outcome (status `Completed`, the lock held by `completed`) for the handle
    /// registered under `key`, which it forgets: completion took every waiter off the list
    /// (`schedule::finish`), so there is nothing to withdraw. The outcome is moved out for the last
    /// handle, copied for the others.
    ///
    /// The last handle also gives up its share here, under this lock, rather than taking the
    /// lock again in [`Self::drop_handle`] when it is dropped: its caller then holds only a
    /// reference to the allocation ([`Claimed::released`]). What the last handle owes is what
    /// `drop_handle` does for a completed task: the outcome (moved out just now) and the run
    /// queue, dropped after the lock is released.
    fn claim_once(&self, mut completed: LockGuard<'_, State>, key: &mut Option<u32>) -> Claimed<T> {
        *key = None;
        // SAFETY: `Completed`, and the header lock is held (witnessed by the guard).
        let outcome = unsafe { self.outcome() };
        let heap = self.heap();
        // The count cannot grow under us: when it is 1, the only handle is the caller's, and
        // it is borrowed mutably for this call, so nothing clones it meanwhile.
        if heap.handles.load(Ordering::Acquire) != 1 {
            // SAFETY: the outcome is there (the last handle has not claimed it: this one has
            // not) and nobody writes it while the lock is held.
            let outcome = unsafe { outcome.as_ref() }.share(heap.clone_value.get().copied());
            return Claimed { outcome, released: false };
        }
        // SAFETY: as above; marked taken at once, so that nothing drops it again.
        let outcome = unsafe {
            *heap.contents.get() = Contents::Empty;
            outcome.read()
        };
        heap.handles.store(0, Ordering::Release);
        let queued = completed.queue.take();
        drop(completed);
        // Dropped outside the lock, as in `drop_handle`.
        drop(queued);
        Claimed { outcome, released: true }
    }

    /// Is the outcome there yet? Asked first by every classic awaiter, on its caller's stack
    /// or in its heap task: the mark answers without the lock, and a completed task is
    /// claimed without going through [`Self::poll_from_parent`]'s registration.
    #[inline]
    pub(crate) fn try_claim(&self, key: &mut Option<u32>) -> Option<Claimed<T>> {
        // The usual answer on the stack of a suspending chain (the task has just suspended).
        if !self.is_completed() {
            return None;
        }
        Some(self.claim_completed(key))
    }

    fn claim_completed(&self, key: &mut Option<u32>) -> Claimed<T> {
        let state = self.lock();
        // The mark is set with `Completed`, which is never left.
        debug_assert_eq!(state.status, Status::Completed);
        self.claim_once(state, key)
    }

    /// A classic parent awaits this task: the outcome, or register `parent` as a waiter
    /// whose continuation runs when this task completes.
    pub(crate) fn poll_from_parent(&self, key: &mut Option<u32>, parent: &CoreRef) -> Poll<Claimed<T>> {
        let mut state = self.lock();
        if state.status == Status::Completed {
            return Poll::Ready(self.claim_once(state, key));
        }
        if key.is_none() {
            let new_key = state.new_key();
            state.waiters.push(new_key, WaiterKind::Parent(parent.clone()));
            *key = Some(new_key);
        }
        // When the parent became the driver, tasks queued here while this task had nobody
        // to drive it move up to the parent's root.
        let handed_up = if state.waiters.driver_key() == *key { state.queue.take() } else { Default::default() };
        drop(state);
        // Usually nothing: then the parent's lock is not taken.
        if !handed_up.is_empty() {
            schedule::enqueue_under(parent, handed_up);
        }
        Poll::Pending
    }

    /// Plain Rust code polls this task (an executor, a runtime-lowered `async fn`, a
    /// foreign combinator). If this poll drives the task, it runs the tasks queued under it.
    pub(crate) fn poll_as_future(&self, key: &mut Option<u32>, cx: &mut Context<'_>) -> Poll<Claimed<T>> {
        let mut state = self.lock();
        if state.status == Status::Completed {
            return Poll::Ready(self.claim_once(state, key));
        }
        let registered = key.is_some_and(|key| state.waiters.update_waker(key, cx.waker()));
        if !registered {
            let new_key = state.new_key();
            state.waiters.push(new_key, WaiterKind::Waker(cx.waker().clone()));
            *key = Some(new_key);
        }
        if state.waiters.driver_key() != *key || state.queue.is_empty() {
            return Poll::Pending;
        }
        if !registered {
            // A new driver's first poll: what the task queued, it queued before anyone polled
            // it (a yield in its eager start), and the plain future would have returned
            // `Pending` to the executor at that yield. So does this poll, woken at once: the
            // queue runs at the driver's next poll, as the plain future's resumption does, and
            // an executor sees the same polls and wakes under both lowerings.
            drop(state);
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        // This poll drives the root: run what is queued now. While the batch runs, this
        // poll is not waiting, so its waker is taken out: completing the root during the
        // batch returns `Ready` without waking the executor that is polling right now, and
        // tasks scheduled during the batch stay queued for the next poll, which one wake
        // asks for (so that a yield really yields).
        let batch = state.queue.take();
        let driver = key.and_then(|key| state.waiters.remove(key).map(|kind| (key, kind)));
        drop(state);
        for task in batch {
            task.run_scheduled();
        }
        let mut state = self.lock();
        if state.status == Status::Completed {
            return Poll::Ready(self.claim_once(state, key));
        }
        if let Some((key, kind)) = driver {
            state.waiters.push_front(key, kind);
        }
        let more = !state.queue.is_empty();
        drop(state);
        if more {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }

    /// The handle registered under `key` is going away.
    pub(crate) fn withdraw(&self, key: u32) {
        let removed = self.lock().waiters.remove(key);
        drop(removed);
    }

    pub(crate) fn add_handle(&self, clone: fn(&T) -> T) {
        let heap = self.heap();
        let _ = heap.clone_value.set(clone);
        heap.handles.fetch_add(1, Ordering::Relaxed);
    }

    /// One handle is gone; the last one drops the state machine or the outcome.
    pub(crate) fn drop_handle(&self) {
        if self.heap().handles.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        let queued = {
            let mut state = self.lock();
            match state.status {
                Status::Running | Status::RunningNotified => {
                    state.orphaned = true;
                    return;
                }
                Status::Completed => {}
                Status::Idle | Status::Scheduled | Status::Dead => state.status = Status::Dead,
            }
            state.queue.take()
        };
        // Dropped outside the lock: the state machine's destructors may drop other tasks.
        // SAFETY: not running, and no handle is left: nothing else touches the machine.
        unsafe { (self.task.header().vtable().drop_contents)(self.task.ptr()) };
        drop(queued);
    }

    /// Another strong reference to the same task.
    pub(crate) fn share(&self) -> Self {
        HeapRef { task: self.task.clone(), result: PhantomData }
    }

    /// The erased reference, for code that needs no result type.
    #[allow(dead_code)]
    pub(crate) fn erased(&self) -> &CoreRef {
        &self.task
    }
}

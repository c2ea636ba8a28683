//! The heap task of a call that suspended: C#'s `AsyncStateMachineBox<TStateMachine>`.
//!
//! When `move_next` first returns `Pending`, the builder moves the state machine from the
//! caller's stack into one allocation holding the header, the state machine, its `move_next`
//! and, later, the outcome. The state machine never moves again, so awaiters stored in it
//! may be polled in place (pinned).
//!
//! # Two lifetimes
//!
//! The allocation is reference counted (`Arc`): handles, wakers, run queues and parent links
//! each hold a strong reference. The state machine and the outcome may borrow from the
//! caller, so they must not outlive the typed handles ([`crate::Task`]); a separate count of
//! handles decides when they are dropped. When it reaches zero the machine is dropped at
//! once, or by the runner if `move_next` is running; a waker that outlives every handle only
//! ever touches the header.

use std::cell::UnsafeCell;
use std::mem::ManuallyDrop;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use super::header::{self, CoreRef, CoreVTable, Header, State, Status, WaiterKind, borrowed_waker};
use super::lock::LockGuard;
use super::outcome::Outcome;
use crate::builder::{Ctx, MoveNext};

#[repr(C)]
pub(crate) struct Core<T, S> {
    /// First field: erased code reaches the header through a pointer to the core.
    header: Header,
    /// Live [`crate::Task`] handles.
    handles: AtomicUsize,
    clone_value: OnceLock<fn(&T) -> T>,
    /// Accessed only by the thread whose status transition gave it the right: the runner
    /// while `Running`, readers of the outcome under the header lock once `Completed`, the
    /// last handle once the task is neither.
    ///
    /// Emptied by the task's `Drop` (left `Gone`, which owns nothing), so its own drop glue,
    /// one more out-of-line call per task, never runs.
    machine: ManuallyDrop<UnsafeCell<Machine<T, S>>>,
}

/// An outcome claimed by a handle ([`Core::claim_once`]).
pub(crate) struct Claimed<T> {
    pub(crate) outcome: Outcome<T>,
    /// The claiming handle was the last one and gave up its share with the claim: it must not
    /// call [`Core::drop_handle`], only release its reference to the allocation.
    pub(crate) released: bool,
}

enum Machine<T, S> {
    Suspended { state_machine: S, move_next: MoveNext<T, S> },
    Finished(Option<Outcome<T>>),
    Gone,
}

// SAFETY: the state machine and the outcome are moved between threads only as a whole (the
// task runs on whichever thread drives its root), hence `S: Send` and `T: Send`; shared access
// is serialised by the header lock and the status protocol, so nothing needs `Sync`.
unsafe impl<T: Send, S: Send> Send for Core<T, S> {}
unsafe impl<T: Send, S: Send> Sync for Core<T, S> {}

impl<T, S> Core<T, S> {
    const VTABLE: CoreVTable = CoreVTable {
        run_scheduled: Self::erased_run_scheduled,
        run_claimed: Self::erased_run_claimed,
        retain: Self::erased_retain,
        release: Self::erased_release,
    };

    /// Box a state machine that returned `Pending` on the caller's stack and run it once
    /// more in its final place (the first run of a suspended call; see `crate::builder`).
    pub(crate) fn spawn(state_machine: S, move_next: MoveNext<T, S>) -> Arc<Self> {
        let core = Arc::new(Core {
            header: Header::new(Status::Running, &Self::VTABLE),
            handles: AtomicUsize::new(1),
            clone_value: OnceLock::new(),
            machine: ManuallyDrop::new(UnsafeCell::new(Machine::Suspended { state_machine, move_next })),
        });
        // The call's first run in the heap task polls foreign futures (classic tasks awaited
        // as plain ones among them) as a poll would: a yield in it waits for a real poll.
        let _running = header::polling::enter();
        core.run_claimed();
        core
    }

    #[inline]
    fn lock(&self) -> LockGuard<'_, State> {
        self.header.lock()
    }

    /// Replace the machine where it is: the old one is dropped in place, never moved first.
    /// A pinned state machine's locals may be borrowed by its other fields (an awaiter holding
    /// `&mut buf`), so moving it out to drop it would leave those borrows dangling. If a
    /// destructor panics, `new` is written all the same (the rest of the old value is leaked
    /// rather than dropped twice).
    ///
    /// # Safety
    ///
    /// The caller has the exclusive access to the machine that the status protocol gives
    /// (module docs).
    unsafe fn set_machine(&self, new: Machine<T, S>) {
        struct WriteOnExit<T, S> {
            place: *mut Machine<T, S>,
            new: ManuallyDrop<Machine<T, S>>,
        }
        impl<T, S> Drop for WriteOnExit<T, S> {
            fn drop(&mut self) {
                // SAFETY: the place was just dropped (or its drop unwound); `new` is taken once.
                unsafe { std::ptr::write(self.place, ManuallyDrop::take(&mut self.new)) }
            }
        }
        let place = self.machine.get();
        let write = WriteOnExit { place, new: ManuallyDrop::new(new) };
        // SAFETY: exclusive access (caller); the place holds a valid machine, rewritten by
        // `write` whether or not this drop unwinds.
        unsafe { std::ptr::drop_in_place(place) };
        drop(write);
    }

    /// A `CoreRef` borrowing this task's own reference (the caller holds one).
    fn this(&self) -> ManuallyDrop<CoreRef> {
        let header = NonNull::from(&self.header);
        // SAFETY: the caller runs on behalf of a strong reference; the result is never dropped.
        ManuallyDrop::new(unsafe { CoreRef::from_counted(header) })
    }

    fn run_scheduled(&self) {
        {
            let mut state = self.lock();
            if state.status != Status::Scheduled {
                return;
            }
            state.status = Status::Running;
        }
        self.run_claimed();
    }

    /// Run `move_next` once. The status is `Running`, which gives this call exclusive access
    /// to the state machine.
    fn run_claimed(&self) {
        // SAFETY: `Running` status: no other thread touches the machine (module docs).
        let machine = unsafe { &mut *self.machine.get() };
        let Machine::Suspended { state_machine, move_next } = machine else {
            // The last handle went away before this run; nothing is left to run.
            self.lock().status = Status::Dead;
            return;
        };
        let move_next = *move_next;
        let this = self.this();
        let waker = borrowed_waker(&this);
        let mut ctx = Ctx::heap(&this, &waker);
        let polled = panic::catch_unwind(AssertUnwindSafe(|| move_next(state_machine, &mut ctx)));
        match polled {
            Ok(Poll::Pending) => {
                if header::after_pending(&this) {
                    // Every handle is gone: drop the machine (and everything it awaits).
                    // SAFETY: `Dead` status, set by `after_pending`; nobody else touches it.
                    unsafe { self.set_machine(Machine::Gone) };
                }
            }
            Ok(Poll::Ready(value)) => self.finish(Outcome::Value(value)),
            Err(payload) => self.finish(Outcome::Panic(payload)),
        }
    }

    fn finish(&self, outcome: Outcome<T>) {
        // SAFETY: still `Running`. The state machine's locals were dropped by `move_next`
        // itself; its (now empty) struct goes before anyone can observe completion.
        unsafe { self.set_machine(Machine::Finished(Some(outcome))) };
        let (waiters, orphaned) = {
            let mut state = self.lock();
            state.status = Status::Completed;
            // `Completed` is never left: the header's mark says so without its lock.
            state.mark();
            (state.waiters.take_all(), state.orphaned)
        };
        if orphaned {
            // SAFETY: no handle is left to read the outcome.
            unsafe { self.set_machine(Machine::Gone) };
        }
        header::notify_completion(waiters);
    }

    /// Claim the outcome (status `Completed`, the lock held by `completed`) for the handle
    /// registered under `key`, which it forgets: completion took every waiter off the list
    /// (`finish`), so there is nothing to withdraw. The outcome is moved out for the last
    /// handle, copied for the others.
    ///
    /// The last handle also gives up its share here, under this lock, rather than taking the
    /// lock again in [`Self::drop_handle`] when it is dropped: its caller then holds only a
    /// reference to the allocation ([`Claimed::released`]). What the last handle owes is what
    /// `drop_handle` does for a completed task: the outcome (moved out just now) and the run
    /// queue, dropped after the lock is released.
    fn claim_once(&self, mut completed: LockGuard<'_, State>, key: &mut Option<u32>) -> Claimed<T> {
        *key = None;
        // SAFETY: `Completed` and the header lock is held (witnessed by the guard).
        let machine = unsafe { &mut *self.machine.get() };
        let Machine::Finished(outcome) = machine else {
            unreachable!("a completed task holds its outcome until its last handle goes")
        };
        // The count cannot grow under us: when it is 1, the only handle is the caller's, and
        // it is borrowed mutably for this call, so nothing clones it meanwhile.
        if self.handles.load(Ordering::Acquire) != 1 {
            let outcome = outcome
                .as_ref()
                .expect("the outcome is claimed once, by the last handle")
                .share(self.clone_value.get().copied());
            return Claimed { outcome, released: false };
        }
        let outcome = outcome.take().expect("the outcome is claimed once, by the last handle");
        // Nothing is left in the machine; `Gone` says so to the task's `Drop`.
        *machine = Machine::Gone;
        self.handles.store(0, Ordering::Release);
        let queued = completed.queue.take();
        drop(completed);
        // Dropped outside the lock, as in `drop_handle`.
        drop(queued);
        Claimed { outcome, released: true }
    }

    pub(crate) fn is_completed(&self) -> bool {
        self.header.is_completed()
    }

    /// Is the outcome there yet? Asked first by every classic awaiter, on its caller's stack
    /// or in its heap task: the mark answers without the lock, and a completed task is
    /// claimed without going through [`Self::poll_from_parent`]'s registration.
    #[inline]
    pub(crate) fn try_claim(&self, key: &mut Option<u32>) -> Option<Claimed<T>> {
        // The usual answer on the stack of a suspending chain (the task has just suspended).
        if !self.header.is_completed() {
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
            header::enqueue_under(parent, handed_up);
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
        if !registered && header::polling::inside() {
            // A new driver inside a run of the classic runtime: what this task queued, it
            // queued within that run (`header::polling`); it runs at the driver's next poll.
            drop(state);
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let _running = header::polling::enter();
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
        let _ = self.clone_value.set(clone);
        self.handles.fetch_add(1, Ordering::Relaxed);
    }

    /// One handle is gone; the last one drops the state machine or the outcome.
    pub(crate) fn drop_handle(&self) {
        if self.handles.fetch_sub(1, Ordering::AcqRel) != 1 {
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
        unsafe { self.set_machine(Machine::Gone) };
        drop(queued);
    }

    unsafe fn from_header<'a>(header: NonNull<Header>) -> &'a Self {
        // SAFETY: `Header` is the first field of this `repr(C)` struct, and the caller holds
        // a strong reference.
        unsafe { header.cast::<Self>().as_ref() }
    }

    unsafe fn erased_run_scheduled(header: NonNull<Header>) {
        // SAFETY: called through a live `CoreRef`.
        unsafe { Self::from_header(header) }.run_scheduled();
    }

    unsafe fn erased_run_claimed(header: NonNull<Header>) {
        // SAFETY: called through a live `CoreRef`; the caller set `Running`.
        unsafe { Self::from_header(header) }.run_claimed();
    }

    unsafe fn erased_retain(header: NonNull<Header>) {
        // SAFETY: the pointer came from `Arc::into_raw` of an `Arc<Self>` (via `as_ref`).
        unsafe { Arc::increment_strong_count(header.cast::<Self>().as_ptr()) }
    }

    unsafe fn erased_release(header: NonNull<Header>) {
        // SAFETY: as above; the caller gives up one strong reference. Dropping the last one
        // only frees memory: the machine was already dropped with the last handle.
        unsafe { Arc::decrement_strong_count(header.cast::<Self>().as_ptr()) }
    }
}

impl<T, S> Drop for Core<T, S> {
    fn drop(&mut self) {
        // Reached when the last strong reference goes. The last handle normally emptied the
        // machine already; a task that was never handed out (a panic between `spawn` and the
        // handle) is emptied here.
        // Usually gone already: then there is nothing to drop and nothing to write.
        if !matches!(self.machine.get_mut(), Machine::Gone) {
            // SAFETY: `&mut self`: nothing else touches the machine.
            unsafe { self.set_machine(Machine::Gone) };
        }
        // The field is `ManuallyDrop` and now `Gone`, which owns nothing: nothing is leaked.
    }
}

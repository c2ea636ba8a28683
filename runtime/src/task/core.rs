//! The heap task of a call that suspended: C#'s `AsyncStateMachineBox<TResult, TStateMachine>`.
//!
//! When `move_next` first returns `Pending`, the builder moves the state machine from the
//! caller's stack into one allocation holding the task's [`Heap`] part (header, handle count),
//! the state machine, its `move_next` and, later, the outcome. The state machine never moves
//! again, so awaiters stored in it may be polled in place (pinned).
//!
//! Only this module names the state machine's type. Everything else reaches the box through
//! its header's vtable (wakers, queues, parents) or through its `Heap<T>` prefix (the handles,
//! `super::heap`), so that no type outside the box, and in particular no caller's state
//! machine, contains it.
//!
//! # Two lifetimes
//!
//! The allocation is reference counted (an `Arc` of the box): handles, wakers, run queues and
//! parent links each hold a strong reference. The state machine and the outcome may borrow
//! from the caller, so they must not outlive the typed handles ([`crate::Task`]); a separate
//! count of handles decides when they are dropped. When it reaches zero the machine is
//! dropped at once, or by the runner if `move_next` is running; a waker that outlives every
//! handle only ever touches the header.

use std::cell::UnsafeCell;
use std::mem::ManuallyDrop;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::task::Poll;

use super::context::{Ctx, MoveNext};
use super::header::{self, CoreRef, CoreVTable, Header, Status, borrowed_waker};
use super::heap::{self, Heap, HeapRef};
use super::outcome::Outcome;

#[repr(C)]
pub(crate) struct Core<T, S> {
    /// First field (and the header first in it): handles see the box as a `Heap<T>`, erased
    /// code as a `Header`.
    heap: Heap<T>,
    /// Accessed only by the thread whose status transition gave it the right: the runner
    /// while `Running`, readers of the outcome under the header lock once `Completed`, the
    /// last handle once the task is neither.
    ///
    /// Emptied by the task's `Drop` (left `Gone`, which owns nothing), so its own drop glue,
    /// one more out-of-line call per task, never runs.
    machine: ManuallyDrop<UnsafeCell<Machine<T, S>>>,
}

enum Machine<T, S> {
    Suspended {
        state_machine: S,
        move_next: MoveNext<T, S>,
    },
    /// The outcome, until the last handle takes it (`None` then: nothing left to drop).
    Finished(Option<Outcome<T>>),
    Gone,
}

impl<T, S> Core<T, S> {
    const VTABLE: CoreVTable = CoreVTable {
        run_scheduled: Self::run_scheduled,
        run_claimed: Self::run_claimed,
        free: Self::free,
        drop_machine: Self::drop_machine,
        outcome: Self::outcome,
    };

    /// Box a state machine that returned `Pending` on the caller's stack and run it once
    /// more in its final place (the first run of a suspended call; see `crate::builder`).
    pub(crate) fn spawn(state_machine: S, move_next: MoveNext<T, S>) -> HeapRef<T> {
        let core = Box::new(Core {
            heap: Heap::new(Header::new(Status::Running, &Self::VTABLE)),
            machine: ManuallyDrop::new(UnsafeCell::new(Machine::Suspended { state_machine, move_next })),
        });
        // The box's address with the provenance of the whole allocation, which every erased
        // reference (and the vtable functions it reaches) uses.
        let header = NonNull::from(Box::leak(core)).cast::<Header>();
        // SAFETY: the header counts one reference from the start, handed over here; the box
        // begins with a `Heap<T>` of this `T`.
        let task = unsafe { HeapRef::new(CoreRef::from_counted(header)) };
        // The call's first run in the heap task polls foreign futures (classic tasks awaited
        // as plain ones among them) as a poll would: a yield in it waits for a real poll.
        let _running = header::polling::enter();
        // SAFETY: `task` holds a reference; the status is `Running` from the start.
        unsafe { Self::run_claimed(header) };
        task
    }

    /// # Safety
    ///
    /// `header` is the header of a live `Core<T, S>` of these very types.
    unsafe fn from_header<'a>(header: NonNull<Header>) -> &'a Self {
        // SAFETY: `Heap<T>` is the first field of this `repr(C)` struct, and `Header` the
        // first of its; the caller's promise keeps the box alive.
        unsafe { header.cast::<Self>().as_ref() }
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
    /// (`super::header`'s module docs).
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

    /// Run the task once if it is still scheduled (called from a run queue).
    unsafe fn run_scheduled(header: NonNull<Header>) {
        // SAFETY: called through a live reference to this box.
        if header::claim_scheduled(unsafe { header.as_ref() }) {
            // SAFETY: as above; the status is now `Running`.
            unsafe { Self::run_claimed(header) };
        }
    }

    /// Run `move_next` once. The status is `Running`, which gives this call exclusive access
    /// to the state machine.
    unsafe fn run_claimed(header: NonNull<Header>) {
        // SAFETY: called through a live reference to this box.
        let core = unsafe { Self::from_header(header) };
        // SAFETY: `Running` status: no other thread touches the machine (module docs).
        let machine = unsafe { &mut *core.machine.get() };
        let Machine::Suspended { state_machine, move_next } = machine else {
            // The last handle went away before this run; nothing is left to run.
            core.heap.header.lock().status = Status::Dead;
            return;
        };
        let move_next = *move_next;
        // SAFETY: the caller holds a reference for the whole run.
        let this = unsafe { heap::borrowed(header) };
        let waker = borrowed_waker(&this);
        let mut ctx = Ctx::heap(&this, &waker);
        let polled = panic::catch_unwind(AssertUnwindSafe(|| move_next(state_machine, &mut ctx)));
        match polled {
            Ok(Poll::Pending) => {
                if header::after_pending(&this) {
                    // Every handle is gone: drop the machine (and everything it awaits).
                    // SAFETY: `Dead` status, set by `after_pending`; nobody else touches it.
                    unsafe { core.set_machine(Machine::Gone) };
                }
            }
            Ok(Poll::Ready(value)) => core.finish(Outcome::Value(value)),
            Err(payload) => core.finish(Outcome::Panic(payload)),
        }
    }

    fn finish(&self, outcome: Outcome<T>) {
        // SAFETY: still `Running`. The state machine's locals were dropped by `move_next`
        // itself; its (now empty) struct goes before anyone can observe completion.
        unsafe { self.set_machine(Machine::Finished(Some(outcome))) };
        let (waiters, orphaned) = header::complete(&self.heap.header);
        if orphaned {
            // SAFETY: no handle is left to read the outcome.
            unsafe { self.set_machine(Machine::Gone) };
        }
        header::notify_completion(waiters);
    }

    unsafe fn drop_machine(header: NonNull<Header>) {
        // SAFETY: called through a live reference, with the exclusive access the caller has.
        unsafe { Self::from_header(header).set_machine(Machine::Gone) }
    }

    unsafe fn outcome(header: NonNull<Header>) -> NonNull<()> {
        // SAFETY: called through a live reference, on a completed task, under its lock.
        match unsafe { &mut *Self::from_header(header).machine.get() } {
            Machine::Finished(outcome) => NonNull::from(outcome).cast(),
            _ => unreachable!("a completed task holds its outcome until its last handle takes it"),
        }
    }

    unsafe fn free(header: NonNull<Header>) {
        // SAFETY: the box came from `Box::leak` (`spawn`) and the last reference is gone.
        // Freeing only drops what is left, which the last handle normally emptied already.
        drop(unsafe { Box::from_raw(header.cast::<Self>().as_ptr()) });
    }
}

impl<T, S> Drop for Core<T, S> {
    fn drop(&mut self) {
        // Reached when the last strong reference goes. The last handle normally emptied the
        // machine already (or took the outcome); a task that was never handed out (a panic
        // between `spawn` and the handle) is emptied here.
        if !matches!(self.machine.get_mut(), Machine::Gone | Machine::Finished(None)) {
            // SAFETY: `&mut self`: nothing else touches the machine.
            unsafe { self.set_machine(Machine::Gone) };
        }
        // The field is `ManuallyDrop`, and what is left in it owns nothing: nothing leaks.
    }
}

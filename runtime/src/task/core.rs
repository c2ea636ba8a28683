//! The heap task of a call that suspended: C#'s `AsyncStateMachineBox<TResult, TStateMachine>`.
//!
//! When `move_next` first returns `Pending`, the builder moves the state machine from the
//! caller's stack into one allocation: the task's [`Heap`] part (header, handle count), then a
//! slot that holds the state machine and, once it has returned, the outcome in its place. The
//! state machine never moves again, so awaiters stored in it may be polled in place (pinned).
//!
//! Only this module names the state machine's type, and only in the few functions that must:
//! boxing it ([`spawn`]), running one step of `move_next`, dropping it. Everything else reaches
//! the box through its header's vtable (wakers, queues, parents, the run loop `schedule::run_claimed`,
//! freeing) or through its `Heap<T>` prefix (the handles, `super::heap`), so that no type
//! outside the box, and in particular no caller's state machine, contains it, and so that a
//! classic function costs as little generic code as it can.
//!
//! # Two lifetimes
//!
//! The allocation is reference counted (in its header): handles, wakers, run queues and parent
//! links each hold a strong reference. The state machine and the outcome may borrow from the
//! caller, so they must not outlive the typed handles ([`crate::Task`]); a separate count of
//! handles decides when they are dropped. When it reaches zero the slot is emptied at once, or
//! by the runner if `move_next` is running; a waker that outlives every handle only ever
//! touches the header.

use std::alloc::Layout;
use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::mem::{ManuallyDrop, offset_of};
use std::ptr::NonNull;
use std::task::Poll;

use super::header::{CoreVTable, Ctx, Header, MoveNextFn, Status, Step};
use super::heap::{self, Contents, Heap, HeapRef};
use super::outcome::Outcome;
use super::schedule;

#[repr(C)]
struct Core<T, S> {
    /// First field (and the header first in it): handles see the box as a `Heap<T>`, erased
    /// code as a `Header`.
    heap: Heap<T>,
    /// What `heap.contents` says: the state machine, the outcome, or nothing.
    slot: UnsafeCell<Slot<T, S>>,
}

/// The state machine, or in its place the outcome: a call needs one at a time.
#[repr(C)]
union Slot<T, S> {
    machine: ManuallyDrop<S>,
    outcome: ManuallyDrop<Outcome<T>>,
}

/// The vtable of the boxes of one classic function: its state machine `S` and its `move_next`
/// closure `M` (zero-sized, so the vtable's `step` calls it without a pointer of its own).
struct Steps<T, S, M>(PhantomData<Marker<T, S, M>>);

/// What `Steps` is generic over, owning none of it.
type Marker<T, S, M> = (fn() -> T, fn() -> S, M);

impl<T, S, M: MoveNextFn<T, S>> Steps<T, S, M> {
    const VTABLE: CoreVTable = CoreVTable {
        run_scheduled: Self::run_scheduled,
        step: Self::step,
        store_panic: heap::store_panic::<T>,
        drop_contents: drop_contents::<T, S>,
        layout: Layout::new::<Core<T, S>>(),
        slot_offset: offset_of!(Core<T, S>, slot),
    };

    /// Run `move_next` once in the box (status `Running`); store the value when it returns it.
    ///
    /// (Written with as few raw-pointer reads as it can: a debug build checks each one, and
    /// this is code every classic function has a copy of.)
    unsafe fn step(header: NonNull<Header>, ctx: &mut Ctx<'_>) -> Step {
        // SAFETY: called through a live reference to a box of these types, while `Running`,
        // which gives this call exclusive access to the slot.
        let (contents, slot) = unsafe { Core::<T, S>::parts(header) };
        if *contents != Contents::Machine {
            // The last handle went away before this run; nothing is left to run.
            return Step::Gone;
        }
        // SAFETY: the slot holds the state machine (`contents`).
        let state_machine = unsafe { &mut *slot.machine };
        match conjure::<M>()(state_machine, ctx) {
            Poll::Pending => Step::Pending,
            Poll::Ready(value) => {
                // The state machine's locals were dropped by `move_next` itself; its (now
                // empty) struct goes before anyone can observe completion. Marked empty first:
                // a destructor that panics leaves nothing to drop twice.
                *contents = Contents::Empty;
                // SAFETY: the slot holds the state machine, dropped in place (a pinned one may
                // be borrowed by its own fields) and then overwritten.
                unsafe { ManuallyDrop::drop(&mut slot.machine) };
                slot.outcome = ManuallyDrop::new(Outcome::Value(value));
                *contents = Contents::Outcome;
                Step::Ready
            }
        }
    }

    /// Run the task once if it is still scheduled (called from a run queue).
    unsafe fn run_scheduled(header: NonNull<Header>) {
        // SAFETY: called through a live reference to this box.
        if schedule::claim_scheduled(unsafe { header.as_ref() }) {
            // SAFETY: as above; the status is now `Running`.
            unsafe { schedule::run_claimed(header) };
        }
    }
}

/// Drop what the slot holds, in place, and mark it empty first (a destructor that panics
/// leaves nothing to drop twice).
///
/// # Safety
///
/// `header` is a live box of these types, and the caller has the exclusive access to its slot
/// that the status protocol gives.
unsafe fn drop_contents<T, S>(header: NonNull<Header>) {
    // SAFETY: the caller's promise.
    let (contents, slot) = unsafe { Core::<T, S>::parts(header) };
    match std::mem::replace(contents, Contents::Empty) {
        // SAFETY: `contents` said what the slot held; it says `Empty` from now on.
        Contents::Machine => unsafe { ManuallyDrop::drop(&mut slot.machine) },
        // SAFETY: as above.
        Contents::Outcome => unsafe { ManuallyDrop::drop(&mut slot.outcome) },
        Contents::Empty => {}
    }
}

/// A value of the zero-sized closure type `M`.
#[inline(always)]
fn conjure<M>() -> M {
    const { assert!(size_of::<M>() == 0, "lowering: `move_next` must not capture anything") };
    // SAFETY: `M` is zero-sized (checked above) and a value of it existed (the builder's
    // argument, which chose the vtable that calls this): a closure without captures has no
    // bytes and no invariant, so every value of it is that value; a read of zero bytes from
    // an aligned dangling pointer is valid.
    unsafe { std::ptr::NonNull::<M>::dangling().as_ptr().read() }
}

impl<T, S> Core<T, S> {
    /// The box's contents tag and slot.
    ///
    /// # Safety
    ///
    /// `header` is a live box of these types, and the caller has the exclusive access to its
    /// slot that the status protocol gives, for as long as it uses the references.
    #[inline(always)]
    unsafe fn parts<'a>(header: NonNull<Header>) -> (&'a mut Contents, &'a mut Slot<T, S>) {
        // SAFETY: the caller's promise; the two places do not overlap.
        unsafe {
            let core = header.cast::<Self>().as_ptr();
            (&mut *(*core).heap.contents.get(), &mut *(*core).slot.get())
        }
    }
}

/// Box a state machine that returned `Pending` on the caller's stack and run it once more in
/// its final place (the first run of a suspended call; see `crate::builder`).
pub(crate) fn spawn<T, S, M: MoveNextFn<T, S>>(state_machine: S, _: M) -> HeapRef<T> {
    let vtable = &Steps::<T, S, M>::VTABLE;
    let core = heap::allocate(vtable.layout).cast::<Core<T, S>>();
    // SAFETY: a fresh allocation of this layout.
    unsafe {
        core.write(Core {
            heap: Heap::new(Header::new(Status::Running, vtable)),
            slot: UnsafeCell::new(Slot { machine: ManuallyDrop::new(state_machine) }),
        });
    }
    // SAFETY: the header counts one reference from the start, which `first_run` hands to the
    // task's first handle; the box begins with a `Heap<T>` of this `T`; the status is
    // `Running` from the start. The pointer has the provenance of the whole allocation, which
    // every erased reference (and the vtable functions it reaches) uses.
    unsafe { HeapRef::new(schedule::first_run(core.cast::<Header>())) }
}

//! Locals that stay where they are: the fields of a pinned state machine (see
//! [`crate::builder::start_pinned`]).
//!
//! A classic state machine normally moves each local out of its field when a state begins and
//! back in when it ends, which a borrow of that local cannot survive. A local that an await
//! may hold a borrow of (`read(&mut buf).await`, `let r = &v; f().await`) instead lives in a
//! [`Slot`] for its whole life, and the code of every state reaches it through a [`Place`],
//! a raw pointer to that slot: borrows taken in one state stay valid in the next, because the
//! state machine never moves once it runs.
//!
//! A slot knows whether it holds a value (its drop flag, which the plain `async fn` keeps as
//! well): a local moved out (`Place::take`) or not yet assigned holds none, and neither drops
//! nor may be read. The soundness argument for the code that uses these types is written
//! where it is generated (`lowering-macros`, `classic::generate::places`).

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::mem::MaybeUninit;

/// One local of a pinned state machine, with its drop flag.
///
/// `M` holds one bit per field that the function moves out of the local: a `u32` for up to 32
/// such fields (the generated code names a wider mask, `[u32; N]`, for a local with more), so
/// that a slot costs no more than its fields need.
pub struct Slot<T, M: MovedFields = u32> {
    live: bool,
    /// The fields moved out of the value (`consume(pair.a)`), one bit each, as the generated
    /// code numbers them; `rest` drops the others.
    moved: M,
    rest: Option<RestDropper<T, M>>,
    value: MaybeUninit<T>,
}

/// Drops what is left of a partly moved value: every field but those whose bits are set.
pub type RestDropper<T, M = u32> = fn(*mut T, M);

/// A set of field numbers: which fields of a local kept in place have moved out.
pub trait MovedFields: Copy {
    /// No field moved.
    const NONE: Self;
    fn insert(&mut self, field: u32);
    fn remove(&mut self, field: u32);
    fn contains(&self, field: u32) -> bool;
    fn is_empty(&self) -> bool;
}

impl MovedFields for u32 {
    const NONE: Self = 0;
    #[inline(always)]
    fn insert(&mut self, field: u32) {
        *self |= 1 << field;
    }
    #[inline(always)]
    fn remove(&mut self, field: u32) {
        *self &= !(1 << field);
    }
    #[inline(always)]
    fn contains(&self, field: u32) -> bool {
        *self & (1 << field) != 0
    }
    #[inline(always)]
    fn is_empty(&self) -> bool {
        *self == 0
    }
}

impl<const N: usize> MovedFields for [u32; N] {
    const NONE: Self = [0; N];
    #[inline(always)]
    fn insert(&mut self, field: u32) {
        self[field as usize / 32].insert(field % 32);
    }
    #[inline(always)]
    fn remove(&mut self, field: u32) {
        self[field as usize / 32].remove(field % 32);
    }
    #[inline(always)]
    fn contains(&self, field: u32) -> bool {
        self[field as usize / 32].contains(field % 32)
    }
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.iter().all(|word| *word == 0)
    }
}

impl<T, M: MovedFields> Slot<T, M> {
    /// A local not assigned yet.
    #[inline]
    pub const fn empty() -> Self {
        Slot { live: false, moved: M::NONE, rest: None, value: MaybeUninit::uninit() }
    }

    /// A parameter: assigned by the stub.
    #[inline]
    pub const fn holding(value: T) -> Self {
        Slot { live: true, moved: M::NONE, rest: None, value: MaybeUninit::new(value) }
    }
}

impl<T, M: MovedFields> Slot<T, M> {
    /// Drops the value if there is one (what is left of it, if fields were moved out).
    ///
    /// # Safety
    ///
    /// `slot` points to a slot that no one else uses during the call.
    unsafe fn drop_value(slot: *mut Slot<T, M>) {
        // SAFETY: the caller's promise; `live` and `moved` are cleared before any destructor
        // runs, so a panicking one cannot make the value drop twice.
        unsafe {
            if !(*slot).live {
                return;
            }
            (*slot).live = false;
            let moved = std::mem::replace(&mut (*slot).moved, M::NONE);
            let value = (&raw mut (*slot).value).cast::<T>();
            match (*slot).rest {
                Some(rest) if !moved.is_empty() => rest(value, moved),
                _ => std::ptr::drop_in_place(value),
            }
        }
    }
}

impl<T, M: MovedFields> Drop for Slot<T, M> {
    fn drop(&mut self) {
        // SAFETY: `&mut self`.
        unsafe { Slot::drop_value(self) }
    }
}

/// Where a [`Slot`] is: what the generated code names a local by while that local lives in
/// place. Copied freely; valid as long as the pinned state machine that holds the slot.
pub struct Place<T, M: MovedFields = u32> {
    slot: *mut Slot<T, M>,
}

impl<T, M: MovedFields> Clone for Place<T, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, M: MovedFields> Copy for Place<T, M> {}

// SAFETY: a place is a path to a value of type `T` inside a state machine; sending or sharing
// it is sending or sharing access to that `T` (it is only ever used by the state machine's own
// code, which runs on one thread at a time).
unsafe impl<T: Send, M: MovedFields> Send for Place<T, M> {}
unsafe impl<T: Sync, M: MovedFields> Sync for Place<T, M> {}

impl<T, M: MovedFields> Place<T, M> {
    /// The place of the slot at `slot`, a field of a state machine that will not move again.
    #[inline(always)]
    pub fn of(slot: *mut Slot<T, M>) -> Self {
        Place { slot }
    }

    /// The local's value, to use as a place (`(*v.get()).len()`, `&mut *v.get()`).
    ///
    /// Panics if the local holds no value: the generated code only reads a local that holds
    /// one (rustc checks the user's body for that, in its borrow-check twin), so reaching the
    /// panic is a bug of the classic lowering, reported instead of reading uninitialized
    /// memory.
    #[inline(always)]
    pub fn get(self) -> *mut T {
        // SAFETY: the slot outlives every place of it (module docs).
        unsafe {
            if !(*self.slot).live {
                dead_local();
            }
            (&raw mut (*self.slot).value).cast::<T>()
        }
    }

    /// `v = value`: the old value, if any, drops after the new one is computed, as in Rust.
    #[inline]
    pub fn assign(self, value: T) {
        // SAFETY: as in `get`; a live value is dropped once, then replaced.
        unsafe {
            Slot::drop_value(self.slot);
            (*self.slot).value.write(value);
            (*self.slot).live = true;
        }
    }

    /// `&(v = value)`: `v = value`, then a borrow of `v`, for a temporary the lowering keeps
    /// where Rust keeps it, made where it is borrowed (`f(&[&a]).await`), so that the value has
    /// the type that the borrow's context expects.
    #[inline]
    pub fn assign_and_borrow<'a>(self, value: T) -> &'a T {
        self.assign(value);
        // SAFETY: as in `get`: the slot outlives the borrow, which the generated code holds no
        // longer than the temporary's scope (rustc checks the plain borrow in the twin).
        unsafe { &*self.get() }
    }

    /// `&mut (v = value)`: as `assign_and_borrow`, a unique borrow.
    #[inline]
    pub fn assign_and_borrow_mut<'a>(self, value: T) -> &'a mut T {
        self.assign(value);
        // SAFETY: as in `assign_and_borrow`.
        unsafe { &mut *self.get() }
    }

    /// Move a field out (`consume(pair.a)`): `field` points into this local's value, `index`
    /// numbers the field among those the function moves out of it, and `rest` drops the
    /// others when the local drops (as Rust drops a partly moved value). A `Copy` field is
    /// moved the same way: its bits stay, and dropping it is nothing.
    #[inline]
    // Called by generated code only, with a pointer into this local's value (the module
    // docs and `lowering-macros`' `generate::places` give the argument).
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn take_field<F>(self, index: u32, field: *mut F, rest: RestDropper<T, M>) -> F {
        // SAFETY: as in `get`; `field` is a field of the live value (generated code), read
        // once: the bit makes `rest` forget it.
        unsafe {
            let slot = &mut *self.slot;
            if !slot.live {
                dead_local();
            }
            slot.moved.insert(index);
            slot.rest = Some(rest);
            std::ptr::read(field)
        }
    }

    /// `pair.a = value` for a field that `take_field` may have moved out: written without
    /// dropping if it was moved, assigned (the old value drops) otherwise.
    #[inline]
    // Called by generated code only, with a pointer into this local's value (the module
    // docs and `lowering-macros`' `generate::places` give the argument).
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn assign_field<F>(self, index: u32, field: *mut F, value: F) {
        // SAFETY: as in `take_field`.
        unsafe {
            let slot = &mut *self.slot;
            if slot.moved.contains(index) {
                std::ptr::write(field, value);
                slot.moved.remove(index);
            } else {
                *field = value;
            }
        }
    }

    /// Move the value out (`consume(v)`): the local holds nothing afterwards.
    ///
    /// Panics if the local holds no value, or only part of one (a field moved out by
    /// `take_field`): Rust never moves a partly moved value whole, so reaching the panic is a
    /// bug of the classic lowering, reported instead of moving a field twice.
    #[inline]
    pub fn take(self) -> T {
        // SAFETY: as in `get`; `live` is cleared before the value is read, so it moves once.
        unsafe {
            let slot = &mut *self.slot;
            if !slot.live || !slot.moved.is_empty() {
                dead_local();
            }
            slot.live = false;
            slot.value.assume_init_read()
        }
    }

    /// Drops the local where its scope ends (the guard is forgotten where a state ends inside
    /// the scope: the local lives on in its slot).
    #[inline(always)]
    pub fn guard(self) -> SlotGuard<T, M> {
        SlotGuard { place: self }
    }
}

/// Drops a slot's value at the end of the scope that declares the local, in the order Rust
/// drops locals (the guard is declared with the local).
pub struct SlotGuard<T, M: MovedFields = u32> {
    place: Place<T, M>,
}

impl<T, M: MovedFields> Drop for SlotGuard<T, M> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: as in `Place::get`.
        unsafe { Slot::drop_value(self.place.slot) }
    }
}

/// A local kept in place, lent to code the classic lowering cannot see into (a user's macro,
/// which may expand to a `move` closure or an `async move` block that it stores): a reference
/// whose lifetime is that of `run`, a borrow of a local of the current run of `move_next`.
/// Whatever captures it cannot outlive that run, so a macro that keeps a borrow of the local
/// longer (past the call, or across one of the function's awaits) is rustc's compile error at
/// the user's line, never a pointer into a state machine that may have been freed.
///
/// # Safety
///
/// `place` is the place of a local of the pinned state machine whose `move_next` is running,
/// and `run` borrows a local of that run. Several lent references to one local may be alive
/// at once (one per mention in the macro's tokens); rustc checked in the borrow-check twin that
/// the user's code uses them as it may use the local itself.
#[inline(always)]
// The `&mut` comes from the place, not from `run`, which only bounds it; the lifetime is named
// because it is the point of the function.
#[allow(clippy::mut_from_ref, clippy::needless_lifetimes)]
pub unsafe fn lend<'run, T, M: MovedFields>(place: Place<T, M>, run: &'run ()) -> &'run mut T {
    let _ = run;
    // SAFETY: the caller's promise; `get` checks that the local holds a value.
    unsafe { &mut *place.get() }
}

#[cold]
#[inline(never)]
fn dead_local() -> ! {
    unreachable!("lowering: a local read after it was moved out (a bug in the classic lowering)")
}

/// A use by value of a local that lives in place (`consume(v)`, `let w = v;`), which code
/// after it uses again: a copy when its type is `Copy`, a reborrow when it is a `&mut`
/// (`fill(buf)` leaves `buf` usable, as Rust's implicit reborrow does), a move
/// (`Place::take`) otherwise, as Rust decides. Picked by autoref-specialization at the use:
/// `(&ByValue(v)).by_value()` resolves to [`CopyOut`] or [`ReborrowOut`] when they apply (a
/// type parameter without a `Copy` bound is not `Copy`), to [`MoveOut`] otherwise.
pub struct ByValue<T, M: MovedFields = u32>(pub Place<T, M>);

pub trait CopyOut<T> {
    fn by_value(&self) -> T;
}

impl<T: Copy, M: MovedFields> CopyOut<T> for ByValue<T, M> {
    #[inline(always)]
    fn by_value(&self) -> T {
        // SAFETY: as in `Place::get`.
        unsafe { *self.0.get() }
    }
}

pub trait ReborrowOut<'a, T: ?Sized> {
    fn by_value(&self) -> &'a mut T;
}

impl<'a, T: ?Sized, M: MovedFields> ReborrowOut<'a, T> for ByValue<&'a mut T, M> {
    #[inline(always)]
    fn by_value(&self) -> &'a mut T {
        // SAFETY: as in `Place::get`; a reborrow of the reference the local holds, which
        // rustc checked in the twin as the implicit reborrow it is there.
        unsafe { &mut **self.0.get() }
    }
}

pub trait MoveOut<T> {
    fn by_value(&self) -> T;
}

impl<T, M: MovedFields> MoveOut<T> for &ByValue<T, M> {
    #[inline(always)]
    fn by_value(&self) -> T {
        self.0.take()
    }
}

/// A binding of a `match` arm on a local that lives in place, which the `match` took whole
/// (`match v { Err(code) => .., Ok(s) => .. }`), read through a reference into that value
/// (`probe`), with the type `B` the arm binds it by when it matches the value itself (a
/// never-run match of the value fixes it, `bound`): `Some(copy)` when `B` is `Copy`, `None`
/// otherwise. Where every binding of the arm is a copy, the arm moved nothing in Rust, and the
/// value goes back into its place; else the bindings move out of it. Picked by
/// autoref-specialization (`(&CopiedBinding::new(r, bound)).copied()`), as [`ByValue`] is: a
/// type parameter without a `Copy` bound is not `Copy`.
///
/// `B` is the referent's type (`Ok(n)` on a `Result<u32, _>`: the probe's `&u32` gives a
/// `u32`), or the probe's reference itself where the pattern reaches the binding through a
/// reference inside the value, which a match of the value binds by reference too
/// (`Some(Host::Tcp(name))` on an `Option<&Host>`: `name` is a `&String` either way).
pub struct CopiedBinding<'a, T, B>(&'a T, PhantomData<B>);

impl<'a, T, B> CopiedBinding<'a, T, B> {
    #[inline(always)]
    pub fn new(probe: &'a T, _bound: Option<&B>) -> Self {
        CopiedBinding(probe, PhantomData)
    }
}

pub trait CopyBinding<B> {
    fn copied(&self) -> Option<B>;
}

impl<'a, T, B: Copy + BindingFromProbe<'a, T>> CopyBinding<B> for CopiedBinding<'a, T, B> {
    #[inline(always)]
    fn copied(&self) -> Option<B> {
        Some(B::from_probe(self.0))
    }
}

pub trait MoveBinding<B> {
    fn copied(&self) -> Option<B>;
}

impl<T, B> MoveBinding<B> for &CopiedBinding<'_, T, B> {
    #[inline(always)]
    fn copied(&self) -> Option<B> {
        None
    }
}

/// A binding's value from the reference the probe of [`CopiedBinding`] bound: a copy of the
/// referent, or the reference.
pub trait BindingFromProbe<'a, T> {
    fn from_probe(probe: &'a T) -> Self;
}

impl<'a, T: Copy> BindingFromProbe<'a, T> for T {
    #[inline(always)]
    fn from_probe(probe: &'a T) -> T {
        *probe
    }
}

impl<'a, T> BindingFromProbe<'a, T> for &'a T {
    #[inline(always)]
    fn from_probe(probe: &'a T) -> &'a T {
        probe
    }
}

/// The value of `value` never computed: the type a never-run `match` of it binds its arms'
/// bindings by (`CopiedBinding`'s `bound`).
#[inline(always)]
pub fn matched_type_of<T>(_value: &T) -> T {
    unreachable!("lowering: a match only type-checked ran (a bug in the classic lowering)")
}

/// A `match` on a local kept in place whose arm moves a part of it out (a binding that is not
/// `Copy`), where code after the arm's bindings reads the local again (a field the arm left,
/// `pair.1` after `(Some(s), _) => ..`): the lowering takes the value whole for such an arm and
/// cannot give back what the arm leaves, so it asks that every binding be `Copy`, which rustc
/// checks at the arm (E0277). Bind the moved part by reference (`ref s`, or `match &pair`) and
/// clone what the arm keeps, or move the part out in a `let` of its own before the `match`.
#[inline(always)]
pub fn bindings_of_an_arm_that_moves_part_of_a_local_read_again_must_be_copy<B: Copy>(_bound: &Option<B>) {}

/// A use by value of a field of a local that lives in place (`consume(pair.a)`, `node.v` with
/// `node: &Node`): a copy when the field's type is `Copy`, a reborrow when it is a `&mut`, a
/// move out of the local otherwise (`Place::take_field`: its bit is set and the rest drops
/// without it), as Rust decides. Picked by autoref-specialization, as [`ByValue`] is: a copy
/// or a reborrow needs no bit and no mutable access, so a field reached through a `&` or an
/// `Arc` (`node.v`, `self.n`) is read where it is; a move is only ever of a field the local
/// owns, since rustc rejects any other in the borrow-check twin.
pub struct FieldByValue<T, F, M: MovedFields = u32> {
    place: Place<T, M>,
    index: u32,
    field: *const F,
    rest: RestDropper<T, M>,
}

impl<T, F, M: MovedFields> FieldByValue<T, F, M> {
    #[inline(always)]
    pub fn new(place: Place<T, M>, index: u32, field: *const F, rest: RestDropper<T, M>) -> Self {
        FieldByValue { place, index, field, rest }
    }
}

pub trait CopyFieldOut<F> {
    fn field_by_value(&self) -> F;
}

impl<T, F: Copy, M: MovedFields> CopyFieldOut<F> for FieldByValue<T, F, M> {
    #[inline(always)]
    fn field_by_value(&self) -> F {
        // SAFETY: `field` points into the live value of the local (generated code, `Place::get`
        // checked it holds one), and a copy leaves it as it was.
        unsafe { *self.field }
    }
}

pub trait ReborrowFieldOut<'a, F: ?Sized> {
    fn field_by_value(&self) -> &'a mut F;
}

impl<'a, T, F: ?Sized, M: MovedFields> ReborrowFieldOut<'a, F> for FieldByValue<T, &'a mut F, M> {
    #[inline(always)]
    fn field_by_value(&self) -> &'a mut F {
        // SAFETY: as in `CopyFieldOut`; a reborrow of the reference the field holds (read
        // through the pointer, which only reads the field), which rustc checked in the twin as
        // the implicit reborrow it is there.
        unsafe { &mut *std::ptr::read(self.field) }
    }
}

pub trait MoveFieldOut<F> {
    fn field_by_value(&self) -> F;
}

impl<T, F, M: MovedFields> MoveFieldOut<F> for &FieldByValue<T, F, M> {
    #[inline(always)]
    fn field_by_value(&self) -> F {
        // A move of a field the local owns (the twin rejects any other): the pointer came from
        // the local's own place, which the state machine owns mutably.
        self.place.take_field(self.index, self.field.cast_mut(), self.rest)
    }
}

/// A local that a non-`move` closure or async block both assigns and uses by value
/// (`p = f().await; consume(p);`). Rust's closure borrows such a local mutably when its type is
/// `Copy` (a use by value is a copy) and a `&mut` (a reborrow), and takes it by value
/// otherwise, dropping it with the closure. `(&Capture(v)).capture()` picks the same by
/// autoref-specialization, when the code is made: [`CaptureCopy`], [`CaptureReborrow`] or
/// [`CaptureByValue`].
pub struct Capture<T, M: MovedFields = u32>(pub Place<T, M>);

/// What a closure or async block captured of a [`Capture`]d local: the outer local's place,
/// or the value in a slot of its own, which drops with the closure or block.
pub enum Captured<T, M: MovedFields = u32> {
    Outer(Place<T, M>),
    /// In a cell, so that a closure reaching it through `&self` stays callable as the plain
    /// one is (`Fn` or `FnOnce`, never needing a `mut` binding that the user did not write).
    Own(UnsafeCell<Slot<T, M>>),
}

impl<T, M: MovedFields> Captured<T, M> {
    /// Where the code reaches the local: called at the start of each run of the closure, or
    /// of the async block's first poll, when the code no longer moves.
    #[inline(always)]
    pub fn place(&self) -> Place<T, M> {
        match self {
            Captured::Outer(place) => *place,
            Captured::Own(slot) => Place::of(slot.get()),
        }
    }
}

pub trait CaptureCopy<T, M: MovedFields> {
    fn capture(&self) -> Captured<T, M>;
}

impl<T: Copy, M: MovedFields> CaptureCopy<T, M> for Capture<T, M> {
    #[inline(always)]
    fn capture(&self) -> Captured<T, M> {
        Captured::Outer(self.0)
    }
}

pub trait CaptureReborrow<'a, T: ?Sized, M: MovedFields> {
    fn capture(&self) -> Captured<&'a mut T, M>;
}

impl<'a, T: ?Sized, M: MovedFields> CaptureReborrow<'a, T, M> for Capture<&'a mut T, M> {
    #[inline(always)]
    fn capture(&self) -> Captured<&'a mut T, M> {
        Captured::Outer(self.0)
    }
}

pub trait CaptureByValue<T, M: MovedFields> {
    fn capture(&self) -> Captured<T, M>;
}

impl<T, M: MovedFields> CaptureByValue<T, M> for &Capture<T, M> {
    #[inline(always)]
    fn capture(&self) -> Captured<T, M> {
        Captured::Own(UnsafeCell::new(Slot::holding(self.0.take())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forget_second(whole: *mut (String, String), moved: u32) {
        // SAFETY: the slot's value, read once to drop what was not moved out.
        let whole = unsafe { std::ptr::read(whole) };
        if moved.contains(1) {
            std::mem::forget(whole.1);
        }
    }

    /// A local whose field moved out is never moved whole: the lowering's own mistake would
    /// move the field twice, and `take` panics instead.
    #[test]
    #[should_panic(expected = "a local read after it was moved out")]
    fn a_partly_moved_local_is_not_taken_whole() {
        let mut slot: Slot<(String, String)> = Slot::holding((String::from("a"), String::from("b")));
        let place = Place::of(&raw mut slot);
        // SAFETY: a pointer to the second field of the slot's live value.
        let field = unsafe { &raw mut (*place.get()).1 };
        let second = place.take_field(1, field, forget_second);
        assert_eq!(second, "b");
        let _whole = place.take();
    }

    /// Once the field is back, the local is whole again.
    #[test]
    fn a_field_assigned_again_makes_the_local_whole() {
        let mut slot: Slot<(String, String)> = Slot::holding((String::from("a"), String::from("b")));
        let place = Place::of(&raw mut slot);
        // SAFETY: as above.
        let field = unsafe { &raw mut (*place.get()).1 };
        let second = place.take_field(1, field, forget_second);
        place.assign_field(1, field, second + "!");
        assert_eq!(place.take(), (String::from("a"), String::from("b!")));
    }
}

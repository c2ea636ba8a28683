//! What a task's second type parameter stands for: the auto traits of the function's body.
//!
//! A `Task<T, W>` holds its state machine behind its heap box's vtable, so the task's type
//! cannot tell whether the state machine may move to another thread. The classic stub
//! therefore hands the builder a [`BodyWitness`] of the *twin* (the user's body, unchanged, as
//! an `async` block that rustc type- and borrow-checks and never runs; see `lowering-macros`,
//! `classic::twin`): a zero-sized value whose type is `Send` exactly when the plain
//! `async fn`'s future is. rustc computes that from what the body holds across its awaits
//! (the coroutine's witness), which is not part of the block's type: a witness names the body,
//! not what it holds, so a caller's type never contains its callees' (a task's `W` names
//! the callee's body; that body's type names its parameters, not the tasks it awaits).

use std::marker::PhantomData;

/// The auto-trait stand-in of a classic call (the `W` of [`crate::Task`]); the macro names it
/// `impl Witness`.
pub trait Witness {}

impl Witness for () {}

/// The witness of a classic function: `B` is its twin's type. Zero-sized; holds no `B`.
pub struct BodyWitness<B> {
    body: PhantomData<B>,
}

impl<B> Witness for BodyWitness<B> {}

// A body's `Unpin` says nothing about the task, whose heap box never moves.
impl<B> Unpin for BodyWitness<B> {}

impl<B> BodyWitness<B> {
    /// The witness of a body whose type the twin will give (`crate::__private::twin`).
    #[doc(hidden)]
    pub const fn new() -> Self {
        BodyWitness { body: PhantomData }
    }
}

impl<B> Default for BodyWitness<B> {
    fn default() -> Self {
        Self::new()
    }
}

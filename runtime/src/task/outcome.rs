//! How a classic call ended, and how that ending reaches each awaiter.

use std::any::Any;
use std::panic;

/// What `catch_unwind` hands back: the payload of the panic raised inside `move_next`.
pub(crate) type PanicPayload = Box<dyn Any + Send + 'static>;

/// The end of a classic call: its value, or the panic its state machine raised.
///
/// C# stores the exception in the `Task` and rethrows it at every `await`; this is the
/// Rust counterpart, holding the original payload.
pub(crate) enum Outcome<T> {
    Value(T),
    Panic(PanicPayload),
}

impl<T> Outcome<T> {
    /// Deliver the outcome in the awaiter's frame: the value, or the stored panic raised again
    /// with its original payload (`resume_unwind` does not run the panic hook a second time).
    #[inline]
    pub(crate) fn into_value(self) -> T {
        match self {
            Outcome::Value(value) => value,
            Outcome::Panic(payload) => raise(payload),
        }
    }

    /// A copy of the outcome for one of several awaiters of a shared task.
    ///
    /// Values are copied with the clone function that `Task::clone` registered (sharing a
    /// task requires `T: Clone`). A `Box<dyn Any>` payload cannot be copied: `&str` and
    /// `String` payloads are duplicated, any other payload reaches the copies as
    /// [`SharedPanic`]. The last remaining handle always receives the original.
    pub(crate) fn share(&self, clone_value: Option<fn(&T) -> T>) -> Outcome<T> {
        match self {
            Outcome::Value(value) => {
                let clone = clone_value.expect(
                    "lowering: a task with several handles was awaited, but no clone function was \
                     registered; handles are only duplicated by `Task::clone`, which registers one",
                );
                Outcome::Value(clone(value))
            }
            Outcome::Panic(payload) => Outcome::Panic(copy_payload(payload)),
        }
    }
}

#[cold]
fn raise(payload: PanicPayload) -> ! {
    panic::resume_unwind(payload)
}

fn copy_payload(payload: &PanicPayload) -> PanicPayload {
    if let Some(message) = payload.downcast_ref::<&'static str>() {
        Box::new(*message)
    } else if let Some(message) = payload.downcast_ref::<String>() {
        Box::new(message.clone())
    } else {
        Box::new(SharedPanic)
    }
}

/// The panic payload seen by the second and later awaiters of a shared task whose panic
/// payload was neither a `&'static str` nor a `String`.
///
/// C# rethrows the same exception object at every awaiter; a Rust panic payload is a
/// `Box<dyn Any + Send>`, which cannot be copied. The awaiter holding the last handle gets
/// the original payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedPanic;

//! Leaf primitives that both lowerings await: the bottom of every workload chain.
//!
//! Each is an ordinary [`Future`](std::future::Future), so a runtime-lowered `async fn`
//! awaits it like any other. Each also has an awaiter of its own, so that a classic state
//! machine can tell whether the await completes without polling (C#'s `IsCompleted`): an
//! already-complete leaf does not force the state machine onto the heap.

pub mod ambient;
pub mod channel;
mod gate;
mod ready;
mod token;
mod yield_now;

pub use channel::{Receiver, Sender, channel};
pub use gate::{Gate, GateWait};
pub use ready::{Ready, ready};
pub use token::{CancellationToken, Cancelled, WithCancellation, with_cancellation};
pub use yield_now::{Yield, yield_now};

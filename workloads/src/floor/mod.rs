//! The classic model's floor, written by hand in plain Rust: the benchmark's `model-floor`
//! and `model-floor-panic` control rows (B2, B3, B4, B6).
//!
//! What separates these rows from `classic` is what the generated code and the runtime's
//! support types cost beyond the model itself: the floor has a state-machine struct and a
//! `move_next` per level, the eager start, one heap task per level holding the result (none
//! for a value task's synchronous completion), and each level awaiting the task below.
//! `model-floor-panic` adds a `catch_unwind` per level, storing the panic in the task.

mod chains;
mod task;

pub use chains::{completed_chain10, value_chain10, vt_chain10, yield_chain10};
pub use task::{Ctx, Task, ValueTask};

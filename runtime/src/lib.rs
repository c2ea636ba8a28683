//! One `async fn` source, lowered two ways.
//!
//! ```
//! use lowering::lowering;
//!
//! #[lowering(classic)]
//! async fn add_one(x: u32) -> u32 {
//!     lowering::leaf::ready(x).await + 1
//! }
//!
//! #[lowering(runtime)]
//! async fn add_two(x: u32) -> u32 {
//!     lowering::leaf::ready(x).await + 2
//! }
//!
//! let task = add_one(1); // runs at once, up to its first incomplete await
//! assert!(task.is_completed());
//! assert_eq!(futures::executor::block_on(task), 2);
//! assert_eq!(futures::executor::block_on(add_two(1)), 3);
//! ```
//!
//! - `#[lowering(classic)]` generates what the C# compiler generates for an `async` method:
//!   a named state-machine struct holding the state number, the parameters, the locals that
//!   live across an await and one slot per awaiter; a `move_next` that resumes at the saved
//!   state; and a call to the [builder](mod@builder) that runs it eagerly and returns a heap
//!   [`Task`] (one allocation per call unless the result is [cached](task::cache)).
//! - `#[lowering(runtime)]` leaves a plain `async fn`: rustc builds the state machine, and
//!   awaiting it allocates nothing.
//!
//! Every annotated function leaves a [`LoweringRecord`] in the binary ([`records`]).

pub mod alloc;
mod awaiter;
pub mod builder;
mod expansion;
mod join;
pub mod leaf;
mod record;
mod select;
mod slot;
pub mod task;
mod value_task;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use awaiter::{Awaiter, FutureAwaiter, TaskAwaiter};
pub use lowering_macros::lowering;
pub use record::{Lowering, LoweringRecord, records, records_of};
pub use task::{SharedPanic, Task, Witness};
pub use value_task::{ValueTask, ValueTaskAwaiter};

/// One source text, both lowerings: `both! { items }` writes the items into
/// `pub mod classic` (under `#[lowering(classic)]`) and `pub mod runtime` (under
/// `#[lowering(runtime)]`), through the attribute's module form, which lowers every
/// `async fn` in the module (free functions and methods). Both modules `use super::*`.
///
/// ```
/// lowering::both! {
///     pub async fn twice(x: u32) -> u32 {
///         lowering::leaf::ready(x).await * 2
///     }
/// }
///
/// let classic = futures::executor::block_on(classic::twice(2));
/// let runtime = futures::executor::block_on(runtime::twice(2));
/// assert_eq!((classic, runtime), (4, 4));
/// ```
///
/// The generated code names the runtime crate `::lowering`; a crate that renames the
/// dependency writes the two modules itself with `#[lowering(classic, crate = "...")]`.
#[macro_export]
macro_rules! both {
    ($($items:tt)*) => {
        // `--cfg lowering_only="runtime"` (or `"classic"`) keeps one module, so that a crate
        // can be built once per lowering and each build timed.
        #[cfg(not(lowering_only = "runtime"))]
        #[$crate::lowering(classic)]
        #[allow(dead_code, unused_imports)]
        pub mod classic {
            use super::*;
            $($items)*
        }
        #[cfg(not(lowering_only = "classic"))]
        #[$crate::lowering(runtime)]
        #[allow(dead_code, unused_imports)]
        pub mod runtime {
            use super::*;
            $($items)*
        }
    };
}

//! Generate: `emit` walks the lowered tree once, tracking which locals are initialized, and
//! writes one code segment per state of `move_next`; `rewrite` adapts the user's code that it
//! emits as written (`self`, `return`, `?`, jumps out of split loops).

pub(crate) mod captures;
pub(crate) mod emit;
pub(crate) mod places;
pub(crate) mod rewrite;

//! Parse: from the `syn` body to the lowered tree (`ir`), with every await at statement level
//! in Rust's evaluation order (`lower`), awaiting `let` chains nested (`let_chains`), awaiting
//! guards, `select!`, guarded `matches!` and destructuring assignments written out (`guards`,
//! `select`, `guarded_matches`, `destructuring`), and the awaits (`awaits`) found where
//! they hide; the locals a macro declares, which it cannot lower, are reported
//! (`macro_locals`). What it asks of `syn` (bindings, the standard macros, how code uses a
//! local) is `syntax`'s.

pub(crate) mod awaiting_expansions;
pub(crate) mod awaiting_macros;
pub(crate) mod awaits;
pub(crate) mod destructuring;
pub(crate) mod diverging_calls;
pub(crate) mod guarded_matches;
pub(crate) mod guards;
pub(crate) mod ir;
pub(crate) mod item_renames;
pub(crate) mod items;
pub(crate) mod let_chains;
pub(crate) mod lower;
pub(crate) mod macro_bindings;
pub(crate) mod macro_locals;
pub(crate) mod pinning;
pub(crate) mod select;

//! Parse: from the `syn` body to the lowered tree (`ir`), with every await at statement level
//! in Rust's evaluation order (`lower`), the standard macros taken apart (`std_macros`) and tracing's read (`tracing_macros`), awaiting
//! `let` chains nested (`let_chains`), and
//! the awaits (`awaits`) and pattern bindings (`bindings`) found where they hide; the locals
//! a macro declares, which it cannot lower, are reported (`macro_locals`).

pub(crate) mod awaiting_macros;
pub(crate) mod awaits;
pub(crate) mod bindings;
pub(crate) mod guards;
pub(crate) mod ir;
pub(crate) mod items;
pub(crate) mod let_chains;
pub(crate) mod lower;
pub(crate) mod macro_bindings;
pub(crate) mod macro_locals;
pub(crate) mod pinning;
pub(crate) mod select;
pub(crate) mod std_macros;
pub(crate) mod tracing_macros;

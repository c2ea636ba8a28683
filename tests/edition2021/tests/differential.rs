//! The edition 2024 differential tests, compiled as edition 2021 code (the files are the same).

#[path = "../../tests/borrows_across_awaits.rs"]
mod borrows_across_awaits;
#[path = "../../tests/drops_and_patterns.rs"]
mod drops_and_patterns;
#[path = "../../tests/control_flow.rs"]
mod control_flow;
#[path = "../../tests/signatures.rs"]
mod signatures;
#[path = "../../tests/operands.rs"]
mod operands;
#[path = "../../tests/scopes_and_assignments.rs"]
mod scopes_and_assignments;
#[path = "../../tests/macros_and_closures.rs"]
mod macros_and_closures;
#[path = "../../tests/tasks.rs"]
mod tasks;
#[path = "../../tests/everyday.rs"]
mod everyday;
#[path = "../../tests/runtime_is_plain.rs"]
mod runtime_is_plain;

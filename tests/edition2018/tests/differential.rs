//! The edition 2024 differential tests, compiled as edition 2018 code (the files are the same),
//! except those whose expected values depend on the edition themselves: `panic!("{x}")` with
//! no arguments does not format in 2018 (`tasks.rs`, `macros_and_closures.rs`); both lowerings
//! agree there as well, which the 2018 crate's own run would show, but the tests' literals
//! are 2021's.

// The files are formatted as the workspace formats them (edition 2024).
#[rustfmt::skip]
#[path = "../../tests/borrows_across_awaits.rs"]
// Its fuzzer-found shapes keep what the fuzzer wrote (`match ({ .. })`, unused bindings).
#[allow(unused)]
mod borrows_across_awaits;
#[rustfmt::skip]
#[path = "../../tests/consumed_receivers.rs"]
mod consumed_receivers;
#[rustfmt::skip]
#[path = "../../tests/control_flow.rs"]
mod control_flow;
#[rustfmt::skip]
#[path = "../../tests/drops_and_patterns.rs"]
mod drops_and_patterns;
#[rustfmt::skip]
#[path = "../../tests/cfg_in_bodies.rs"]
mod cfg_in_bodies;
#[rustfmt::skip]
#[path = "../../tests/block_items.rs"]
mod block_items;
#[rustfmt::skip]
#[path = "../../tests/crate_reductions.rs"]
mod crate_reductions;
#[rustfmt::skip]
#[path = "../../tests/escaping_captures.rs"]
mod escaping_captures;
#[rustfmt::skip]
#[path = "../../tests/extended_temporaries.rs"]
mod extended_temporaries;
#[rustfmt::skip]
#[path = "../../tests/everyday.rs"]
mod everyday;
#[rustfmt::skip]
#[path = "../../tests/leaving_paths.rs"]
mod leaving_paths;
#[rustfmt::skip]
#[path = "../../tests/match_guards.rs"]
mod match_guards;
#[rustfmt::skip]
#[path = "../../tests/operands.rs"]
mod operands;
#[rustfmt::skip]
#[path = "../../tests/runtime_is_plain.rs"]
mod runtime_is_plain;
#[rustfmt::skip]
#[path = "../../tests/scopes_and_assignments.rs"]
mod scopes_and_assignments;
#[rustfmt::skip]
#[path = "../../tests/select_and_pin.rs"]
mod select_and_pin;
#[rustfmt::skip]
#[path = "../../tests/signatures.rs"]
mod signatures;

//! The real-code differential tests (`tests/tests/real_code`), compiled as edition 2018 code:
//! most async Rust in the wild is written in an older edition than the workspace's.

// The files are formatted as the workspace formats them (edition 2024).
#[rustfmt::skip]
#[path = "../../tests/real_code/bodies_of_real_crates.rs"]
mod bodies_of_real_crates;
#[rustfmt::skip]
#[path = "../../tests/real_code/clients_and_streams.rs"]
mod clients_and_streams;
#[rustfmt::skip]
#[path = "../../tests/real_code/conditions_and_macros.rs"]
mod conditions_and_macros;
#[rustfmt::skip]
#[path = "../../tests/real_code/errors_and_callables.rs"]
mod errors_and_callables;
#[rustfmt::skip]
#[path = "../../tests/real_code/everyday_idioms.rs"]
mod everyday_idioms;
#[rustfmt::skip]
#[path = "../../tests/real_code/handler_idioms.rs"]
mod handler_idioms;
#[rustfmt::skip]
#[path = "../../tests/real_code/handlers_and_codecs.rs"]
mod handlers_and_codecs;
#[rustfmt::skip]
#[path = "../../tests/real_code/readers_and_parsers.rs"]
mod readers_and_parsers;
#[rustfmt::skip]
#[path = "../../tests/real_code/real_shapes.rs"]
mod real_shapes;
#[rustfmt::skip]
#[path = "../../tests/real_code/services.rs"]
mod services;
#[rustfmt::skip]
#[path = "../../tests/real_code/signature_shapes.rs"]
mod signature_shapes;
#[rustfmt::skip]
#[path = "../../tests/real_code/streams_and_selection.rs"]
mod streams_and_selection;
#[rustfmt::skip]
#[path = "../../tests/real_code/traits_and_signatures.rs"]
mod traits_and_signatures;
#[rustfmt::skip]
#[path = "../../tests/real_code/types_and_methods.rs"]
mod types_and_methods;

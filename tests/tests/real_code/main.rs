//! Async Rust in the shapes real code is written in (servers, clients, codecs, services,
//! everyday idioms), each file lowered both ways and compared with the plain `async fn`. One
//! test binary for all of them: each file's `differential!` block is its own module.

mod bodies_of_real_crates;
mod clients_and_streams;
mod conditions_and_macros;
mod errors_and_callables;
mod everyday_idioms;
mod handler_idioms;
mod handlers_and_codecs;
mod readers_and_parsers;
mod real_shapes;
mod services;
mod signature_shapes;
mod streams_and_selection;
mod traits_and_signatures;
mod types_and_methods;

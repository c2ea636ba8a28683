//! An HTTP/1.1 forwarding proxy, end to end on loopback, whose async code is one source lowered
//! classic or runtime, layer by layer (issue 15: the application A1 and the mixed
//! configuration M1).
//!
//! - [`library`]: the library layer, a connection and its codec operations, lowered both ways;
//! - [`application`]: the application layer (accept loop, handler, routing, forwarding), one
//!   source in four modules, each lowering over each library;
//! - [`head`]: the synchronous head parsing and rewriting both layers share (`httparse`);
//! - [`origin`] and [`generator`]: the surrounding stack (hyper), not lowered;
//! - [`stack`]: all of it running on one tokio runtime, driven one operation at a time;
//! - [`lab`]: the same split for the lab rows B9 and B10 (their leaves as the library).

pub mod application;
pub mod config;
pub mod error;
pub mod generator;
pub mod head;
pub mod lab;
pub mod library;
pub mod origin;
pub mod stack;

pub use config::Config;
pub use error::ProxyError;
pub use generator::{Case, Operation};
pub use stack::Stack;

//! Everything that can end a connection, a proxy or a run, each with what it was doing.

use std::fmt;
use std::io;

use crate::head::HeadError;

#[derive(Debug)]
pub enum ProxyError {
    /// A socket operation failed; `doing` says which.
    Io { doing: &'static str, error: io::Error },
    /// The peer closed the connection where more was due.
    Closed(&'static str),
    /// A wait outlasted its bound.
    Timeout(&'static str),
    /// A head the proxy refused (the client was told, with this status).
    Head(HeadError),
    /// The load generator saw a response that is not the one expected.
    Check(String),
}

impl ProxyError {
    pub fn io(doing: &'static str) -> impl FnOnce(io::Error) -> ProxyError {
        move |error| ProxyError::Io { doing, error }
    }
}

impl fmt::Display for ProxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyError::Io { doing, error } => write!(f, "{doing}: {error}"),
            ProxyError::Closed(what) => write!(f, "connection closed {what}"),
            ProxyError::Timeout(what) => write!(f, "timed out {what}"),
            ProxyError::Head(error) => write!(f, "refused head: {error}"),
            ProxyError::Check(what) => write!(f, "check failed: {what}"),
        }
    }
}

impl std::error::Error for ProxyError {}

impl From<HeadError> for ProxyError {
    fn from(error: HeadError) -> ProxyError {
        ProxyError::Head(error)
    }
}

//! One error type: a message a person can act on. Nothing in `inspect` panics on bad input;
//! every failure travels up as an [`Error`] and `main` prints it.

use std::fmt;

#[derive(Debug)]
pub struct Error(String);

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `result.context(|| "reading x")?`: says what was being done when a lower-level error
/// happened.
pub trait Context<T> {
    fn context<S: Into<String>>(self, what: impl FnOnce() -> S) -> Result<T>;
}

impl<T, E: fmt::Display> Context<T> for std::result::Result<T, E> {
    fn context<S: Into<String>>(self, what: impl FnOnce() -> S) -> Result<T> {
        self.map_err(|error| Error(format!("{}: {error}", what().into())))
    }
}

impl<T> Context<T> for Option<T> {
    fn context<S: Into<String>>(self, what: impl FnOnce() -> S) -> Result<T> {
        self.ok_or_else(|| Error(what().into()))
    }
}

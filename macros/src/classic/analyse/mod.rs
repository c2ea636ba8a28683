//! Analyse: what the lowered code does with its locals. `mentions` says how a piece of code
//! uses them (read, moved, assigned), `jumps` which `break`s and `continue`s leave a piece
//! of code, `liveness` whether a local's value is read after a point (so that an await must
//! save it), `borrows` which borrows of the state machine's own
//! data an await would hold (the shapes classic rejects, with their messages).

pub(crate) mod borrows;
pub(crate) mod jumps;
pub(crate) mod liveness;
pub(crate) mod loans;
pub(crate) mod mentions;

//! Analyse: what the lowered code does with its locals. `jumps` says which `break`s and
//! `continue`s leave a piece of the lowered tree, `liveness` whether a local's value is read
//! after a point (so that an await must save it), `loans` which locals an await may find
//! borrowed (they live in place), `free_names` which names code uses that it does not bind.
//! How one piece of code uses a local (`syntax::mentions`) is a question of syntax.

pub(crate) mod free_names;
pub(crate) mod jumps;
pub(crate) mod liveness;
pub(crate) mod loans;

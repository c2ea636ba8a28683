//! Analyse: what the lowered code does with its locals. `assignments` finds what code
//! assigns, `mentions` says how a piece of code uses them (read, moved, assigned), `jumps` which `break`s and `continue`s leave a piece
//! of code, `liveness` whether a local's value is read after a point (so that an await must
//! save it), `loans` which locals an await may find borrowed (they live in place).

pub(crate) mod assignments;
pub(crate) mod free_names;
pub(crate) mod jumps;
pub(crate) mod liveness;
pub(crate) mod loans;
pub(crate) mod mentions;

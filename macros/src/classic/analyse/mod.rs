//! Analyse: what the lowered code does with its locals. `bindings` is the table of every
//! binding the function declares (the questions asked by name are answered there), `jumps`
//! says which `break`s and `continue`s leave a piece of the lowered tree, `liveness` whether a
//! local's value is read after a point (so that an await must save it), `loans` which locals
//! an await may find borrowed, and `in_place` the one table of the locals that live in place,
//! each with its reason, which `loans`, the signature and the walk write and the walk reads.
//! `free_names` says which names code uses that it does not bind. How one piece of code uses a
//! local (`syntax::mentions`) is a question of syntax.

pub(crate) mod bindings;
pub(crate) mod free_names;
pub(crate) mod in_place;
pub(crate) mod jumps;
pub(crate) mod liveness;
pub(crate) mod loans;

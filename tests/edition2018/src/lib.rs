//! Empty: the tests in `tests/` are the workspace's differential tests, compiled again as
//! edition 2018 (opaque types capture only the lifetimes they name there, temporaries in a
//! block's tail live longer, closures capture whole variables, `panic!("{x}")` does not format).

//! Empty: the tests in `tests/` are the workspace's differential tests, compiled again as
//! edition 2021 (opaque types capture only the lifetimes they name there, temporaries in a
//! block's tail live longer, `impl Trait` parameters and closures capture differently).

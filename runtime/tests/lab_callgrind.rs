//! The benchmark's callgrind reader, whose unit tests sit beside it in the harness: the bench
//! target has no test harness (`harness = false`), so they run here.

#[allow(dead_code)]
#[path = "../benches/lab/callgrind.rs"]
mod callgrind;

//! The proxy's tests, one binary (each test binary links tokio and hyper again):
//! the head codec, every configuration end to end, and the mixed lab rows.

mod end_to_end;
mod head;
mod lab;

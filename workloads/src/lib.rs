//! The shared workload source.

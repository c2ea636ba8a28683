//! A resource the workloads hold while they wait, whose drops the behaviour checks count (C3).
//! Its own module, not part of `checks`, because the shared source uses it: a build that
//! keeps one variant (`--cfg lowering_only="classic"`) compiles the shared source and this,
//! without the host code.

use std::cell::Cell;

thread_local! {
    static DROPS: Cell<usize> = const { Cell::new(0) };
}

/// A resource held by a workload while it waits: counts its drops (C3).
#[derive(Debug)]
pub struct Tracked(&'static str);

impl Tracked {
    pub fn new(name: &'static str) -> Self {
        Tracked(name)
    }

    pub fn name(&self) -> &'static str {
        self.0
    }

    /// Drops of `Tracked` values on this thread so far.
    pub fn drops() -> usize {
        DROPS.with(Cell::get)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        DROPS.with(|drops| drops.set(drops.get() + 1));
    }
}

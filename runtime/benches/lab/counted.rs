//! Allocations of the measured code only.
//!
//! The counting pass reads this thread's allocation counters around each operation (the
//! closure a row measures), never around the harness's own work (the executor's waker, the
//! checksum, the sample's setup), so that a model that allocates nothing reports exactly 0.
//! Every row runs its operations on the harness's thread, so a per-thread counter misses
//! nothing: a row that moved work to another thread would need the process-wide counters.

use std::cell::Cell;

use lowering::alloc::{AllocCounts, thread_counts};

thread_local! {
    /// Is a counting pass running on this thread?
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    static TOTAL: Cell<AllocCounts> = const { Cell::new(AllocCounts { allocations: 0, bytes: 0, frees: 0 }) };
}

/// Start a counting pass: operations run through [`op`] add their allocations from now on.
pub fn begin() {
    TOTAL.with(|total| total.set(AllocCounts::default()));
    ACTIVE.with(|active| active.set(true));
}

/// End the pass; what the operations allocated.
pub fn end() -> AllocCounts {
    ACTIVE.with(|active| active.set(false));
    TOTAL.with(Cell::get)
}

/// Is a pass running on this thread? Loops check once and pick a counted or a plain body.
pub fn active() -> bool {
    ACTIVE.with(Cell::get)
}

/// Run one operation, adding what it allocates on this thread to the pass's total.
#[inline(always)]
pub fn op<R>(f: impl FnOnce() -> R) -> R {
    if !active() {
        return f();
    }
    let before = thread_counts();
    let result = f();
    let spent = thread_counts().since(before);
    TOTAL.with(|total| {
        let sum = total.get();
        total.set(AllocCounts {
            allocations: sum.allocations + spent.allocations,
            bytes: sum.bytes + spent.bytes,
            frees: sum.frees + spent.frees,
        })
    });
    result
}

//! A counting global allocator, for exact allocation figures.
//!
//! Install it in a binary or test crate:
//!
//! ```
//! #[global_allocator]
//! static ALLOCATOR: lowering::alloc::CountingAllocator = lowering::alloc::CountingAllocator::system();
//! ```
//!
//! Counters are kept twice: process-wide (exact even when continuations run on other
//! threads; what benchmarks report) and per thread (what a test running its own executor on
//! its own thread asserts, unaffected by tests running in parallel).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Wraps an allocator and counts every allocation and free.
pub struct CountingAllocator<A = System> {
    inner: A,
}

impl CountingAllocator<System> {
    pub const fn system() -> Self {
        CountingAllocator { inner: System }
    }
}

impl<A> CountingAllocator<A> {
    pub const fn new(inner: A) -> Self {
        CountingAllocator { inner }
    }
}

/// Allocation counters at one point in time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllocCounts {
    /// Allocations (a `realloc` counts as one).
    pub allocations: u64,
    /// Bytes requested by those allocations.
    pub bytes: u64,
    /// Frees (a `realloc` counts as one).
    pub frees: u64,
}

impl AllocCounts {
    /// Counts accumulated between `earlier` and `self`.
    pub fn since(self, earlier: AllocCounts) -> AllocCounts {
        AllocCounts {
            allocations: self.allocations - earlier.allocations,
            bytes: self.bytes - earlier.bytes,
            frees: self.frees - earlier.frees,
        }
    }

    /// Allocations not yet freed.
    pub fn live(self) -> i64 {
        self.allocations as i64 - self.frees as i64
    }
}

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static FREES: AtomicU64 = AtomicU64::new(0);
static INSTALLED: AtomicU64 = AtomicU64::new(0);
/// Counting on or off (on by default): a timing loop turns it off, since three atomic
/// additions per allocation would charge the allocating variant for the counting itself.
static COUNTING: AtomicBool = AtomicBool::new(true);

thread_local! {
    // Const-initialised cells without destructors: safe to touch from inside the allocator.
    static THREAD_ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static THREAD_BYTES: Cell<u64> = const { Cell::new(0) };
    static THREAD_FREES: Cell<u64> = const { Cell::new(0) };
}

fn count_alloc(size: usize) {
    if !COUNTING.load(Ordering::Relaxed) {
        return;
    }
    INSTALLED.store(1, Ordering::Relaxed);
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    BYTES.fetch_add(size as u64, Ordering::Relaxed);
    let _ = THREAD_ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
    let _ = THREAD_BYTES.try_with(|bytes| bytes.set(bytes.get() + size as u64));
}

fn count_free() {
    if !COUNTING.load(Ordering::Relaxed) {
        return;
    }
    FREES.fetch_add(1, Ordering::Relaxed);
    let _ = THREAD_FREES.try_with(|count| count.set(count.get() + 1));
}

// SAFETY: every call is forwarded unchanged to the wrapped allocator.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAllocator<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_alloc(layout.size());
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_alloc(layout.size());
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count_free();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_free();
        count_alloc(new_size);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.inner.realloc(ptr, layout, new_size) }
    }
}

/// Turn counting off (for timed code) or back on; returns whether it was on. While it is
/// off, the counters do not move, so a figure read across such a span undercounts: only
/// code that times, and counts in a separate pass, turns it off.
pub fn set_counting(on: bool) -> bool {
    COUNTING.swap(on, Ordering::Relaxed)
}

/// Process-wide counters.
pub fn process_counts() -> AllocCounts {
    AllocCounts {
        allocations: ALLOCATIONS.load(Ordering::Relaxed),
        bytes: BYTES.load(Ordering::Relaxed),
        frees: FREES.load(Ordering::Relaxed),
    }
}

/// This thread's counters.
pub fn thread_counts() -> AllocCounts {
    AllocCounts {
        allocations: THREAD_ALLOCATIONS.with(Cell::get),
        bytes: THREAD_BYTES.with(Cell::get),
        frees: THREAD_FREES.with(Cell::get),
    }
}

/// Has a [`CountingAllocator`] counted anything in this process? A figure read without one
/// installed would be a silent zero; callers check this and say so instead.
pub fn is_installed() -> bool {
    INSTALLED.load(Ordering::Relaxed) != 0
}

/// Counts of what `f` allocated on this thread.
pub fn count_on_thread<R>(f: impl FnOnce() -> R) -> (R, AllocCounts) {
    let before = thread_counts();
    let result = f();
    (result, thread_counts().since(before))
}

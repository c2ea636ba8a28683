//! The lock of a task header: a mutex without poisoning, whose uncontended lock and unlock
//! are one atomic operation each, inlined where the header is used.
//!
//! `std::sync::Mutex` costs a call and two poisoning checks per lock on top of its atomics,
//! and a suspending classic level locks headers several times (`header`'s protocol); the
//! benchmark's B6 row counts every one of them. Poisoning carries nothing here: no user code
//! runs under a header lock and nothing under it panics (`header`, "Locking").
//!
//! The critical sections are a few field updates, so a contended lock spins briefly and
//! then yields the thread until the holder is done (a holder never waits for anything).
//!
//! Beside the lock flag, in the bytes its alignment leaves free, is one more flag, the
//! *mark*: set by a holder, never cleared, read without locking. The task sets it with its
//! `Completed` status, so that an awaiter can ask whether a task completed without taking its
//! lock, and without a field of its own (8 more bytes in every heap task).
//!
//! Public (`lowering::task::Lock`) for one user: the benchmark's hand-written model floor
//! (`workloads::floor`) locks its tasks with it, so that the floor and the classic tasks pay
//! the same price per lock and their ratio counts work, not lock implementations.

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

pub struct Lock<T> {
    /// Set while a guard exists.
    locked: AtomicBool,
    /// Set by a holder ([`LockGuard::mark`]), never cleared.
    marked: AtomicBool,
    value: UnsafeCell<T>,
}

// SAFETY: the value is reached only through a guard, and one guard exists at a time (the
// `locked` flag, taken with `Acquire` and released with `Release`), as with `Mutex<T>`.
unsafe impl<T: Send> Send for Lock<T> {}
unsafe impl<T: Send> Sync for Lock<T> {}

/// Spins of a contended lock before it starts yielding the thread.
const SPINS: u32 = 64;

impl<T> Lock<T> {
    pub const fn new(value: T) -> Self {
        Lock { locked: AtomicBool::new(false), marked: AtomicBool::new(false), value: UnsafeCell::new(value) }
    }

    #[inline]
    pub fn lock(&self) -> LockGuard<'_, T> {
        if self.locked.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            self.lock_contended();
        }
        LockGuard { lock: self, _value: PhantomData }
    }

    /// Has a holder set the mark ([`LockGuard::mark`])? Read without locking.
    #[inline]
    pub(crate) fn is_marked(&self) -> bool {
        self.marked.load(Ordering::Acquire)
    }

    #[cold]
    #[inline(never)]
    fn lock_contended(&self) {
        let mut spins = 0;
        loop {
            // Wait for the flag to clear without writing it, then try again.
            while self.locked.load(Ordering::Relaxed) {
                if spins < SPINS {
                    spins += 1;
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
            if self.locked.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                return;
            }
        }
    }
}

pub struct LockGuard<'a, T> {
    lock: &'a Lock<T>,
    /// A guard gives `&T` to whoever shares it, so it is `Sync` only for a `Sync` value
    /// (below), as `std`'s `MutexGuard` is.
    _value: PhantomData<*mut T>,
}

// SAFETY: a guard moved to another thread still holds the lock, which this lock does not tie
// to a thread; shared, it hands out `&T`, which needs `T: Sync`.
unsafe impl<T: Send> Send for LockGuard<'_, T> {}
unsafe impl<T: Sync> Sync for LockGuard<'_, T> {}

impl<T> LockGuard<'_, T> {
    /// Set the mark, for good: readers that see it (`Lock::is_marked`) also see what this
    /// holder wrote before setting it.
    #[inline]
    pub(crate) fn mark(&self) {
        self.lock.marked.store(true, Ordering::Release);
    }
}

impl<T> Deref for LockGuard<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T> DerefMut for LockGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock, and `&mut self` makes this borrow unique.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T> Drop for LockGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        self.lock.locked.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Lock;

    #[test]
    fn threads_that_contend_lose_no_update() {
        let lock = Arc::new(Lock::new(0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let lock = Arc::clone(&lock);
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        *lock.lock() += 1;
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(*lock.lock(), 40_000);
    }

    #[test]
    fn the_mark_stays_through_locking() {
        let lock = Lock::new(());
        assert!(!lock.is_marked());
        lock.lock().mark();
        assert!(lock.is_marked());
        drop(lock.lock());
        assert!(lock.is_marked());
    }
}

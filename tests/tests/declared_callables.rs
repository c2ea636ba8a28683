//! A parameter the signature declares `FnOnce` (`f: F` with `F: FnOnce(..)`, `impl FnOnce`,
//! `Box<dyn FnOnce>`), called inside a closure while it is kept in place: Rust moves it into
//! the closure, which the lowering does too, from the signature alone (a cache's `try_compute`:
//! `catch_unwind(AssertUnwindSafe(|| f(maybe_entry)))` between two awaits; kept in place and
//! read through its place, E0507 "cannot move out of a raw pointer"). With it, the futures
//! combinators that take their receiver (`AssertUnwindSafe(fut).catch_unwind().await`), and a
//! consuming method in an arm that ends in `resume_unwind`, which returns `!`. Each shape runs
//! under both lowerings, to the end, panicking, and dropped at every suspension.

use std::future::Future;
use std::panic::{AssertUnwindSafe, resume_unwind};

use futures::FutureExt;
use lowering_tests::*;

/// Consumed by `finish`, as the cache's waiter guard is by `set_waiter_value(self, ..)`.
pub struct Guard<'a> {
    pub log: Vec<u32>,
    pub base: &'a u32,
    pub loud: Loud,
}

impl<'a> Guard<'a> {
    pub fn new(base: &'a u32) -> Self {
        Guard { log: vec![1], base, loud: Loud::new("guard") }
    }

    pub fn finish(mut self, v: u32) -> Vec<u32> {
        log(format!("finish {v}"));
        self.log.push(v + *self.base);
        std::mem::take(&mut self.log)
    }
}

pub async fn get(n: u32) -> Option<u32> {
    later("get", Some(n)).await
}

differential! {
    pub struct Cache {
        pub base: u32,
    }

    impl Cache {
        // The cache's shape: the guard is consumed in the arms that re-raise a panic, and
        // again after, on the paths that did not panic.
        pub async fn compute<F, Fut>(&self, f: F, allow: bool) -> Vec<u32>
        where
            F: FnOnce(Option<u32>) -> Fut,
            Fut: Future<Output = u32>,
        {
            let guard = Guard::new(&self.base);
            let maybe_entry = get(3).await;
            let maybe_value = if allow { maybe_entry.as_ref().map(|v| *v) } else { None };
            let fut = match std::panic::catch_unwind(AssertUnwindSafe(|| f(maybe_entry))) {
                Ok(fut) => fut,
                Err(payload) => {
                    guard.finish(0);
                    resume_unwind(payload);
                }
            };
            let output = match AssertUnwindSafe(fut).catch_unwind().await {
                Ok(output) => output,
                Err(payload) => {
                    guard.finish(1);
                    resume_unwind(payload);
                }
            };
            match output {
                0 => guard.finish(0),
                n => {
                    later("put", ()).await;
                    let mut v = guard.finish(n);
                    v.extend(maybe_value);
                    v
                }
            }
        }
    }

    // `impl FnOnce`, called in a closure held across an await by the value it makes.
    pub async fn apply(f: impl FnOnce(Loud) -> u32, name: &str) -> u32 {
        let arg = Loud::new(name);
        later("before", ()).await;
        let n = std::panic::catch_unwind(AssertUnwindSafe(|| f(arg))).unwrap_or(0);
        later("after", ()).await;
        n
    }

    // `Box<dyn FnOnce>`, in a loop's last round, and in a `match` arm.
    pub async fn boxed(f: Box<dyn FnOnce(u32) -> Loud>, rounds: u32) -> String {
        let mut seen = 0;
        for round in 0..rounds {
            later("round", ()).await;
            seen += round;
        }
        let made = match seen {
            0 => Loud::new("none"),
            n => (|| f(n))(),
        };
        later("end", ()).await;
        made.name().to_owned()
    }

    // A where-clause `FnOnce` called directly (not in a closure) after it was kept.
    pub async fn direct<F>(f: F) -> Loud
    where
        F: FnOnce() -> Loud + Send,
    {
        let kept = &f;
        later("borrowed", std::mem::size_of_val(kept)).await;
        f()
    }
}

/// The same guard borrowed across an await (`peek(&guard).await`), so kept in place: its
/// consuming method is the limit the README describes, and `moves(guard)` says it. The arm that
/// re-raises is a last use (nothing after `resume_unwind` runs), as the hint requires.
pub async fn peek(guard: &Guard<'_>) -> usize {
    later("peek", guard.log.len()).await
}

/// The function once per lowering: the classic one with the hint (`hints.rs` writes its pairs
/// out; one body here, as both must be the same).
macro_rules! kept_guard {
    ($name:ident, $($lowering:tt)*) => {
        #[lowering::lowering($($lowering)*)]
        pub async fn $name(base: &u32, f: impl FnOnce() -> u32) -> Vec<u32> {
            let guard = Guard::new(base);
            let seen = peek(&guard).await as u32;
            let n = match std::panic::catch_unwind(AssertUnwindSafe(f)) {
                Ok(n) => n,
                Err(payload) => {
                    guard.finish(0);
                    std::panic::resume_unwind(payload);
                }
            };
            later("after", ()).await;
            guard.finish(n + seen)
        }
    };
}

mod kept_guard {
    use super::*;

    kept_guard!(classic, classic, moves(guard));
    kept_guard!(runtime, runtime);
}

fn values(fail_at: Option<u32>) -> impl FnOnce(Option<u32>) -> std::pin::Pin<Box<dyn Future<Output = u32>>> {
    move |entry| {
        if fail_at == Some(0) {
            panic!("making the future");
        }
        Box::pin(async move {
            let n = later("computing", entry.unwrap_or(0)).await;
            if fail_at == Some(1) {
                panic!("computing");
            }
            n + 1
        })
    }
}

#[test]
fn a_declared_fn_once_called_in_a_closure_between_awaits() {
    for allow in [true, false] {
        for fail_at in [None, Some(0), Some(1)] {
            same_at_every_suspension(
                || async move { classic::Cache { base: 10 }.compute(values(fail_at), allow).await },
                || async move { runtime::Cache { base: 10 }.compute(values(fail_at), allow).await },
            );
        }
    }
}

#[test]
fn an_impl_fn_once_called_in_a_closure() {
    let made = |fail: bool| {
        move |arg: Loud| {
            assert!(!fail, "calling");
            arg.name().len() as u32
        }
    };
    for fail in [false, true] {
        same_at_every_suspension(|| classic::apply(made(fail), "abc"), || runtime::apply(made(fail), "abc"));
    }
}

#[test]
fn a_boxed_fn_once_in_an_arm_after_a_loop() {
    let made = || -> Box<dyn FnOnce(u32) -> Loud> {
        let owned = Loud::new("captured");
        Box::new(move |n| Loud::new(&format!("{}{n}", owned.name())))
    };
    for rounds in [0, 1, 3] {
        same_at_every_suspension(|| classic::boxed(made(), rounds), || runtime::boxed(made(), rounds));
    }
}

#[test]
fn a_where_clause_fn_once_called_after_it_was_borrowed_across_an_await() {
    let made = || {
        let owned = Loud::new("owned");
        move || owned
    };
    same_at_every_suspension(|| classic::direct(made()), || runtime::direct(made()));
}

#[test]
fn a_kept_local_consumed_in_an_arm_that_re_raises_a_panic() {
    for fail in [false, true] {
        let f = move || {
            assert!(!fail, "computing");
            5
        };
        same_at_every_suspension(|| kept_guard::classic(&10, f), || kept_guard::runtime(&10, f));
    }
}

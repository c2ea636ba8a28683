//! A crate with `#![forbid(unsafe_code)]`, as many published crates are, lowers its functions
//! classic and gets the plain function's behaviour. The state machine's own `unsafe` blocks
//! (each segment of `move_next`, the raw places of locals kept across an await) draw no
//! `unsafe_code` lint: rustc does not report it in code an attribute macro writes. That holds
//! for the `unsafe` block a pinning macro (`pin!`, `tokio::pin!`, `futures::pin_mut!`) is
//! rewritten into, which is the lowering's own code, as the plain function's macro's is.
//!
//! This file is its own crate, so the `forbid` below is the crate's: had the expansion any
//! `allow(unsafe_code)` (E0453 under `forbid`) or a lint-reported `unsafe` block, the file
//! would not compile.

#![forbid(unsafe_code)]

use lowering::lowering;
use lowering_tests::*;

pub async fn fill(buf: &mut Vec<u32>, n: u32) {
    for i in 0..n {
        later("fill", ()).await;
        buf.push(i);
    }
}

lowering::both! {
    /// Futures pinned by the three pinning macros, polled across awaits.
    pub async fn pinned_by_macros(n: u32) -> u32 {
        let first = later("first", n);
        tokio::pin!(first);
        let second = later("second", n + 1);
        futures::pin_mut!(second);
        let third = std::pin::pin!(later("third", n + 2));
        first.await + second.await + third.await
    }

    /// No local kept in place: parameters and locals saved across awaits by value.
    pub async fn locals_saved_by_value(a: u32, b: u32) -> u32 {
        let x = later("x", a).await;
        let name = Loud::new("name");
        let y = later("y", b).await;
        x + y + name.name().len() as u32
    }

    /// Loops, `?` and a match on an awaited value.
    pub async fn loops_and_questions(n: u32) -> Result<u32, String> {
        let mut total = 0;
        for i in 0..n {
            total += later("step", i).await;
            if total > 100 {
                return Err(format!("too much: {total}"));
            }
        }
        let checked: Result<u32, String> = Ok(total);
        let value = checked?;
        match now("last", value).await {
            0 => Ok(0),
            other => Ok(other * 2),
        }
    }

    /// A local borrowed across an await: kept in place, reached through raw pointers, which
    /// needs the lowering's own `unsafe`.
    pub async fn local_borrowed_across_an_await(n: u32) -> usize {
        let mut buf = Vec::new();
        fill(&mut buf, n).await;
        let first = buf.first().copied().unwrap_or(0);
        later("after", ()).await;
        buf.len() + first as usize
    }

    /// A closure and an async block that borrow a kept local, and `join!`.
    pub async fn closures_and_join(n: u32) -> u32 {
        let mut seen = Vec::new();
        let mut push = |value: u32| seen.push(value);
        push(n);
        let (a, b) = futures::join!(later("a", 1u32), later("b", 2u32));
        let sum = async { later("sum", a + b).await }.await;
        seen.push(sum);
        seen.iter().sum()
    }
}

struct Counter {
    count: u32,
}

impl Counter {
    /// A `&mut self` method, written as a crate writes one.
    #[lowering(classic)]
    async fn bump(&mut self, by: u32) -> u32 {
        self.count += later("bump", by).await;
        self.count
    }
}

#[test]
fn functions_without_locals_in_place() {
    assert_eq!(
        same_at_every_suspension(|| classic::locals_saved_by_value(1, 2), || runtime::locals_saved_by_value(1, 2)),
        Outcome::Value(7)
    );
    for n in [0, 3, 20] {
        same_at_every_suspension(|| classic::loops_and_questions(n), || runtime::loops_and_questions(n));
    }
}

#[test]
fn functions_with_locals_in_place() {
    assert_eq!(
        same_at_every_suspension(
            || classic::local_borrowed_across_an_await(3),
            || runtime::local_borrowed_across_an_await(3)
        ),
        Outcome::Value(3)
    );
    assert_eq!(
        same_at_every_suspension(|| classic::closures_and_join(4), || runtime::closures_and_join(4)),
        Outcome::Value(7)
    );
}

#[test]
fn a_method_of_the_crate() {
    let mut counter = Counter { count: 1 };
    assert_eq!(futures::executor::block_on(counter.bump(2)), 3);
    assert_eq!(counter.count, 3);
}

#[test]
fn futures_pinned_by_macros() {
    assert_eq!(
        same_at_every_suspension(|| classic::pinned_by_macros(1), || runtime::pinned_by_macros(1)),
        Outcome::Value(6)
    );
}

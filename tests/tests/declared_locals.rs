//! Locals the lowering must know as the function's own wherever they are declared: in a
//! standard macro's arguments (`assert!`, `assert_eq!`, `vec!`, which the lowering takes apart,
//! so their `let`s are the function's), and a local named like a function, whose call an await
//! borrows. Each is borrowed across an await, so it lives in place; the table of the function's
//! bindings (`analyse::bindings`) keeps the loans analysis's finding for it, and drops only names
//! that no binding has (`tick().await` calls a function). Also an `assert!` whose condition is
//! a block that awaits, failing: its message is the condition's text, braces and all, not a
//! format string. Each runs under both lowerings, to the end and dropped at every suspension.

use lowering_tests::fuzz::{Pair, consume, weigh_later};
use lowering_tests::*;

differential! {
    // A `let` in an `assert_eq!` argument, borrowed by an awaited call, then moved.
    pub async fn borrowed_in_an_assert_eq_argument(n: u32) -> u32 {
        assert_eq!(n + 2, n + {
            let a = Loud::new("a");
            let weight = weigh_later(&a).await;
            weight + consume(Pair { a, b: Loud::new("b") }.a)
        });
        n
    }

    // The same in `assert!`'s condition and in `vec!`.
    pub async fn borrowed_in_assert_and_vec(n: u32) -> Vec<u32> {
        assert!({
            let kept = Loud::new("kept");
            weigh_later(&kept).await + n > 0
        });
        vec![n, {
            let inner = Loud::new("inner");
            let weight = weigh_later(&inner).await;
            drop(inner);
            weight
        }]
    }

    // An assertion that fails, on a block that awaits.
    pub async fn failing_assert_on_a_block(n: u32) -> u32 {
        assert!({ let kept = Loud::new("kept"); weigh_later(&kept).await > n });
        n
    }

    // A closure local named like a function the test crate has: its call is borrowed by the
    // await.
    pub async fn closure_named_like_a_function(n: u32) -> u32 {
        let weigh_later = |loud: &Loud| later("closure", loud.name().len() as u32);
        let loud = Loud::new("named");
        let first = weigh_later(&loud).await;
        first + n
    }
}

#[test]
fn locals_declared_in_macro_arguments_live_in_place() {
    for n in 0..2 {
        let outcome = same_at_every_suspension(
            || classic::borrowed_in_an_assert_eq_argument(n),
            || runtime::borrowed_in_an_assert_eq_argument(n),
        );
        assert_eq!(outcome, Outcome::Value(n));
        same_at_every_suspension(|| classic::borrowed_in_assert_and_vec(n), || runtime::borrowed_in_assert_and_vec(n));
    }
}

#[test]
fn a_local_named_like_a_function_is_a_local() {
    let outcome = same_at_every_suspension(
        || classic::closure_named_like_a_function(3),
        || runtime::closure_named_like_a_function(3),
    );
    assert_eq!(outcome, Outcome::Value(8));
}

#[test]
fn a_failing_assertion_on_a_block_reads_as_written() {
    let outcome =
        same_at_every_suspension(|| classic::failing_assert_on_a_block(9), || runtime::failing_assert_on_a_block(9));
    let Outcome::Panic(message) = outcome else { panic!("the assertion fails: {outcome:?}") };
    assert!(message.starts_with("assertion failed: {"), "{message}");
}

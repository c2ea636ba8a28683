//! A path that moves a local and then leaves (`return`, `break`, `continue`, a panic) with
//! awaits still to run on the way out: the local is moved on that path, so no state after it
//! may save it, while the other paths still read it. Each shape under both lowerings, and
//! dropped at every suspension.

use lowering_tests::fuzz::{Pair, check, consume, mix, note, weigh};
use lowering_tests::*;

differential! {
    /// The await is in the `return`'s operand.
    pub async fn moved_then_returned_after_an_await(c: bool, p: Loud) -> Result<u32, String> {
        if c {
            drop(p);
            return Ok(now("after the move", 1u32).await);
        }
        Ok(weigh(&p))
    }

    /// The operand is a `match` whose arms await.
    pub async fn moved_then_returned_from_a_match(c: u32, p: Loud) -> u32 {
        if c > 0 {
            consume(p);
            return match later("which", c).await {
                1 => now("one", 10u32).await,
                n => n + later("many", weigh(&Loud::new("t"))).await,
            };
        }
        weigh(&p)
    }

    /// The `else` of a `let .. else` that awaits and returns.
    pub async fn moved_in_a_let_else_then_returned(o: Option<u32>, p: Loud) -> u32 {
        let Some(v) = o else {
            consume(p);
            return later("else", 0u32).await;
        };
        v + weigh(&p)
    }

    /// The local is moved into the initializer of a `let` that hides it, which awaits; the
    /// block returns next.
    pub async fn moved_into_a_hiding_let_then_returned(o: Result<u32, String>, p: Loud) -> Result<u32, String> {
        let Ok(v) = o else {
            let p = {
                consume(p);
                now("hiding", Loud::new("q")).await
            };
            drop(p);
            return Err(String::from("no"));
        };
        Ok(v + weigh(&p))
    }

    /// `let mut p = p;` in the `else` block, then a `return` whose operand awaits.
    pub async fn rebound_in_a_let_else_then_returned(o: Result<u32, String>, p: Loud) -> u32 {
        let Ok(v) = o else {
            let p = p;
            return [weigh(&p), later("index", 1u32).await][1];
        };
        if v == 100 {
            return weigh(&p);
        }
        let Ok(w) = check("second", later("w", v).await) else {
            return 0;
        };
        w + weigh(&p)
    }

    /// `break` with an awaited value, out of a loop whose next round reads the local.
    pub async fn moved_then_broken_with_an_await(p: Loud) -> u32 {
        let mut round = 0u32;
        let q = Loud::new("q");
        loop {
            round += 1;
            if round == 2 {
                consume(p);
                break later("break value", round).await + weigh(&q);
            }
            note("round", weigh(&p));
            later("next", ()).await;
        }
    }

    /// `continue` after a move, where the loop's next round moves a fresh value.
    pub async fn moved_then_continued_with_an_await(n: u32) -> u32 {
        let mut total = 0u32;
        for i in 0..n {
            let p = Loud::new(format!("p{i}"));
            if i % 2 == 0 {
                consume(p);
                total += later("even", i).await;
                continue;
            }
            total += weigh(&p) + now("odd", i).await;
        }
        total
    }

    /// A panic whose message awaits: nothing after it runs, so what it moves is moved.
    pub async fn moved_then_panicking_with_an_await(c: bool, p: Loud) -> u32 {
        if c {
            consume(p);
            panic!("gave up after {}", later("message", 1u32).await);
        }
        weigh(&p)
    }

    /// A consuming method awaited in a panic's message consumes its receiver there.
    pub async fn consumed_in_a_panic_message(c: bool) -> u32 {
        let p = Loud::new("p");
        if c {
            panic!("spent {}", p.spend_later(4).await);
        }
        weigh(&p)
    }

    /// The other arguments before that await are computed first and held across it.
    pub async fn borrowed_beside_a_consumed_receiver(c: bool) -> u32 {
        let p = Loud::new("p");
        let q = Loud::new("q");
        if c {
            panic!("{} {} {}", weigh(&q), q.name(), p.spend_later(4).await);
        }
        weigh(&p) + weigh(&q)
    }

    /// A `let` of the receiver's name later in the same statement (or after it) names
    /// another local: the awaited consuming method is still the receiver's last use.
    pub async fn consumed_receiver_hidden_later(c: bool, p: Loud) -> u32 {
        let v = later(
            "outer",
            mix(Pair { a: p.spend_later(2).await, b: Loud::new("b") }.a, if c {
                let p = 3u32;
                now("inner", p).await
            } else {
                0
            }),
        )
        .await;
        if c {
            let p = Loud::new("hides");
            v + weigh(&p)
        } else {
            v
        }
    }

    /// A `let .. else` in a loop whose `else` block hides a local and then `continue`s: the
    /// jump saves the outer local, not the one that hides it.
    pub async fn hidden_in_a_let_else_then_continued(p: u32) -> Result<u32, String> {
        let mut seen = 0u32;
        for item in [Loud::new("first"), Loud::new("second")] {
            seen += later("item", p).await;
            let Ok(v) = check("check", weigh(&item) + seen) else {
                let p = &Loud::new("t");
                if weigh(&item) > 0 {
                    continue;
                }
                panic!("{}", weigh(p));
            };
            seen += v;
        }
        Ok(now("after", p).await + seen)
    }
}

#[test]
fn moves_on_paths_that_return() {
    for c in [false, true] {
        same_at_every_suspension(
            || classic::moved_then_returned_after_an_await(c, Loud::new("p")),
            || runtime::moved_then_returned_after_an_await(c, Loud::new("p")),
        );
        same_at_every_suspension(
            || classic::moved_then_panicking_with_an_await(c, Loud::new("p")),
            || runtime::moved_then_panicking_with_an_await(c, Loud::new("p")),
        );
        same_at_every_suspension(
            || classic::consumed_in_a_panic_message(c),
            || runtime::consumed_in_a_panic_message(c),
        );
        same_at_every_suspension(
            || classic::borrowed_beside_a_consumed_receiver(c),
            || runtime::borrowed_beside_a_consumed_receiver(c),
        );
        same_at_every_suspension(
            || classic::consumed_receiver_hidden_later(c, Loud::new("p")),
            || runtime::consumed_receiver_hidden_later(c, Loud::new("p")),
        );
    }
    for c in [0, 1, 2] {
        same_at_every_suspension(
            || classic::moved_then_returned_from_a_match(c, Loud::new("p")),
            || runtime::moved_then_returned_from_a_match(c, Loud::new("p")),
        );
    }
}

#[test]
fn moves_in_let_else_blocks() {
    for o in [None, Some(3)] {
        same_at_every_suspension(
            || classic::moved_in_a_let_else_then_returned(o, Loud::new("p")),
            || runtime::moved_in_a_let_else_then_returned(o, Loud::new("p")),
        );
    }
    for o in [Err(String::from("e")), Ok(3), Ok(100)] {
        let (first, second) = (o.clone(), o.clone());
        same_at_every_suspension(
            || classic::moved_into_a_hiding_let_then_returned(first.clone(), Loud::new("p")),
            || runtime::moved_into_a_hiding_let_then_returned(first.clone(), Loud::new("p")),
        );
        same_at_every_suspension(
            || classic::rebound_in_a_let_else_then_returned(second.clone(), Loud::new("p")),
            || runtime::rebound_in_a_let_else_then_returned(second.clone(), Loud::new("p")),
        );
    }
    for p in [0, 1, 5] {
        same_at_every_suspension(
            || classic::hidden_in_a_let_else_then_continued(p),
            || runtime::hidden_in_a_let_else_then_continued(p),
        );
    }
}

#[test]
fn moves_on_paths_that_leave_loops() {
    same_at_every_suspension(
        || classic::moved_then_broken_with_an_await(Loud::new("p")),
        || runtime::moved_then_broken_with_an_await(Loud::new("p")),
    );
    for n in [0, 1, 4] {
        same_at_every_suspension(
            || classic::moved_then_continued_with_an_await(n),
            || runtime::moved_then_continued_with_an_await(n),
        );
    }
}

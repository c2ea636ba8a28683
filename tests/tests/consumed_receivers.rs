//! A consuming method awaited on a local at its last use (`v.spend_later(1).await`) takes the
//! local by value, wherever the local was bound: in a loop's body, by a tuple pattern, by a
//! `let` that hides another of its name, in a block that is an operand, or in a block that
//! leaves before another mention. Each shape under both lowerings, compared at every
//! suspension.

// The shapes keep the form the fuzzer found them in (a statement of an unused `&`, a `let`
// returned next).
#![allow(clippy::no_effect, clippy::let_and_return)]

use lowering_tests::fuzz::{add3, check};
use lowering_tests::*;

differential! {
    /// Bound in a branch of a loop's body: each round binds it afresh, so the next round's
    /// mention is another local.
    pub async fn bound_in_a_loop_branch(n: u32) -> u32 {
        let mut total = 0;
        for i in 0..n {
            if i % 2 == 0 {
                let v = Loud::new("v");
                total += v.spend_later(i).await;
            }
        }
        total
    }

    /// The same in a `while` loop whose condition awaits.
    pub async fn bound_in_a_while_branch(n: u32) -> u32 {
        let mut k = 0;
        let mut total = 0;
        while k < n && later("more", true).await {
            k += 1;
            total += if k > 1 {
                let v = Loud::new("v");
                now("spent", v.spend_later(k).await).await
            } else {
                0
            };
        }
        total
    }

    /// Bound by a tuple pattern that leaves the other part unnamed.
    pub async fn bound_by_a_tuple_pattern() -> u32 {
        let (v, _) = now("pair", (Loud::new("v"), Loud::new("w"))).await;
        later("between", 1u32).await;
        v.spend_later(2).await
    }

    /// Bound by a tuple pattern, consumed in the `else` of a later `let .. else`.
    pub async fn bound_by_a_tuple_pattern_consumed_in_an_else(c: u32) -> Result<u32, String> {
        let (v, _, _) = (Loud::new("v"), Loud::new("w"), now("third", 3u32).await);
        let Ok(w) = now("checked", check("c", c)).await else {
            return Ok(v.spend_later(7).await);
        };
        Ok(w)
    }

    /// Bound in a block that is the operand of a `return`.
    pub async fn bound_in_a_returned_block(c: bool) -> Result<u32, String> {
        let value = later("value", if now("which", c).await {
            return Ok({
                let (v, _) = now("pair", (Loud::new("v"), Loud::new("w"))).await;
                later("between", 1u32).await;
                v.spend_later(2).await
            });
        } else {
            5u32
        })
        .await;
        Ok(value)
    }

    /// Bound in a block that is one operand of a tuple awaited later.
    pub async fn bound_in_a_block_operand() -> u32 {
        let (a, b) = later(
            "tuple",
            (
                {
                    let v = Loud::new("v");
                    add3(now("first", 1u32).await, 3, v.spend_later(3).await)
                },
                later("second", 2u32).await,
            ),
        )
        .await;
        a + b
    }

    /// A parameter consumed in the initializer of a `let .. else` that hides it.
    pub async fn consumed_by_the_let_that_hides_it(p: Loud, c: bool) -> u32 {
        let Ok(p) = later("checked", check("c", if c { 0 } else { p.spend_later(1).await & 3 })).await else {
            return 0;
        };
        p
    }

    /// The same, with awaits after the method's in its statement.
    #[allow(unused_must_use)]
    pub async fn consumed_before_other_awaits_by_the_let_that_hides_it(p: Loud, c: bool) -> u32 {
        let Ok(p) = later("checked", check("c", if c {
            0
        } else {
            p.spend_later(1).await & later("then", 2u32).await;
            5
        }))
        .await
        else {
            return 0;
        };
        p
    }

    /// A parameter consumed by the `let` that hides it, whose new local lives in place (a
    /// `match` on it binds, with awaits in its arms): only that binding of the name does.
    pub async fn consumed_beside_a_binding_of_its_name_that_lives_in_place(p: Loud) -> u32 {
        let p = p.spend_later(1).await;
        match p {
            0 => 0,
            n => later("arm", n).await + n,
        }
    }

    /// Consumed in a `let .. else` block that panics, and used by value in a later one: the
    /// first block leaves, so the second mention is not after the first.
    pub async fn consumed_in_an_else_that_panics(c: u32) -> Result<u32, String> {
        let (_, v) = now("pair", (1u32, Loud::new("v"))).await;
        let Ok(w) = now("checked", check("c", c)).await else {
            later("spent", v.spend_later(6u32).await).await;
            panic!("no {}", c);
        };
        let Ok(_) = check("again", c + 1) else {
            let kept = now("kept", (v, 3u32)).await;
            return Ok(kept.1);
        };
        Ok(w)
    }

    /// A tuple pattern's part hides a parameter and is consumed next.
    pub async fn a_tuple_part_hiding_a_parameter(p: u32) -> u32 {
        let (_, p) = now("pair", (p, Loud::new("p"))).await;
        let w = (3u32 & 1) & p.spend_later(7).await;
        w
    }
}

#[test]
fn consumed_where_bound_in_a_loop() {
    for n in [0, 1, 4] {
        same_at_every_suspension(|| classic::bound_in_a_loop_branch(n), || runtime::bound_in_a_loop_branch(n));
        same_at_every_suspension(|| classic::bound_in_a_while_branch(n), || runtime::bound_in_a_while_branch(n));
    }
}

#[test]
fn consumed_where_bound_by_a_tuple_pattern() {
    same_at_every_suspension(classic::bound_by_a_tuple_pattern, runtime::bound_by_a_tuple_pattern);
    for c in [0, 1] {
        same_at_every_suspension(
            || classic::bound_by_a_tuple_pattern_consumed_in_an_else(c),
            || runtime::bound_by_a_tuple_pattern_consumed_in_an_else(c),
        );
    }
    same_at_every_suspension(
        || classic::a_tuple_part_hiding_a_parameter(4),
        || runtime::a_tuple_part_hiding_a_parameter(4),
    );
}

#[test]
fn consumed_in_a_block_that_leaves() {
    for c in 0..4 {
        same_at_every_suspension(
            || classic::consumed_in_an_else_that_panics(c),
            || runtime::consumed_in_an_else_that_panics(c),
        );
    }
}

#[test]
fn consumed_where_bound_in_an_operand() {
    for c in [false, true] {
        same_at_every_suspension(|| classic::bound_in_a_returned_block(c), || runtime::bound_in_a_returned_block(c));
        same_at_every_suspension(
            || classic::consumed_by_the_let_that_hides_it(Loud::new("p"), c),
            || runtime::consumed_by_the_let_that_hides_it(Loud::new("p"), c),
        );
        same_at_every_suspension(
            || classic::consumed_before_other_awaits_by_the_let_that_hides_it(Loud::new("p"), c),
            || runtime::consumed_before_other_awaits_by_the_let_that_hides_it(Loud::new("p"), c),
        );
    }
    same_at_every_suspension(classic::bound_in_a_block_operand, runtime::bound_in_a_block_operand);
    same_at_every_suspension(
        || classic::consumed_beside_a_binding_of_its_name_that_lives_in_place(Loud::new("p")),
        || runtime::consumed_beside_a_binding_of_its_name_that_lives_in_place(Loud::new("p")),
    );
}

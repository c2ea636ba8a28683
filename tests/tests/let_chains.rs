//! Awaits in `let` chains (edition 2024 only: the chains are), lowered as the nested `if`s
//! they mean: conditions in order, stopping at the first that fails, the `then` block with
//! every binding, the `else` block after the conditions' temporaries dropped.

use lowering_tests::*;

differential! {
    pub async fn chained(x: Option<u32>) -> u32 {
        if let Some(a) = x
            && let Some(b) = now("second", Some(a + 1)).await
        {
            return b;
        }
        0
    }

    pub async fn chain_with_else(x: Option<u32>, limit: u32) -> u32 {
        let label = Loud::new("label");
        let value = if let Some(a) = later("first", x).await
            && a < limit
            && let Ok(b) = later("second", if a % 2 == 0 { Ok(a * 10) } else { Err(Loud::new("odd")) }).await
        {
            b + label.name().len() as u32
        } else if let Some(c) = x {
            c
        } else {
            7
        };
        value + later("after", 1).await
    }

    pub async fn while_chain(mut items: Vec<Option<u32>>) -> u32 {
        let mut total = 0;
        'outer: while let Some(next) = items.pop()
            && let Some(n) = later("check", next).await
        {
            if n == 99 {
                break 'outer;
            }
            total += n;
        }
        total
    }
}

#[test]
fn awaits_in_let_chains() {
    for x in [None, Some(1), Some(2)] {
        same_at_every_suspension(|| classic::chained(x), || runtime::chained(x));
        for limit in [0, 5] {
            same_at_every_suspension(|| classic::chain_with_else(x, limit), || runtime::chain_with_else(x, limit));
        }
    }
    for items in [vec![], vec![Some(1), Some(2)], vec![None, Some(3)], vec![Some(99), Some(4)]] {
        same_at_every_suspension(|| classic::while_chain(items.clone()), || runtime::while_chain(items.clone()));
    }
}

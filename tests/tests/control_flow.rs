//! `if`, `match`, loops, `break`/`continue`, early `return` and `?`, under both lowerings.

use lowering_tests::fuzz::{consume, weigh};
use lowering_tests::*;

differential! {
    pub async fn branch(c: bool, n: u32) -> u32 {
        let a = Loud::new("a");
        let r = if c {
            let b = Loud::new("b");
            let x = later("then", n).await;
            drop(b);
            x + 1
        } else {
            now("else", n).await * 2
        };
        log(format!("r = {r}"));
        drop(a);
        r
    }

    pub async fn else_if(n: u32) -> &'static str {
        if n == 0 {
            now("zero", "zero").await
        } else if n == 1 {
            later("one", "one").await
        } else {
            "many"
        }
    }

    pub async fn else_if_conditions_await(c: u32) -> u32 {
        let l = Loud::new("l");
        if c == 0 {
            1
        } else if later("a", c).await == 1 {
            2
        } else if weigh(&Loud::new("t")) + now("b", c).await == 2 {
            3
        } else {
            drop(l);
            4
        }
    }

    pub async fn else_if_chain_moves_on_some_branches(c: u32, p: Loud) -> u32 {
        if c == 0 {
            consume(p)
        } else if later("a", c).await == 1 {
            weigh(&p)
        } else if now("b", c).await == 2 {
            let q = p;
            later("c", weigh(&q)).await
        } else {
            0
        }
    }

    pub async fn if_without_else(c: bool) -> u32 {
        let mut total = 1;
        if c {
            total += later("inc", 10).await;
        }
        total
    }

    pub async fn matching(v: Option<u32>) -> u32 {
        let keep = Loud::new("keep");
        let r = match v {
            Some(0) => 100,
            Some(x) if x > 10 => {
                let d = Loud::new("arm");
                let y = later("big", x).await;
                log(format!("arm {}", d.name()));
                y * 2
            }
            Some(x) => now("small", x).await + 1,
            None => return 0,
        };
        log(format!("after match {}", keep.name()));
        r
    }

    pub async fn looping(n: u32) -> u32 {
        let mut total = 0;
        let mut i = 0;
        loop {
            let d = Loud::new(format!("iter {i}"));
            if i == n {
                break;
            }
            total += later("step", i).await;
            i += 1;
            drop(d);
        }
        total
    }

    pub async fn while_loop(n: u32) -> u32 {
        let mut i = 0;
        let mut total = 0;
        while i < n {
            total += now("w", i).await;
            i += 1;
        }
        while let Some(x) = i.checked_sub(0).filter(|x| *x > 0) {
            total += later("wl", x).await;
            i -= 1;
        }
        total
    }

    pub async fn for_loop(items: Vec<u32>) -> u32 {
        let mut total = 0;
        for (index, item) in items.into_iter().enumerate() {
            let d = Loud::new(format!("item {index}"));
            if item == 3 {
                continue;
            }
            if item == 99 {
                break;
            }
            total += later("for", item).await;
            drop(d);
        }
        total
    }

    pub async fn labelled(n: u32) -> u32 {
        let mut found = 0;
        'outer: for i in 0..n {
            for j in 0..n {
                let v = now("cell", i * 10 + j).await;
                if v == 12 {
                    found = v;
                    break 'outer;
                }
                if j > i {
                    continue 'outer;
                }
            }
        }
        found
    }

    pub async fn break_value(n: u32) -> u32 {
        let mut i = 0;
        let found = loop {
            let x = later("search", i).await;
            if x * x >= n {
                break x;
            }
            i += 1;
        };
        found + 1000
    }

    pub async fn labelled_block(n: u32) -> u32 {
        let v = 'done: {
            if n == 0 {
                break 'done 7;
            }
            let x = now("lb", n).await;
            if x > 5 {
                break 'done x * 2;
            }
            x
        };
        v
    }

    pub async fn early_return(n: u32) -> u32 {
        let d = Loud::new("d");
        let x = later("first", n).await;
        if x > 5 {
            return x;
        }
        let e = Loud::new("e");
        let y = now("second", x).await;
        drop(e);
        drop(d);
        y + 1
    }

    pub async fn question_result(input: Result<u32, String>) -> Result<u32, String> {
        let d = Loud::new("d");
        let v = now("input", input).await?;
        let w: u32 = later("parse", "12".to_owned()).await.parse().map_err(|_| "bad".to_owned())?;
        if v == 0 {
            Err("zero".to_owned())?;
        }
        drop(d);
        Ok(v + w)
    }

    pub async fn question_option(input: Option<u32>) -> Option<u32> {
        let v = later("opt", input).await?;
        let w = now("half", if v % 2 == 0 { Some(v / 2) } else { None }).await?;
        Some(w + 1)
    }

    pub async fn unit_fn(n: u32) {
        if n > 1 {
            later("unit", ()).await;
            log("unit done");
            return;
        }
        log("small");
    }
}

#[test]
fn branches() {
    for c in [true, false] {
        let (outcome, _) = same(|| classic::branch(c, 4), || runtime::branch(c, 4));
        assert_eq!(outcome, Outcome::Value(if c { 5 } else { 8 }));
    }
    for n in 0..4 {
        same(|| classic::else_if(n), || runtime::else_if(n));
        same_at_every_suspension(|| classic::else_if_conditions_await(n), || runtime::else_if_conditions_await(n));
        same_at_every_suspension(
            || classic::else_if_chain_moves_on_some_branches(n, Loud::new("p")),
            || runtime::else_if_chain_moves_on_some_branches(n, Loud::new("p")),
        );
    }
    for c in [true, false] {
        same(|| classic::if_without_else(c), || runtime::if_without_else(c));
    }
}

#[test]
fn matches() {
    for v in [None, Some(0), Some(3), Some(20)] {
        same(|| classic::matching(v), || runtime::matching(v));
    }
}

#[test]
fn loops() {
    for n in [0, 1, 3] {
        let (outcome, _) = same(|| classic::looping(n), || runtime::looping(n));
        assert_eq!(outcome, Outcome::Value((0..n).sum()));
        same(|| classic::while_loop(n), || runtime::while_loop(n));
        same(|| classic::labelled(n + 2), || runtime::labelled(n + 2));
        same(|| classic::break_value(n * 7), || runtime::break_value(n * 7));
        same(|| classic::labelled_block(n * 3), || runtime::labelled_block(n * 3));
    }
    for items in [vec![], vec![1, 2], vec![1, 3, 4], vec![5, 99, 6]] {
        same(|| classic::for_loop(items.clone()), || runtime::for_loop(items.clone()));
    }
}

#[test]
fn returns_and_questions() {
    for n in [1, 9] {
        same(|| classic::early_return(n), || runtime::early_return(n));
    }
    for input in [Ok(0), Ok(3), Err("no".to_owned())] {
        same(|| classic::question_result(input.clone()), || runtime::question_result(input.clone()));
    }
    for input in [None, Some(3), Some(4)] {
        same(|| classic::question_option(input), || runtime::question_option(input));
    }
    for n in [0, 5] {
        same(|| classic::unit_fn(n), || runtime::unit_fn(n));
    }
}

#[test]
fn cancelled_inside_loops_and_branches() {
    // Dropped at each suspension in turn: the same locals drop, in the same order.
    same_at_every_suspension(|| classic::looping(4), || runtime::looping(4));
    same_at_every_suspension(|| classic::matching(Some(20)), || runtime::matching(Some(20)));
    same_at_every_suspension(|| classic::for_loop(vec![1, 2, 3, 4]), || runtime::for_loop(vec![1, 2, 3, 4]));
    same_at_every_suspension(|| classic::branch(true, 1), || runtime::branch(true, 1));
    same_at_every_suspension(|| classic::break_value(30), || runtime::break_value(30));
    same_at_every_suspension(|| classic::question_option(Some(4)), || runtime::question_option(Some(4)));
}

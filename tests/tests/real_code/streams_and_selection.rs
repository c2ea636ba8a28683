//! Concurrency as clients and workers write it, lowered both ways and compared: a
//! `select_biased!` in a loop over a channel whose arms `continue`, `break` and `return`,
//! `tokio::select!` with `biased;`, a precondition and `else` as an expression, `try_join!`
//! over async blocks that fail, `join_all` over futures that borrow a local vector,
//! `buffered` and filtering stream combinators, a hand-made timeout with `future::select`,
//! futures kept in a vector or an array and awaited later, closures that return futures.

use lowering_tests::*;

differential! {
    use futures::channel::mpsc;
    use futures::{FutureExt, SinkExt, StreamExt};

    pub async fn drain_until_stopped(n: u32) -> Result<u32, String> {
        let (mut tx, mut rx) = mpsc::channel::<u32>(8);
        for i in 0..n {
            tx.send(i).await.map_err(|e| e.to_string())?;
        }
        drop(tx);
        let mut stop = std::pin::pin!(later("stop", ()).fuse());
        let mut total = 0;
        let mut seen = 0;
        loop {
            futures::select_biased! {
                v = rx.next() => match v {
                    Some(3) => continue,
                    Some(v) if v > 5 => return Err(format!("big {}", v)),
                    Some(v) => { total += v; seen += 1; }
                    None => break,
                },
                _ = stop => total += 1000,
            }
        }
        Ok(total + seen)
    }

    pub async fn tokio_select_value(n: u32) -> u32 {
        let mut acc = 0;
        for i in 0..n {
            acc += tokio::select! {
                biased;
                v = later("a", i), if i % 2 == 0 => v,
                v = later("b", i * 10) => v,
                else => 0,
            };
        }
        acc
    }

    pub async fn both_or_error(a: u32, b: u32) -> Result<(u32, u32), String> {
        let (x, y) = futures::try_join!(
            async { if a == 0 { Err("zero".to_string()) } else { Ok(later("a", a).await) } },
            async { Ok::<u32, String>(later("b", b).await) },
        )?;
        Ok((x, y))
    }

    pub async fn join_all_borrowing(v: Vec<u32>) -> Vec<u32> {
        let results = futures::future::join_all(v.iter().map(|x| later("j", *x + 1))).await;
        results.into_iter().chain(v.iter().copied()).collect()
    }

    pub async fn buffered(n: u32) -> Vec<u32> {
        futures::stream::iter(0..n).map(|i| later("b", i + 1)).buffered(2).collect::<Vec<_>>().await
    }

    pub async fn filtered(n: u32) -> Vec<u32> {
        let doubled = futures::stream::iter(0..n).map(|x| x * 2).filter(|x| futures::future::ready(*x % 3 != 0));
        let mut doubled = std::pin::pin!(doubled);
        let mut out = vec![];
        while let Some(x) = doubled.next().await {
            out.push(later("x", x).await);
        }
        out
    }

    pub async fn with_deadline(n: u32) -> Result<u32, &'static str> {
        let work = later("work", n);
        let deadline = later("deadline", ());
        futures::pin_mut!(work);
        futures::pin_mut!(deadline);
        match futures::future::select(work, deadline).await {
            futures::future::Either::Left((v, _)) => Ok(v),
            futures::future::Either::Right(((), _)) => Err("timeout"),
        }
    }

    pub async fn futures_in_a_vec(n: u32) -> u32 {
        let mut pending = Vec::new();
        for i in 0..n {
            pending.push(later("f", Loud::new(format!("v{i}"))));
        }
        let mut total = 0;
        for f in pending {
            total += f.await.0.len() as u32;
        }
        total
    }

    pub async fn futures_in_an_array(n: u32) -> [u32; 3] {
        let pending = [later("a", n), later("b", n + 1), later("c", n + 2)];
        let mut out = [0; 3];
        // Not `pending.into_iter()`: an array's method iterates by reference before 2021.
        for (i, f) in IntoIterator::into_iter(pending).enumerate() {
            out[i] = f.await;
        }
        out
    }

    pub async fn closures_return_futures(n: u32) -> u32 {
        let make = |x: u32| async move { later("make", x * 3).await };
        let (a, b) = futures::join!(make(n), make(n + 1));
        a + b
    }
}

#[test]
fn select_biased_in_a_loop_continues_breaks_and_returns() {
    for n in [3, 5, 8] {
        same_at_every_suspension(|| classic::drain_until_stopped(n), || runtime::drain_until_stopped(n));
    }
}

#[test]
fn tokio_select_as_an_expression() {
    same_at_every_suspension(|| classic::tokio_select_value(4), || runtime::tokio_select_value(4));
}

#[test]
fn try_join_over_blocks_that_fail() {
    for a in [0, 2] {
        same_at_every_suspension(|| classic::both_or_error(a, 3), || runtime::both_or_error(a, 3));
    }
}

#[test]
fn join_all_over_futures_that_borrow_a_local() {
    let outcome = same_at_every_suspension(
        || classic::join_all_borrowing(vec![1, 2, 3]),
        || runtime::join_all_borrowing(vec![1, 2, 3]),
    );
    assert_eq!(outcome, Outcome::Value(vec![2, 3, 4, 1, 2, 3]));
}

#[test]
fn stream_combinators() {
    same_at_every_suspension(|| classic::buffered(4), || runtime::buffered(4));
    same_at_every_suspension(|| classic::filtered(7), || runtime::filtered(7));
}

#[test]
fn a_timeout_made_with_select() {
    same_at_every_suspension(|| classic::with_deadline(4), || runtime::with_deadline(4));
}

#[test]
fn futures_kept_and_awaited_later() {
    same_at_every_suspension(|| classic::futures_in_a_vec(4), || runtime::futures_in_a_vec(4));
    same_at_every_suspension(|| classic::futures_in_an_array(3), || runtime::futures_in_an_array(3));
    same_at_every_suspension(|| classic::closures_return_futures(3), || runtime::closures_return_futures(3));
}

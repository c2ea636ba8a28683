//! `select!` (tokio's and futures') and the pinning macros in classic bodies, against the
//! plain `async fn`: which branch wins, what its handler's `return`, `?`, `break`, `continue`
//! and `.await` do, preconditions, refutable patterns and `else`, fused futures kept across
//! rounds with `complete` and `default`, and the drop of the losing futures, compared at
//! every suspension. Where two branches could be ready at once the tests use `biased;` (an
//! unbiased `select!` starts from a random branch in both lowerings). A branch that loses
//! never logs a suspension of its own (the harness drops the futures at the logged
//! suspensions, and a branch that yields inside a `select!` that completes anyway suspends
//! nothing: a classic call that starts eagerly would finish before the plain one is polled).

use std::pin::Pin;

use futures::FutureExt;
use futures::channel::mpsc;
use futures::stream::StreamExt;
use lowering_tests::*;

/// A read that suspends once, then fills `buf` with `n` bytes of `byte`.
pub async fn read_into(buf: &mut [u8; 8], byte: u8, n: usize) -> usize {
    later("read", ()).await;
    buf[..n].fill(byte);
    n
}

pub async fn loud_later(name: &str, value: u32) -> u32 {
    let _guard = Loud::new(format!("guard {name}"));
    later(name, value).await
}

differential! {
    /// A connection's loop: a read with an idle branch and a shutdown branch, biased.
    pub async fn serve(rounds: u32, stop_at: u32) -> Result<u32, String> {
        let mut buf = [0u8; 8];
        let mut total = 0u32;
        let mut round = 0;
        loop {
            round += 1;
            tokio::select! {
                biased;
                _ = now("shutdown", ()), if round == stop_at => {
                    log("shutdown");
                    break;
                }
                n = read_into(&mut buf, round as u8, 3) => {
                    if n == 0 {
                        continue;
                    }
                    total += buf[..n].iter().map(|&b| u32::from(b)).sum::<u32>();
                    later("handled", ()).await;
                    if total > 1000 {
                        return Err(format!("too much: {total}"));
                    }
                }
                _ = std::future::pending::<()>() => {
                    unreachable!("never ready");
                }
            }
            if round == rounds {
                break;
            }
        }
        Ok(total)
    }

    /// Refutable patterns: a branch whose output does not match is disabled; `else` when all
    /// are.
    pub async fn drain(values: Vec<Option<u32>>, extra: Option<u32>) -> u32 {
        let mut sum = 0;
        for value in values {
            let loud = Loud::new("held");
            sum += tokio::select! {
                biased;
                Some(y) = now("extra", extra) => y * 100,
                Some(x) = later("value", value) => x + loud.name().len() as u32,
                else => {
                    log("both disabled");
                    later("else", 7).await
                }
            };
        }
        sum
    }

    /// `?` in a handler, and the losing future dropped when the winner's handler runs.
    pub async fn first_error(fail: bool) -> Result<u32, String> {
        let value = tokio::select! {
            biased;
            v = loud_later("slow", 1) => v,
            r = async { later("check", ()).await; if fail { Err(String::from("failed")) } else { Ok(2) } } => {
                let x: u32 = r?;
                x + now("after", 10).await
            }
        };
        Ok(value)
    }

    /// An unbiased `select!` whose branches are never ready together: deterministic.
    pub async fn one_ready(n: u32) -> u32 {
        let mut acc = 0;
        for i in 0..n {
            acc += tokio::select! {
                x = later("a", i) => x,
                y = forever::<u32>("b") => y,
                z = forever::<u32>("c") => z,
            };
        }
        acc
    }

    /// futures' `select!` over fused futures kept across rounds, with `complete`.
    pub async fn fused_rounds(a: u32, b: u32) -> u32 {
        let mut first = Box::pin(later("first", a).fuse());
        let mut second = Box::pin(loud_later("second", b).fuse());
        let mut total = 0;
        loop {
            futures::select_biased! {
                x = first => total += x,
                y = second => total += y * 10,
                complete => break,
            }
        }
        total
    }

    /// futures' `select!` with `default`: no waiting.
    pub async fn try_now(ready: bool) -> u32 {
        let mut quick = Box::pin(async move { if ready { 5 } else { later("slow", 6).await } }.fuse());
        let first = futures::select! {
            x = quick => x,
            default => 0,
        };
        first + later("end", 1).await
    }

    /// A channel drained with `select!`, `Some(..)` refutable, `else` ending the loop.
    pub async fn channel(values: Vec<u32>) -> u32 {
        let (mut tx, mut rx) = mpsc::channel::<u32>(8);
        for value in values {
            tx.try_send(value).map_err(|_| ()).unwrap_or(());
        }
        drop(tx);
        let mut sum = 0;
        loop {
            tokio::select! {
                Some(v) = rx.next() => {
                    sum += v;
                    later("item", ()).await;
                }
                else => break,
            }
        }
        sum
    }

    /// `join!` and `select!` inside the standard macros' arguments.
    pub async fn inside_standard_macros(a: u32) -> (String, Vec<u32>) {
        let text = format!("{} {}", futures::join!(later("x", a), later("y", 2)).0, a);
        let v = vec![futures::join!(later("z", 3u32)).0, tokio::select! { biased; x = later("w", 4u32) => x }];
        assert!(futures::join!(later("c", true)).0, "{}", a);
        (text, v)
    }

    /// `std::pin::pin!` of a future kept across awaits and polled through `&mut`.
    pub async fn pinned_std(x: u32) -> u32 {
        let mut pinned = std::pin::pin!(loud_later("pinned", x));
        let before = later("between", 1).await;
        let value = (&mut pinned).await;
        before + value
    }

    /// `tokio::pin!` and `futures::pin_mut!` of named futures, raced in a loop.
    pub async fn pinned_names(n: u32) -> u32 {
        let slow = loud_later("slow", 100);
        tokio::pin!(slow);
        let ticks = async { for i in 0..n { later("tick", i).await; } n };
        futures::pin_mut!(ticks);
        let mut seen = 0;
        loop {
            tokio::select! {
                biased;
                v = &mut ticks, if seen == 0 => seen = v,
                w = &mut slow => return w + seen,
            }
        }
    }

    /// `tokio::pin! { let name = value; }` and a pinned future passed on as `Pin<&mut _>`.
    pub async fn pinned_let(x: u32) -> u32 {
        tokio::pin! {
            let fut = loud_later("let", x);
        }
        finish(fut.as_mut()).await + 1
    }
}

async fn finish<F: std::future::Future<Output = u32>>(fut: Pin<&mut F>) -> u32 {
    fut.await
}

#[test]
fn a_read_loop_with_idle_and_shutdown_branches() {
    for (rounds, stop_at) in [(3, 0), (3, 2), (1, 1), (5, 4)] {
        same_at_every_suspension(|| classic::serve(rounds, stop_at), || runtime::serve(rounds, stop_at));
    }
}

#[test]
fn refutable_patterns_and_else() {
    for extra in [None, Some(2)] {
        let values = || vec![Some(1), None, Some(3)];
        same_at_every_suspension(|| classic::drain(values(), extra), || runtime::drain(values(), extra));
    }
}

#[test]
fn question_mark_in_a_handler_and_the_loser_dropped() {
    for fail in [false, true] {
        same_at_every_suspension(|| classic::first_error(fail), || runtime::first_error(fail));
    }
}

#[test]
fn unbiased_with_one_ready_branch() {
    let outcome = same_at_every_suspension(|| classic::one_ready(3), || runtime::one_ready(3));
    assert_eq!(outcome, Outcome::Value(3));
}

#[test]
fn futures_select_fused_complete_and_default() {
    let outcome = same_at_every_suspension(|| classic::fused_rounds(1, 2), || runtime::fused_rounds(1, 2));
    assert_eq!(outcome, Outcome::Value(21));
    for ready in [false, true] {
        same_at_every_suspension(|| classic::try_now(ready), || runtime::try_now(ready));
    }
}

#[test]
fn a_channel_drained_until_else() {
    let outcome = same_at_every_suspension(|| classic::channel(vec![1, 2, 3]), || runtime::channel(vec![1, 2, 3]));
    assert_eq!(outcome, Outcome::Value(6));
}

#[test]
fn awaiting_macros_inside_standard_macros() {
    let outcome =
        same_at_every_suspension(|| classic::inside_standard_macros(1), || runtime::inside_standard_macros(1));
    assert_eq!(outcome, Outcome::Value((String::from("1 1"), vec![3, 4])));
}

#[test]
fn pinning_macros() {
    let outcome = same_at_every_suspension(|| classic::pinned_std(4), || runtime::pinned_std(4));
    assert_eq!(outcome, Outcome::Value(5));
    for n in [0, 2] {
        same_at_every_suspension(|| classic::pinned_names(n), || runtime::pinned_names(n));
    }
    same_at_every_suspension(|| classic::pinned_let(3), || runtime::pinned_let(3));
}

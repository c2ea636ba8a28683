//! Conditions, parameters and macros in classic bodies, lowered both ways and compared
//! (results, events, drops, panics and their messages, the future dropped at every
//! suspension): `#[cfg]` on statements, const generics, `write!`/`vec!`/`matches!` and the
//! comparison assertions whose message awaits (formatted only when the assertion fails, with
//! the standard message), `&&`/`||`/`while` conditions that await, future parameters awaited
//! into shadowing `let`s, a labelled `break` with a value out of nested loops, an `FnMut`
//! closure called with awaited values, and `return` of awaited values.

use lowering_tests::*;
use std::fmt::Write as _;
use std::future::Future;

pub async fn fetch(x: u32) -> u32 {
    later("fetch", x).await
}
pub async fn truthy(b: bool) -> bool {
    later("truthy", b).await
}

differential! {
    pub async fn cfgs(x: u32) -> u32 {
        #[cfg(debug_assertions)]
        log("debug build");
        #[cfg(not(debug_assertions))]
        log("release build");
        #[allow(unused_mut)]
        let mut y = fetch(x).await;
        y
    }

    pub async fn const_generic<const N: usize>(buf: [u32; N]) -> u32 {
        let mut sum = 0;
        for b in buf { sum += fetch(b).await; }
        sum + N as u32
    }

    pub async fn std_macros(n: u32) -> String {
        let mut s = String::new();
        write!(s, "{}-", fetch(n).await).unwrap();
        let v = vec![fetch(1).await; 2];
        assert_eq!(fetch(2).await, 2, "two is {}", fetch(2).await);
        assert_ne!(fetch(n).await, 4, "n is {} and {:?}", later("why", n).await, Some(n));
        debug_assert_eq!(fetch(n).await + 1, 4, "{}", later("debug", n).await);
        if matches!(later("m", Some(n)).await, Some(3)) { s.push('!'); }
        s + &format!("{v:?}")
    }

    pub async fn conditions(a: bool, b: bool) -> u32 {
        let mut n = 0;
        if truthy(a).await && truthy(b).await { n += 1; }
        if truthy(a).await || truthy(b).await { n += 10; }
        let mut i = 0;
        while truthy(i < 2).await { i += 1; n += 100; }
        n
    }

    pub async fn awaits_param<F: Future<Output = u32>>(x: F, y: impl Future<Output = u32>) -> u32 {
        let x = x.await;
        let y = y.await;
        x * 10 + y
    }

    pub async fn nested_break(rows: Vec<Vec<u32>>) -> Option<(usize, usize)> {
        let found = 'outer: loop {
            for (i, row) in rows.iter().enumerate() {
                for (j, v) in row.iter().enumerate() {
                    if fetch(*v).await == 7 { break 'outer Some((i, j)); }
                }
            }
            break None;
        };
        found
    }

    pub async fn fn_mut_closure(n: u32) -> (u32, Vec<u32>) {
        let mut seen = Vec::new();
        let mut record = |x: u32| { seen.push(x); x * 2 };
        let mut total = 0;
        for i in 0..n { total += record(fetch(i).await); }
        drop(record);
        (total, seen)
    }

    pub async fn tail_return(fail: bool) -> Result<u32, String> {
        if fail { return Err(later("err", String::from("no")).await); }
        return Ok(fetch(5).await + later("r", 1).await);
    }
}

#[test]
fn statements_with_cfg_and_const_generics() {
    same_at_every_suspension(|| classic::cfgs(1), || runtime::cfgs(1));
    let outcome = same_at_every_suspension(|| classic::const_generic([1, 2, 3]), || runtime::const_generic([1, 2, 3]));
    assert_eq!(outcome, Outcome::Value(9));
}

#[test]
fn standard_macros_and_lazy_assertion_messages() {
    assert_eq!(
        same_at_every_suspension(|| classic::std_macros(3), || runtime::std_macros(3)),
        Outcome::Value(String::from("3-![1, 1]"))
    );
    // `assert_ne!` fails: its message's await runs, and the message is the standard one.
    let outcome = same_at_every_suspension(|| classic::std_macros(4), || runtime::std_macros(4));
    assert_eq!(
        outcome,
        Outcome::Panic(String::from("assertion `left != right` failed: n is 4 and Some(4)\n  left: 4\n right: 4"))
    );
    // `debug_assert_eq!` fails in a debug build.
    same_at_every_suspension(|| classic::std_macros(5), || runtime::std_macros(5));
}

#[test]
fn conditions_parameters_and_breaks() {
    for (a, b) in [(true, true), (true, false), (false, true), (false, false)] {
        same_at_every_suspension(|| classic::conditions(a, b), || runtime::conditions(a, b));
    }
    let outcome = same_at_every_suspension(
        || classic::awaits_param(later("x", 1), async { 2 }),
        || runtime::awaits_param(later("x", 1), async { 2 }),
    );
    assert_eq!(outcome, Outcome::Value(12));
    let rows = || vec![vec![1, 2], vec![3, 7, 9]];
    assert_eq!(
        same_at_every_suspension(|| classic::nested_break(rows()), || runtime::nested_break(rows())),
        Outcome::Value(Some((1, 1)))
    );
    assert_eq!(
        same_at_every_suspension(|| classic::fn_mut_closure(3), || runtime::fn_mut_closure(3)),
        Outcome::Value((6, vec![0, 1, 2]))
    );
    for fail in [true, false] {
        same_at_every_suspension(|| classic::tail_return(fail), || runtime::tail_return(fail));
    }
}

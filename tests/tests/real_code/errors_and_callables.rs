//! Errors and callables in classic bodies, lowered both ways and compared: `?` into
//! `Box<dyn Error + Send + Sync>` (from a parse error, a `&str`, a `String`), `map_err`, `?` on
//! `Option`, `impl AsyncFn`/`AsyncFnMut` parameters called and awaited, a `?Sized` generic.

use lowering_tests::*;
use std::error::Error;
pub async fn fetch(x: u32) -> u32 {
    later("fetch", x).await
}
pub async fn maybe(x: Option<u32>) -> Option<u32> {
    later("maybe", x).await
}

differential! {
    pub async fn boxed_errors(input: &str) -> Result<u32, Box<dyn Error + Send + Sync>> {
        let n: u32 = input.trim().parse()?;
        let doubled = fetch(n).await.checked_mul(2).ok_or("overflow")?;
        if doubled > 100 { return Err(format!("too big: {doubled}").into()); }
        let text = later("t", String::from("7")).await;
        let extra: u32 = text.parse().map_err(|e: std::num::ParseIntError| e.to_string())?;
        Ok(doubled + extra)
    }

    pub async fn options(a: Option<u32>, b: Option<u32>) -> Option<u32> {
        let x = maybe(a).await?;
        let y = maybe(b).await.map(|v| v * 2)?;
        Some(x + y + fetch(1).await)
    }

    pub async fn async_closure_param(f: impl AsyncFn(u32) -> u32, g: impl AsyncFnMut(u32) -> u32) -> u32 {
        let mut g = g;
        let a = f(1).await;
        let b = g(a).await;
        let c = g(b).await;
        a + b + c
    }

    pub async fn generic_bound<T: std::fmt::Debug + ?Sized>(value: &T) -> String {
        let s = format!("{value:?}");
        later("dbg", s).await
    }
}

#[test]
fn boxed_errors_and_options() {
    for input in ["5", " 60", "x", "4000000000"] {
        // `Box<dyn Error>` has no `PartialEq`: compared as its text.
        let classic = run(Stop::AtEnd, || async { classic::boxed_errors(input).await.map_err(|e| e.to_string()) });
        let runtime = run(Stop::AtEnd, || async { runtime::boxed_errors(input).await.map_err(|e| e.to_string()) });
        assert_eq!(classic, runtime, "classic (left) and runtime (right) differ");
    }
    let (outcome, _) = run(Stop::AtEnd, || async { classic::boxed_errors("60").await.map_err(|e| e.to_string()) });
    assert_eq!(outcome, Outcome::Value(Err(String::from("too big: 120"))));
    for (a, b) in [(Some(1), Some(2)), (None, Some(2)), (Some(1), None)] {
        same_at_every_suspension(|| classic::options(a, b), || runtime::options(a, b));
    }
}

#[test]
fn async_callables_and_unsized_generics() {
    let outcome = same_at_every_suspension(
        || {
            let mut n = 0;
            classic::async_closure_param(
                async |x| later("f", x + 1).await,
                async move |x| {
                    n += 1;
                    x * 10 + n
                },
            )
        },
        || {
            let mut n = 0;
            runtime::async_closure_param(
                async |x| later("f", x + 1).await,
                async move |x| {
                    n += 1;
                    x * 10 + n
                },
            )
        },
    );
    assert_eq!(outcome, Outcome::Value(2 + 21 + 212));
    same_at_every_suspension(|| classic::generic_bound("str slice"), || runtime::generic_bound("str slice"));
}

//! Drop order, drop flags, temporaries and patterns: the same events under both lowerings,
//! run to the end and dropped at every suspension.

use lowering_tests::*;

pub struct Wrapper(pub Loud, pub u32);

differential! {
    pub async fn reverse_order(a: Loud, b: Loud) -> u32 {
        let x = Loud::new("x");
        let y = Loud::new("y");
        later("mid", ()).await;
        let z = Loud::new("z");
        now("end", ()).await;
        log(format!("{} {} {} {} {}", a.name(), b.name(), x.name(), y.name(), z.name()));
        1
    }

    pub async fn moved_values(flag: bool) -> u32 {
        let kept = Loud::new("kept");
        let moved = Loud::new("moved");
        let maybe = Loud::new("maybe");
        drop(moved);
        if flag {
            drop(maybe);
        }
        later("after moves", ()).await;
        log(format!("kept {}", kept.name()));
        2
    }

    pub async fn temporaries() -> usize {
        let n = Loud::new("temp").name().len() + later("t", 1usize).await;
        log("after statement");
        n
    }

    pub async fn scopes_end_before_await() -> u32 {
        {
            let inner = Loud::new("inner");
            log(format!("using {}", inner.name()));
        }
        later("outer", 3).await
    }

    pub async fn shadowing() -> String {
        let x = Loud::new("x1");
        let first = later("a", ()).await;
        let x = Loud::new(format!("{}-x2", x.name()));
        now("b", first).await;
        x.name().to_owned()
    }

    pub async fn destructuring(pair: (u32, Loud)) -> u32 {
        let (n, loud) = later("pair", pair).await;
        let Wrapper(inner, extra) = now("wrap", Wrapper(Loud::new("w"), 3)).await;
        let [first, .., last] = later("array", [1u32, 2, 3, 4]).await;
        log(format!("{} {}", loud.name(), inner.name()));
        n + extra + first + last
    }

    pub async fn let_else(v: Option<u32>) -> u32 {
        let Some(x) = later("opt", v).await else {
            log("none");
            return 0;
        };
        let Ok(y) = now("res", Ok::<u32, ()>(x)).await else {
            unreachable!()
        };
        let Some(z) = (if y > 1 { Some(y) } else { None }) else {
            let fallback = later("fallback", 100).await;
            return fallback;
        };
        z
    }

    pub async fn deferred_init(c: bool) -> u32 {
        let x;
        let d = Loud::new("d");
        if c {
            x = later("x", 5).await;
        } else {
            x = 0;
        }
        log(format!("{}", d.name()));
        x + 1
    }

    pub async fn match_bindings(v: Option<Loud>) -> String {
        match v {
            Some(loud) => {
                let suffix = later("suffix", "!").await;
                format!("{}{}", loud.name(), suffix)
            }
            None => now("none", String::from("none")).await,
        }
    }

    pub async fn pattern_params((a, b): (u32, Loud), _: Loud, Wrapper(c, d): Wrapper) -> u32 {
        later("p", ()).await;
        log(format!("{} {}", b.name(), c.name()));
        a + d
    }

    pub async fn loop_locals(n: u32) -> u32 {
        let mut total = 0;
        for i in 0..n {
            let d = Loud::new(format!("loop {i}"));
            total += later("l", i).await;
            if i == 1 {
                continue;
            }
            log(format!("end of {}", d.name()));
        }
        total
    }
}

#[test]
fn locals_drop_in_reverse_after_params() {
    let outcome = same_at_every_suspension(
        || classic::reverse_order(Loud::new("a"), Loud::new("b")),
        || runtime::reverse_order(Loud::new("a"), Loud::new("b")),
    );
    assert_eq!(outcome, Outcome::Value(1));
    let (_, log) = same(
        || classic::reverse_order(Loud::new("a"), Loud::new("b")),
        || runtime::reverse_order(Loud::new("a"), Loud::new("b")),
    );
    let drops: Vec<_> = log.iter().filter(|event| event.starts_with("drop")).collect();
    assert_eq!(drops, ["drop z", "drop y", "drop x", "drop b", "drop a"]);
}

#[test]
fn drop_flags() {
    for flag in [false, true] {
        same_at_every_suspension(|| classic::moved_values(flag), || runtime::moved_values(flag));
    }
}

#[test]
fn temporaries_and_scopes() {
    same_at_every_suspension(classic::temporaries, runtime::temporaries);
    same_at_every_suspension(classic::scopes_end_before_await, runtime::scopes_end_before_await);
}

#[test]
fn shadowed_names_have_their_own_slots() {
    let outcome = same_at_every_suspension(classic::shadowing, runtime::shadowing);
    assert_eq!(outcome, Outcome::Value("x1-x2".to_owned()));
}

#[test]
fn patterns() {
    same_at_every_suspension(
        || classic::destructuring((1, Loud::new("p"))),
        || runtime::destructuring((1, Loud::new("p"))),
    );
    for v in [None, Some(1), Some(5)] {
        same_at_every_suspension(|| classic::let_else(v), || runtime::let_else(v));
    }
    for c in [false, true] {
        same_at_every_suspension(|| classic::deferred_init(c), || runtime::deferred_init(c));
    }
    same_at_every_suspension(
        || classic::match_bindings(Some(Loud::new("m"))),
        || runtime::match_bindings(Some(Loud::new("m"))),
    );
    same_at_every_suspension(|| classic::match_bindings(None), || runtime::match_bindings(None));
    same_at_every_suspension(
        || classic::pattern_params((1, Loud::new("b")), Loud::new("ignored"), Wrapper(Loud::new("c"), 2)),
        || runtime::pattern_params((1, Loud::new("b")), Loud::new("ignored"), Wrapper(Loud::new("c"), 2)),
    );
    same_at_every_suspension(|| classic::loop_locals(3), || runtime::loop_locals(3));
}

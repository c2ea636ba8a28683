//! Everyday async Rust that has nothing to do with borrows: unit functions ending in loops,
//! items declared in the body, inference from a later statement, `async unsafe fn`, pattern
//! parameters with `_` parts, reference parameters and elided lifetimes, and the one model
//! difference that stays (the classic call starts eagerly).

use std::future::Future;

use lowering_tests::*;

pub struct Meter<'a> {
    pub name: &'a str,
}

pub async fn val(x: u32) -> u32 {
    later("val", x).await
}

differential! {
    pub async fn unit_while(n: u32) {
        let mut i = 0;
        while i < n {
            log(format!("{}", val(i).await));
            i += 1;
        }
    }

    pub async fn unit_for(n: u32) {
        for i in 0..n {
            log(format!("at {}", val(i).await));
        }
    }

    pub async fn items_in_the_body(values: Vec<u32>) -> u32 {
        use std::collections::BTreeMap;
        const BASE: u32 = 100;
        fn double(x: u32) -> u32 {
            x * 2
        }
        struct Pair(u32, u32);
        let mut map = BTreeMap::new();
        for (index, value) in values.into_iter().enumerate() {
            map.insert(index, double(val(value).await));
        }
        let pair = Pair(BASE, map.values().sum());
        pair.0 + pair.1
    }

    pub async fn inferred_later(c: bool, v: u32) -> u32 {
        let x = if c { Some(v) } else { None };
        now("between", ()).await;
        let y: Option<u32> = x;
        y.unwrap_or(0)
    }

    pub async unsafe fn reads_a_pointer(p: *const u32) -> u32 {
        later("before", ()).await;
        // SAFETY: the caller passes a valid pointer.
        unsafe { *p }
    }

    pub async fn pattern_parameters(ref mut x: Loud, (a, _, _c): (Loud, Loud, Loud), _: Loud) -> usize {
        later("start", ()).await;
        log(format!("x {}", x.name()));
        *x = Loud::new("replaced");
        now("end", ()).await;
        a.name().len()
    }

    pub async fn byte_ref(x: &u8) -> u8 {
        later("byte", *x).await
    }

    pub async fn with_future<F: Future<Output = u32>>(x: &i32, fut: F) -> i32 {
        *x + fut.await as i32
    }

    pub struct Counter {
        pub total: u32,
    }

    impl Counter {
        pub async fn add(&mut self, meter: Meter<'_>) -> u32 {
            self.total += later(meter.name, meter.name.len() as u32).await;
            self.total
        }
    }

    /// The differential fuzzer's seed 7, program 28: a `break` whose value reads a local (after
    /// an await) that the loop's body assigns; code after the loop reads it again. The jump
    /// took the loop body, not the code after the loop, for what follows it.
    pub async fn break_value_reads_a_local_read_after_the_loop() -> u32 {
        let mut v25 = 0u32;
        let _ = {
            let mut k27 = 0u32;
            'l26: loop {
                if k27 == 1 {
                    break 'l26 (0u32, now("a29", 2u32).await, v25).0;
                }
                k27 += 1;
                v25 = 3u32;
            }
        };
        let mut k38 = 0u32;
        loop {
            if k38 == 1 {
                break v25 + 1;
            }
            k38 += 1;
        }
    }

    pub struct Get(pub Loud);

    impl Get {
        pub async fn apply(self, n: u32) -> u32 {
            later("apply", n).await + self.0.name().len() as u32
        }

        pub async fn peek(&self, n: u32) -> u32 {
            later("peek", n).await + self.0.name().len() as u32
        }
    }

    pub enum Command {
        Get(Get),
        Set(Get),
    }

    impl Command {
        // Each arm moves its binding into a consuming method and awaits it.
        pub async fn run(self, n: u32) -> u32 {
            match self {
                Command::Get(cmd) => cmd.apply(n).await,
                Command::Set(cmd) => cmd.apply(n + 1).await + 1,
            }
        }
    }

    // A local taken by a consuming method at its last use, a parameter too, and one that a
    // `&self` method borrows at its last use (through an explicit borrow: see the README).
    pub async fn consuming_methods(first: Get, n: u32) -> u32 {
        let second = Get(Loud::new("second"));
        let third = Get(Loud::new("third"));
        let a = second.apply(n).await;
        let b = first.apply(a).await;
        let c = (&third).peek(b).await;
        log("after the last await");
        c
    }

    pub struct Request {
        pub parts: Vec<Loud>,
        pub sent: u32,
    }

    impl Request {
        pub async fn send(mut self) -> Result<Self, String> {
            let part = self.parts.pop().ok_or("nothing left to send")?;
            self.sent += later("send", part.name().len() as u32).await;
            Ok(self)
        }
    }

    // Builder style: each `let` takes the value it hides by a consuming method (also a `mut`
    // one hiding a parameter that is not), and a closure's parameter reuses the name after.
    // (A method on the `mut` one is written as a function: see the README.)
    pub async fn consumed_by_a_shadowing_let(request: Request) -> Result<u32, String> {
        let request = request.send().await?;
        let mut request = request.send().await?;
        request.sent += 1;
        let request = Request::send(request).await;
        request.map(|request| request.sent)
    }

    // The local is consumed on one path (a `return`, a `break` out of the loop, one arm) and
    // on another later: each is its last use on its own path.
    pub async fn consumed_where_a_path_ends(get: Get, n: u32) -> u32 {
        let x = later("x", n).await;
        if x == 0 {
            log("returning");
            return get.apply(x).await;
        }
        let mut i = 0;
        let y = loop {
            let y = later("y", i).await;
            if y >= 2 {
                break get.apply(y).await;
            }
            if y == x {
                return get.apply(y + 10).await;
            }
            i += 1;
        };
        y + 1
    }

    pub async fn consumed_in_arms(get: Get, n: u32) -> u32 {
        match n {
            0 => 0,
            1 => get.apply(1).await,
            2 => return get.apply(2).await + 100,
            _ => {
                let k = later("k", n).await;
                get.apply(k).await
            }
        }
    }

    pub async fn joins(a: u32, b: u32) -> (u32, u32, u32) {
        let mut buf = vec![a];
        let (x, y) = futures::join!(later("x", a), later("y", b));
        let (z,) = futures::join!(async { buf.push(b); later("z", buf.len() as u32).await });
        (x, y, z)
    }

    pub async fn try_joins(fail: bool) -> Result<(u32, u32), String> {
        let first = async { later("first", 1u32).await.checked_add(0).ok_or(String::from("overflow")) };
        let second = async {
            let value = later("second", 2).await;
            if fail { Err(String::from("second failed")) } else { Ok(value) }
        };
        let pair = futures::try_join!(first, second)?;
        Ok(pair)
    }
}

#[test]
fn consuming_methods_on_locals_and_match_bindings() {
    same_at_every_suspension(
        || classic::Command::Get(classic::Get(Loud::new("get"))).run(2),
        || runtime::Command::Get(runtime::Get(Loud::new("get"))).run(2),
    );
    same_at_every_suspension(
        || classic::Command::Set(classic::Get(Loud::new("set"))).run(2),
        || runtime::Command::Set(runtime::Get(Loud::new("set"))).run(2),
    );
    same_at_every_suspension(
        || classic::consuming_methods(classic::Get(Loud::new("first")), 1),
        || runtime::consuming_methods(runtime::Get(Loud::new("first")), 1),
    );
}

#[test]
fn consuming_methods_where_each_path_ends() {
    for n in 0..4 {
        same_at_every_suspension(
            || classic::consumed_where_a_path_ends(classic::Get(Loud::new("get")), n),
            || runtime::consumed_where_a_path_ends(runtime::Get(Loud::new("get")), n),
        );
        same_at_every_suspension(
            || classic::consumed_in_arms(classic::Get(Loud::new("get")), n),
            || runtime::consumed_in_arms(runtime::Get(Loud::new("get")), n),
        );
    }
}

#[test]
fn consuming_methods_on_the_local_a_let_hides() {
    for parts in 0..4 {
        let make = || (0..parts).map(|i| Loud::new(format!("part{i}"))).collect::<Vec<_>>();
        same_at_every_suspension(
            || classic::consumed_by_a_shadowing_let(classic::Request { parts: make(), sent: 0 }),
            || runtime::consumed_by_a_shadowing_let(runtime::Request { parts: make(), sent: 0 }),
        );
    }
}

#[test]
fn unit_functions_ending_in_loops() {
    for n in 0..3 {
        same_at_every_suspension(|| classic::unit_while(n), || runtime::unit_while(n));
        same_at_every_suspension(|| classic::unit_for(n), || runtime::unit_for(n));
    }
}

#[test]
fn items_declared_in_the_body() {
    let outcome =
        same_at_every_suspension(|| classic::items_in_the_body(vec![1, 2]), || runtime::items_in_the_body(vec![1, 2]));
    assert_eq!(outcome, Outcome::Value(106));
}

#[test]
fn inference_from_a_later_statement() {
    for c in [false, true] {
        same_at_every_suspension(|| classic::inferred_later(c, 4), || runtime::inferred_later(c, 4));
    }
}

#[test]
fn async_unsafe_fn() {
    let value = 9u32;
    // SAFETY: `value` outlives both calls.
    let outcome = same_at_every_suspension(
        || unsafe { classic::reads_a_pointer(&value) },
        || unsafe { runtime::reads_a_pointer(&value) },
    );
    assert_eq!(outcome, Outcome::Value(9));
}

#[test]
fn pattern_parameters_keep_their_unbound_parts_to_the_end() {
    let args = || (Loud::new("x"), (Loud::new("a"), Loud::new("b"), Loud::new("c")), Loud::new("u"));
    same_at_every_suspension(
        || {
            let (x, triple, u) = args();
            classic::pattern_parameters(x, triple, u)
        },
        || {
            let (x, triple, u) = args();
            runtime::pattern_parameters(x, triple, u)
        },
    );
}

#[test]
fn reference_parameters_and_elided_lifetimes() {
    let byte = 7u8;
    same_at_every_suspension(|| classic::byte_ref(&byte), || runtime::byte_ref(&byte));
    let x = 5;
    same_at_every_suspension(
        || classic::with_future(&x, later("fut", 2)),
        || runtime::with_future(&x, later("fut", 2)),
    );
    let name = String::from("meter");
    let classic_total = {
        let mut counter = classic::Counter { total: 1 };
        let value = futures::executor::block_on(counter.add(Meter { name: &name }));
        (value, counter.total)
    };
    let runtime_total = {
        let mut counter = runtime::Counter { total: 1 };
        let value = futures::executor::block_on(counter.add(Meter { name: &name }));
        (value, counter.total)
    };
    assert_eq!(classic_total, runtime_total);
}

/// The model difference that stays: a classic call runs its body up to the first real
/// suspension when it is called (C#'s hot tasks); a plain `async fn` runs nothing until it is
/// first polled. A future created and never polled shows it.
#[test]
fn the_classic_call_starts_eagerly() {
    drop(take_log());
    let classic_task = classic::unit_for(1);
    let classic_log = take_log();
    drop(classic_task);
    drop(take_log());
    let runtime_future = runtime::unit_for(1);
    let runtime_log = take_log();
    drop(runtime_future);
    assert_eq!(classic_log, ["suspend val"], "the classic body ran to its first suspension");
    assert!(runtime_log.is_empty(), "the plain body has not run: {:?}", runtime_log);
}

#[test]
fn break_values_and_what_follows_the_loop() {
    let outcome = same_at_every_suspension(
        classic::break_value_reads_a_local_read_after_the_loop,
        runtime::break_value_reads_a_local_read_after_the_loop,
    );
    assert_eq!(outcome, Outcome::Value(4));
}

#[test]
fn join_and_try_join() {
    let outcome = same_at_every_suspension(|| classic::joins(1, 2), || runtime::joins(1, 2));
    assert_eq!(outcome, Outcome::Value((1, 2, 2)));
    for fail in [false, true] {
        same_at_every_suspension(|| classic::try_joins(fail), || runtime::try_joins(fail));
    }
}

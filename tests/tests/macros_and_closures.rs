//! Awaits inside the standard macros (same evaluation order, same messages), and inner
//! closures and async blocks, whose `return`, `?` and `.await` are their own, and closures
//! called before an await (an `FnOnce` one is taken by its call).

use std::fmt::Write as _;

use lowering_tests::fuzz::{consume, weigh};
use lowering_tests::*;

/// An async closure that the macro cannot see to be one: a function made it.
pub fn make_adder() -> impl AsyncFn(u32) -> u32 {
    async |x| later("add", x + 1).await
}

differential! {
    pub async fn formatting(x: u32) -> String {
        let text = format!("{} {} {x}", ev("first", 1), later("second", 2).await);
        println!("{} {}", now("printed", x).await, ev("after", 3));
        let mut out = String::new();
        write!(out, "{}-{}", later("w", 'a').await, now("w2", 'b').await).unwrap();
        writeln!(out, "{text}").unwrap();
        out
    }

    pub async fn vectors(n: u32) -> Vec<u32> {
        let mut v = vec![ev("v0", n), later("v1", n + 1).await, ev("v2", n + 2)];
        v.extend(vec![now("fill", 7).await; later("count", 2usize).await]);
        v
    }

    pub async fn assertions(n: u32) -> bool {
        assert!(later("cond", n > 0).await);
        assert!(now("cond2", n < 100).await, "n = {} is too big", now("msg", n).await);
        assert_eq!(later("left", n * 2).await, ev("right", n + n));
        assert_ne!(ev("ne-left", n), now("ne-right", n + 1).await, "differ");
        debug_assert!(later("debug", true).await);
        matches!(now("m", Some(n)).await, Some(x) if x > 1)
    }

    pub async fn failing_assert(n: u32) -> u32 {
        assert!(later("fails", n > 10).await);
        n
    }

    pub async fn failing_assert_eq(n: u32) -> u32 {
        assert_eq!(now("l", n).await, later("r", n + 1).await, "values for {}", n);
        n
    }

    pub async fn closures(items: Vec<u32>) -> Option<u32> {
        let double = |x: u32| -> Option<u32> {
            if x > 100 {
                return None;
            }
            Some(x.checked_mul(2)?)
        };
        let inner = async move {
            let x = later("inner", 5).await;
            x + 1
        };
        let total: u32 = items.iter().map(|x| double(*x).unwrap_or(0)).sum();
        let extra = inner.await;
        Some(total + extra + double(later("d", 3).await)?)
    }

    /// An `FnOnce` closure (it moves what it captures) called before an await: the call
    /// takes it, so nothing saves it across the await.
    pub async fn once_closure_called(call: bool) -> u32 {
        let label = Loud::new("label");
        let finish = move || consume(label);
        later("made", 0u32).await;
        let value = if call { finish() } else { 0 };
        later("after", value).await + later("again", 1u32).await
    }

    /// An `Fn` closure that owns a value, called for the last time before an await: it stays
    /// until its scope ends, and so does what it owns.
    pub async fn fn_closure_called(times: u32) -> u32 {
        let label = Loud::new("label");
        let look = move || weigh(&label);
        later("made", 0u32).await;
        let mut total = 0;
        for _ in 0..times {
            total += look();
        }
        later("after", total).await
    }


    /// A macro's tokens name the binding in scope: `info!(?p)` after a `let p` names the new
    /// `p`, not the moved parameter.
    pub async fn macro_names_a_hiding_binding(p: Loud) -> u32 {
        consume(p);
        later("between", ()).await;
        let n = {
            let p = Loud::new("hides");
            info!(target: "t", ?p);
            weigh(&p)
        };
        n + now("after", 1u32).await
    }

    /// An async block that assigns a local inside a standard macro's argument captures it by
    /// mutable reference, as any assignment does.
    /// An `FnOnce` callee awaited at its last use, taken out of an `Option` (as async-lock's
    /// `OnceCell::initialize_or_wait` writes it): the call takes it.
    pub async fn once_callee_awaited<F: FnOnce() -> Fut, Fut: std::future::Future<Output = u32>>(
        make: F,
        fail: bool,
    ) -> u32 {
        let mut slot = Some(make);
        let label = Loud::new("label");
        let initializer = slot.take().unwrap();
        let first = later("before", 1u32).await;
        match (initializer)().await {
            _ if fail => weigh(&label),
            n => n + first,
        }
    }

    /// A closure that moves what it captures, awaited at its last use: taken by the call,
    /// its capture drops inside it.
    pub async fn moving_closure_awaited() -> u32 {
        let label = Loud::new("label");
        let finish = move || later("finish", consume(label));
        let first = later("before", 1u32).await;
        first + finish().await
    }

    /// A closure that only borrows what it owns, awaited at its last use: the call borrows
    /// it, and it drops at the end of its scope, after the next await.
    pub async fn borrowing_closure_awaited() -> u32 {
        let label = Loud::new("label");
        let weigh_it = move || later("weigh", weigh(&label));
        let first = later("before", 1u32).await;
        let second = weigh_it().await;
        later("after", first + second).await
    }

    /// Such a closure awaited at its last use, through a reference: kept where it is, as its
    /// future borrows it (`ui/async_callable_taken_at_last_use.rs` has it called by name).
    pub async fn made_async_closure_awaited() -> u32 {
        let add = make_adder();
        let n = later("n", 1u32).await;
        n + (&add)(2).await
    }

    pub async fn async_block_assigns_inside_a_macro_argument(c: bool) -> u32 {
        let mut n = later("n", 3u32).await;
        async {
            if c {
                log(format!("{}", { n = now("inside", 5u32).await; n }));
            }
        }
        .await;
        n
    }
}

/// Takes the receiver by identifier, as a macro shared by a type's methods often does.
macro_rules! bump_by {
    ($counter:ident, $by:expr) => {
        $counter.n += $by
    };
}

/// Reads the receiver by identifier.
macro_rules! count_of {
    ($counter:ident) => {
        $counter.n + $counter.seen.len() as u32
    };
}

/// Assigns a place.
macro_rules! advance {
    ($place:expr, $value:expr) => {
        $place = $value
    };
}

/// Takes a buffer by identifier.
macro_rules! push_to {
    ($buf:ident, $value:expr) => {
        $buf.push($value)
    };
}

mod by_identifier {
    use super::*;

    differential! {
        // Parameters declared references, kept in place (a part borrowed across an await), handed
        // to macros whose rules take an identifier (`$counter:ident`): the lowering handed them
        // its lent place, `(*place)`, which no such rule takes ("no rules expected `(`"). Now a
        // reborrow of the same type, under an identifier.
        pub struct Counter {
            pub n: u32,
            pub seen: Vec<u32>,
        }

        impl Counter {
            pub async fn bumped(&mut self, by: u32) -> u32 {
                let seen = &mut self.seen;
                seen.push(later("a", by).await);
                bump_by!(self, by);
                bump_by!(self, count_of!(self));
                self.n
            }

            pub async fn counted(&self) -> u32 {
                let seen = &self.seen;
                later("b", seen.len() as u32).await + count_of!(self)
            }
        }

        pub async fn fill_into(buf: &mut Vec<u32>, n: u32) -> usize {
            let first = buf.first();
            let base = later("c", first.copied().unwrap_or(0)).await;
            for i in 0..n {
                let value = later("p", i + base).await;
                push_to!(buf, value);
            }
            buf.len()
        }

        // A `mut` reference parameter the macro assigns another reference: it gets the
        // place, and the assignment reaches the parameter.
        pub async fn advanced(mut rest: &[u32], n: usize) -> usize {
            let first = &rest;
            let seen = later("d", first.len()).await;
            advance!(rest, &rest[n.min(rest.len())..]);
            seen + rest.len()
        }

        pub async fn filled(n: u32) -> Vec<u32> {
            let mut buf = vec![5];
            fill_into(&mut buf, n).await;
            buf
        }
    }

    #[test]
    fn references_handed_to_macros_by_identifier() {
        let drive = |classic: bool| {
            take_log();
            let (bumped, counted, n) = if classic {
                let mut counter = classic::Counter { n: 1, seen: vec![4] };
                let bumped = futures::executor::block_on(counter.bumped(3));
                (bumped, futures::executor::block_on(counter.counted()), counter.n)
            } else {
                let mut counter = runtime::Counter { n: 1, seen: vec![4] };
                let bumped = futures::executor::block_on(counter.bumped(3));
                (bumped, futures::executor::block_on(counter.counted()), counter.n)
            };
            (bumped, counted, n, take_log())
        };
        assert_eq!(drive(true), drive(false));
        for n in [0, 2] {
            same_at_every_suspension(|| classic::filled(n), || runtime::filled(n));
            same_at_every_suspension(
                || classic::advanced(&[1, 2, 3], n as usize),
                || runtime::advanced(&[1, 2, 3], n as usize),
            );
        }
    }
}

#[test]
fn format_family() {
    let outcome = same_at_every_suspension(|| classic::formatting(4), || runtime::formatting(4));
    assert_eq!(outcome, Outcome::Value("a-b1 2 4\n".to_owned()));
}

#[test]
fn vec_macro() {
    let outcome = same_at_every_suspension(|| classic::vectors(1), || runtime::vectors(1));
    assert_eq!(outcome, Outcome::Value(vec![1, 2, 3, 7, 7]));
}

#[test]
fn assert_family() {
    for n in [0, 2, 200] {
        same_at_every_suspension(|| classic::assertions(n), || runtime::assertions(n));
    }
    let (outcome, _) = same(|| classic::failing_assert(1), || runtime::failing_assert(1));
    assert_eq!(outcome, Outcome::Panic("assertion failed: later(\"fails\", n > 10).await".to_owned()));
    let (outcome, _) = same(|| classic::failing_assert_eq(1), || runtime::failing_assert_eq(1));
    let Outcome::Panic(message) = outcome else { panic!("expected a panic") };
    assert!(message.contains("values for 1"), "{message}");
}

#[test]
fn inner_closures_and_async_blocks() {
    for items in [vec![1, 2], vec![500]] {
        same_at_every_suspension(|| classic::closures(items.clone()), || runtime::closures(items.clone()));
    }
}

#[test]
fn closures_called_before_an_await() {
    for call in [true, false] {
        same_at_every_suspension(|| classic::once_closure_called(call), || runtime::once_closure_called(call));
    }
    for times in [0, 1, 2] {
        same_at_every_suspension(|| classic::fn_closure_called(times), || runtime::fn_closure_called(times));
    }
    let (_, log) = run(Stop::AtEnd, || classic::fn_closure_called(1));
    assert_eq!(log.last().map(String::as_str), Some("drop label"));
}

#[test]
fn closures_awaited_at_their_last_use() {
    for fail in [false, true] {
        same_at_every_suspension(
            || classic::once_callee_awaited(|| later("made", 4u32), fail),
            || runtime::once_callee_awaited(|| later("made", 4u32), fail),
        );
    }
    same_at_every_suspension(classic::moving_closure_awaited, runtime::moving_closure_awaited);
    same_at_every_suspension(classic::made_async_closure_awaited, runtime::made_async_closure_awaited);
    same_at_every_suspension(classic::borrowing_closure_awaited, runtime::borrowing_closure_awaited);
    let (_, log) = run(Stop::AtEnd, classic::borrowing_closure_awaited);
    assert_eq!(log.last().map(String::as_str), Some("drop label"));
}

#[test]
fn macros_see_the_bindings_around_them() {
    same_at_every_suspension(
        || classic::macro_names_a_hiding_binding(Loud::new("p")),
        || runtime::macro_names_a_hiding_binding(Loud::new("p")),
    );
    for c in [false, true] {
        same_at_every_suspension(
            || classic::async_block_assigns_inside_a_macro_argument(c),
            || runtime::async_block_assigns_inside_a_macro_argument(c),
        );
    }
}

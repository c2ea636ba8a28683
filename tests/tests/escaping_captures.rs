//! What a local kept in place lends to code that outlives the call: a user's macro whose
//! `move` closure or `async move` block captures the local and is stored past the call, a
//! closure that borrows a kept local later moved, and a kept local with more fields moved
//! out of it than a drop-flag word has bits. Each runs after the task is gone; under the
//! classic lowering none may read the freed state machine (memcheck runs this file too).

use std::future::Future;
use std::pin::Pin;

use lowering_tests::*;

/// Completes at once (as the programs write it).
pub async fn tick() {}

/// A user's macro that hands its tokens to a `move` closure.
macro_rules! keep { ($($t:tt)*) => { Box::new(move || { $($t)* }) }; }
/// A user's macro that hands its tokens to an `async move` block.
macro_rules! deferred { ($($t:tt)*) => { async move { $($t)* } }; }
/// A user's macro whose expansion is a plain expression.
macro_rules! plain { ($($t:tt)*) => { $($t)* }; }
/// A user's macro whose value borrows what it is handed.
macro_rules! borrow_it {
    ($e:expr) => {
        &$e
    };
}
/// A user's macro that takes a local as an identifier.
macro_rules! len_of {
    ($v:ident) => {
        $v.len()
    };
}
/// A user's macro that names two expressions (handed the same local twice).
macro_rules! both {
    ($a:expr, $b:expr) => {
        format!("{} {}", $a, $b)
    };
}
/// A user's macro that pastes what it is handed twice, once inside a call on the other.
macro_rules! grow {
    ($x:expr) => {{
        $x.push(1);
        $x.push($x.len() as u32);
    }};
}
/// A user's macro that pastes what it is handed twice, both borrows alive at once.
macro_rules! pair {
    ($e:expr) => {
        (&$e, &$e)
    };
}
/// A user's macro that declares a local of the caller's name.
macro_rules! declare {
    ($n:ident = $e:expr) => {
        let $n = $e;
    };
}

pub type Out = Vec<Box<dyn Fn() -> usize>>;
pub type Later = Vec<Pin<Box<dyn Future<Output = String>>>>;

/// A value that records its drops, with 34 fields of it in one struct.
#[derive(Debug)]
pub struct Rec(pub u32);

impl Drop for Rec {
    fn drop(&mut self) {
        log(format!("drop {}", self.0));
    }
}

pub struct Wide {
    pub f0: Rec,
    pub f1: Rec,
    pub f2: Rec,
    pub f3: Rec,
    pub f4: Rec,
    pub f5: Rec,
    pub f6: Rec,
    pub f7: Rec,
    pub f8: Rec,
    pub f9: Rec,
    pub f10: Rec,
    pub f11: Rec,
    pub f12: Rec,
    pub f13: Rec,
    pub f14: Rec,
    pub f15: Rec,
    pub f16: Rec,
    pub f17: Rec,
    pub f18: Rec,
    pub f19: Rec,
    pub f20: Rec,
    pub f21: Rec,
    pub f22: Rec,
    pub f23: Rec,
    pub f24: Rec,
    pub f25: Rec,
    pub f26: Rec,
    pub f27: Rec,
    pub f28: Rec,
    pub f29: Rec,
    pub f30: Rec,
    pub f31: Rec,
    pub f32: Rec,
    pub f33: Rec,
}

pub fn wide() -> Wide {
    Wide {
        f0: Rec(0),
        f1: Rec(1),
        f2: Rec(2),
        f3: Rec(3),
        f4: Rec(4),
        f5: Rec(5),
        f6: Rec(6),
        f7: Rec(7),
        f8: Rec(8),
        f9: Rec(9),
        f10: Rec(10),
        f11: Rec(11),
        f12: Rec(12),
        f13: Rec(13),
        f14: Rec(14),
        f15: Rec(15),
        f16: Rec(16),
        f17: Rec(17),
        f18: Rec(18),
        f19: Rec(19),
        f20: Rec(20),
        f21: Rec(21),
        f22: Rec(22),
        f23: Rec(23),
        f24: Rec(24),
        f25: Rec(25),
        f26: Rec(26),
        f27: Rec(27),
        f28: Rec(28),
        f29: Rec(29),
        f30: Rec(30),
        f31: Rec(31),
        f32: Rec(32),
        f33: Rec(33),
    }
}

pub fn sink(rec: Rec) -> u32 {
    rec.0
}

differential! {
    /// The first program: the macro's `move` closure takes `v` at its last use.
    pub async fn register(n: usize, out: &mut Out) -> usize {
        let v = vec![7u8; n];
        let r = &v;
        tick().await;               // `v` is borrowed across this await: it lives in place
        let len = r.len();
        out.push(keep! { v.len() + 1000 });   // the macro's `move` closure captures a raw place
        tick().await;
        len
    }

    /// The same, with real suspensions and a value that logs its drop.
    pub async fn register_suspending(name: &str, out: &mut Out) -> usize {
        let v = Loud::new(name);
        let r = &v;
        later("first", ()).await;
        let len = r.name().len();
        out.push(keep! { v.name().len() + 1000 });
        later("second", ()).await;
        len
    }

    /// The second program: an `async move` block with an await of its own.
    pub async fn register_deferred(name: String, out: &mut Later) -> usize {
        let mut v = vec![name.clone()];
        out.push(Box::pin(deferred! {
            v.push("inside".to_string());
            tick().await;            // an await inside the macro: the macro's own, not the function's
            v.push("after".to_string());
            v.join("+")
        }));
        tick().await;
        out.len()
    }

    /// The same, `v` also borrowed across one of the function's awaits, and the block
    /// suspending for real.
    pub async fn register_deferred_kept(name: String, out: &mut Later) -> usize {
        let mut v = vec![name.clone()];
        let first = &v[0];
        later("borrowed", ()).await;
        let n = first.len();
        out.push(Box::pin(deferred! {
            v.push("inside".to_string());
            later("in the block", ()).await;
            v.push("after".to_string());
            v.join("+")
        }));
        later("after the push", ()).await;
        n
    }

    /// A macro whose expansion only reads a kept local, at a use that is not its last.
    /// Macros that name a kept local twice, or paste it twice, not at its last use: each
    /// gets one reference to it, however often it names it (two `&mut` made from the place
    /// for one macro would be alive at once: undefined behaviour, which Miri reports).
    pub async fn named_twice(name: String, mut v: Vec<u32>) -> String {
        let held = (&name, &v);
        later("first", ()).await;
        let n = held.0.len() + held.1.len();
        let text = both!(name, name);
        grow!(v);
        let pairs = format!("{:?}", pair!(v));
        later("second", ()).await;
        format!("{n} {text} {pairs} {name} {v:?}")
    }

    /// A macro at the last mention of a kept local, a borrow of it still used after: the
    /// macro can only have borrowed it (the plain function would not compile otherwise), so
    /// it is lent the place, not the value.
    pub async fn lent_while_borrowed(name: String) -> String {
        let held = &name;
        later("first", ()).await;
        let text = both!(name, name);
        let closure = || held.len();
        later("second", ()).await;
        format!("{} {text}", closure())
    }

    pub async fn plain_macro_reads(n: usize) -> usize {
        let v = vec![1u8; n];
        let r = &v;
        later("first", ()).await;
        let a = plain!(v.len() + r.len());
        let b = v.len();
        later("second", ()).await;
        a + b
    }

    /// A macro that reads a kept local at its last use, the local dropping at the end of its
    /// scope after an await (the macro only borrowed it).
    pub async fn plain_macro_last_use(name: &str) -> usize {
        let v = Loud::new(name);
        let w = Loud::new("w");
        let r = &v;
        later("first", ()).await;
        let a = r.name().len();
        let b = plain!(v.name().len());
        later("second", ()).await;
        a + b + w.name().len()
    }

    /// A macro's `move` closure at a kept local's last use on one arm only: on the other
    /// path the local drops where its scope ends.
    pub async fn lent_on_one_path(take: bool, out: &mut Out) -> usize {
        let v = Loud::new("v");
        let w = Loud::new("w");
        let r = &v;
        later("first", ()).await;
        let n = r.name().len();
        match take {
            true => out.push(keep! { v.name().len() }),
            false => log("kept"),
        }
        later("second", ()).await;
        n + w.name().len()
    }

    /// A macro in a loop names a kept local each round: a place each time, never its value.
    pub async fn lent_in_a_loop(n: usize) -> usize {
        let v = vec![3usize; n];
        let r = &v;
        later("first", ()).await;
        let mut total = 0;
        let mut i = 0;
        while plain!(i < v.len()) {
            total += plain!(v[i]);
            i += 1;
        }
        total + r.len()
    }

    /// A macro inside an async block awaited where it is made, the local used after it.
    pub async fn lent_in_an_awaited_block(name: &str) -> usize {
        let v = Loud::new(name);
        let r = &v;
        later("first", ()).await;
        let inner = (async { plain!(v.name().len()) + later("inner", 1usize).await }).await;
        inner + r.name().len() + v.name().len()
    }

    /// A macro statement that declares a local, handed a kept local at its last use.
    pub async fn lent_to_a_declaring_macro(n: usize) -> usize {
        let v = vec![1u8; n];
        let r = &v;
        later("first", ()).await;
        let first = r.len();
        declare!(count = v.len() * 2);
        let total = first + count;
        later("second", ()).await;
        total
    }

    /// A macro that takes the local as an identifier, at its last use: it gets the value under
    /// the local's own name.
    pub async fn ident_macro_at_the_last_use(name: String) -> usize {
        let held = &name;
        later("first", ()).await;
        held.len() + len_of!(name)
    }

    /// The rewrites the refusal of a borrow held across an await suggests: the borrow taken
    /// outside the macro, or what the macro gives computed before the await.
    pub async fn borrow_taken_outside_the_macro(n: usize) -> usize {
        let v = vec![7u8; n];
        let r = &v;
        later("first", ()).await;
        let bytes = &v;
        let s = borrow_it!(*bytes);
        let len = borrow_it!(v).len();
        later("second", ()).await;
        s.len() + r.len() + v.len() + len
    }

    /// The 34-field program: every field moved out of a kept local, one assigned
    /// again, an await.
    pub async fn wide_moves(keep: bool) -> u32 {
        let mut w = wide();
        let r = &w.f0;
        later("borrowed", ()).await;
        let mut total = r.0;
        total += sink(w.f0); total += sink(w.f1); total += sink(w.f2); total += sink(w.f3);
        total += sink(w.f4); total += sink(w.f5); total += sink(w.f6); total += sink(w.f7);
        total += sink(w.f8); total += sink(w.f9); total += sink(w.f10); total += sink(w.f11);
        total += sink(w.f12); total += sink(w.f13); total += sink(w.f14); total += sink(w.f15);
        total += sink(w.f16); total += sink(w.f17); total += sink(w.f18); total += sink(w.f19);
        total += sink(w.f20); total += sink(w.f21); total += sink(w.f22); total += sink(w.f23);
        total += sink(w.f24); total += sink(w.f25); total += sink(w.f26); total += sink(w.f27);
        total += sink(w.f28); total += sink(w.f29); total += sink(w.f30); total += sink(w.f31);
        total += sink(w.f32); total += sink(w.f33);
        if keep {
            w.f33 = Rec(100);
        }
        later("after", ()).await;
        total
    }

    pub struct Mem(pub Vec<(String, u32)>);

    impl Mem {
        #[lowering::lowering(runtime)]
        pub async fn get(&self, k: &str) -> Option<u32> { tick().await; self.0.iter().find(|(key, _)| key == k).map(|(_, v)| *v) }

        /// The third program: a closure that borrows a kept parameter, then a move.
        pub async fn put(&mut self, k: String, v: u32) -> Option<u32> {
            let old = self.get(&k).await;         // `k` borrowed across an await: in place
            self.0.retain(|(key, _)| *key != k);  // a closure that borrows `k`
            self.0.push((k, v));                  // then `k` moved
            old
        }

        /// The same, the closure kept across an await before the move.
        pub async fn put_later(&mut self, k: String, v: u32) -> Option<u32> {
            let old = self.get(&k).await;
            let other = |key: &String| *key != k;
            later("between", ()).await;
            self.0.retain(|(key, _)| other(key));
            self.0.push((k, v));
            old
        }
    }
}

/// Runs the stored closures after the calls that made them completed.
fn call_all(out: &Out) -> Vec<usize> {
    out.iter().map(|f| f()).collect()
}

fn await_all(out: Later) -> Vec<String> {
    out.into_iter().map(futures::executor::block_on).collect()
}

#[test]
fn a_move_closure_from_a_macro_outlives_the_call() {
    let mut classic_out = Out::new();
    let mut runtime_out = Out::new();
    same(|| classic::register(5, &mut classic_out), || runtime::register(5, &mut runtime_out));
    assert_eq!(call_all(&classic_out), call_all(&runtime_out));
    assert_eq!(call_all(&classic_out), vec![1005]);

    let mut classic_out = Out::new();
    let mut runtime_out = Out::new();
    same(
        || classic::register_suspending("named", &mut classic_out),
        || runtime::register_suspending("named", &mut runtime_out),
    );
    take_log();
    let classic_values = call_all(&classic_out);
    drop(classic_out);
    let classic_log = take_log();
    let runtime_values = call_all(&runtime_out);
    drop(runtime_out);
    assert_eq!((classic_values, classic_log), (runtime_values, take_log()));
}

#[test]
fn a_move_closure_from_a_macro_dropped_at_every_suspension() {
    same_at_every_suspension(
        || async {
            let mut out = Out::new();
            let n = classic::register_suspending("named", &mut out).await;
            (n, call_all(&out))
        },
        || async {
            let mut out = Out::new();
            let n = runtime::register_suspending("named", &mut out).await;
            (n, call_all(&out))
        },
    );
}

#[test]
fn an_async_move_block_from_a_macro_outlives_the_call() {
    let mut classic_out = Later::new();
    let mut runtime_out = Later::new();
    same(
        || classic::register_deferred("c".to_string(), &mut classic_out),
        || runtime::register_deferred("c".to_string(), &mut runtime_out),
    );
    assert_eq!(await_all(classic_out), vec!["c+inside+after".to_string()]);
    assert_eq!(await_all(runtime_out), vec!["c+inside+after".to_string()]);

    let mut classic_out = Later::new();
    let mut runtime_out = Later::new();
    same(
        || classic::register_deferred_kept("k".to_string(), &mut classic_out),
        || runtime::register_deferred_kept("k".to_string(), &mut runtime_out),
    );
    let classic_results: Vec<_> = classic_out.into_iter().map(|f| run(Stop::AtEnd, || f)).collect();
    let runtime_results: Vec<_> = runtime_out.into_iter().map(|f| run(Stop::AtEnd, || f)).collect();
    assert_eq!(classic_results, runtime_results);
}

#[test]
fn a_macro_naming_a_kept_local_twice() {
    let outcome = same_at_every_suspension(
        || classic::named_twice("ab".to_string(), vec![7]),
        || runtime::named_twice("ab".to_string(), vec![7]),
    );
    assert_eq!(outcome, Outcome::Value("3 ab ab ([7, 1, 2], [7, 1, 2]) ab [7, 1, 2]".to_string()));
    let outcome = same_at_every_suspension(
        || classic::lent_while_borrowed("ab".to_string()),
        || runtime::lent_while_borrowed("ab".to_string()),
    );
    assert_eq!(outcome, Outcome::Value("2 ab ab".to_string()));
}

#[test]
fn a_plain_macro_on_a_kept_local() {
    same_at_every_suspension(|| classic::plain_macro_reads(3), || runtime::plain_macro_reads(3));
    same_at_every_suspension(|| classic::lent_in_a_loop(4), || runtime::lent_in_a_loop(4));
    same_at_every_suspension(
        || classic::ident_macro_at_the_last_use("abc".to_string()),
        || runtime::ident_macro_at_the_last_use("abc".to_string()),
    );
    same_at_every_suspension(|| classic::lent_in_an_awaited_block("v"), || runtime::lent_in_an_awaited_block("v"));
    same_at_every_suspension(|| classic::lent_to_a_declaring_macro(3), || runtime::lent_to_a_declaring_macro(3));
    same_at_every_suspension(
        || classic::borrow_taken_outside_the_macro(3),
        || runtime::borrow_taken_outside_the_macro(3),
    );
}

#[test]
fn a_macro_lent_a_value_on_one_path() {
    for take in [true, false] {
        let mut classic_out = Out::new();
        let mut runtime_out = Out::new();
        same(
            || classic::lent_on_one_path(take, &mut classic_out),
            || runtime::lent_on_one_path(take, &mut runtime_out),
        );
        take_log();
        let classic_values = call_all(&classic_out);
        drop(classic_out);
        let classic_log = take_log();
        let runtime_values = call_all(&runtime_out);
        drop(runtime_out);
        assert_eq!((classic_values, classic_log), (runtime_values, take_log()));
    }
}

/// The one difference lending by value makes (README, "Where the lowerings differ"): a macro
/// the lowering cannot see into is given a kept local's value at its last use, and a macro that
/// only borrows it leaves the value to drop where the macro's statement ends, not where the
/// local's scope ends. Same result; `v` drops before the second await instead of after `w`.
#[test]
fn a_borrowing_macro_at_a_last_use_drops_the_value_early() {
    let (classic_outcome, classic_log) = run(Stop::AtEnd, || classic::plain_macro_last_use("v"));
    let (runtime_outcome, runtime_log) = run(Stop::AtEnd, || runtime::plain_macro_last_use("v"));
    assert_eq!(classic_outcome, runtime_outcome);
    let plain =
        ["new v", "new w", "suspend first", "resume first", "suspend second", "resume second", "drop w", "drop v"];
    let lent =
        ["new v", "new w", "suspend first", "resume first", "drop v", "suspend second", "resume second", "drop w"];
    assert_eq!(runtime_log, plain);
    assert_eq!(classic_log, lent);
}

#[test]
fn a_closure_borrows_a_kept_parameter_later_moved() {
    let mut classic_mem = classic::Mem(vec![("a".to_string(), 1)]);
    let mut runtime_mem = runtime::Mem(vec![("a".to_string(), 1)]);
    for (value, old) in [(2, 1), (3, 2)] {
        let (outcome, _) = same(|| classic_mem.put("a".to_string(), value), || runtime_mem.put("a".to_string(), value));
        assert_eq!(outcome, Outcome::Value(Some(old)));
    }
    for (value, old) in [(4, 3), (5, 4)] {
        let (outcome, _) =
            same(|| classic_mem.put_later("a".to_string(), value), || runtime_mem.put_later("a".to_string(), value));
        assert_eq!(outcome, Outcome::Value(Some(old)));
    }
    assert_eq!(classic_mem.0, runtime_mem.0);
}

#[test]
fn more_fields_moved_than_a_word_has_bits() {
    same_at_every_suspension(|| classic::wide_moves(true), || runtime::wide_moves(true));
    for (keep, drops) in [(true, 35), (false, 34)] {
        let (_, log) = same(|| classic::wide_moves(keep), || runtime::wide_moves(keep));
        assert_eq!(log.iter().filter(|event| event.starts_with("drop ")).count(), drops);
    }
}

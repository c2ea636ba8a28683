//! Awaits inside expressions: operands are evaluated in Rust's order under both lowerings.
//! Every operand logs its evaluation (`ev`) and every await logs itself (`now`, `later`).

use lowering_tests::*;

#[derive(Debug, PartialEq)]
pub struct Pair {
    pub left: u32,
    pub right: u32,
}

pub fn add3(a: u32, b: u32, c: u32) -> u32 {
    log(format!("add3 {a} {b} {c}"));
    a + b + c
}

pub async fn plain_double(x: u32) -> u32 {
    log(format!("double {x}"));
    x * 2
}

pub struct Counter {
    pub values: Vec<u32>,
}

impl Counter {
    pub fn push(&mut self, value: u32) -> &mut Self {
        log(format!("push {value}"));
        self.values.push(value);
        self
    }
}

/// A count an async method changes, and a name one reads.
pub struct Tally {
    pub count: u32,
    pub name: String,
}

impl Tally {
    pub async fn bump(&mut self, n: u32) -> u32 {
        self.count += later("bump", n).await;
        self.count
    }

    pub async fn name_later(&self) -> String {
        later("name", self.name.clone()).await
    }
}

/// A `Copy` type with an overloaded comparison.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
pub struct Level(pub u32);

differential! {
    pub async fn binary() -> u32 {
        ev("a", 1) + now("b", 2).await * ev("c", 3) - later("d", 1).await
    }

    pub async fn call_args() -> u32 {
        add3(ev("x", 1), later("y", 2).await, ev("z", 3))
    }

    pub async fn method_receiver_and_args() -> Vec<u32> {
        let mut counter = Counter { values: vec![ev("init", 0)] };
        counter.push(later("first", 1).await);
        counter.push(ev("second", 2));
        counter.values.push(now("third", 3).await);
        counter.values
    }

    pub async fn literals() -> (u32, [u32; 3], Pair) {
        let tuple = (ev("t0", 1), now("t1", 2).await);
        let array = [ev("a0", 1), later("a1", 2).await, ev("a2", 3)];
        let pair = Pair { left: ev("left", 1), right: later("right", 2).await };
        (tuple.0 + tuple.1, array, pair)
    }

    pub async fn short_circuit(a: bool, b: bool) -> (bool, bool) {
        let and = ev("and-left", a) && later("and-right", b).await;
        let or = ev("or-left", a) || now("or-right", b).await;
        (and, or)
    }

    pub async fn compound(mut x: u32) -> u32 {
        x += later("inc", 5).await;
        x *= now("mul", 2).await;
        let mut v = vec![1u32, 2, 3];
        v[now("index", 1).await] += later("value", 10).await;
        v[ev("i", 0)] = now("assigned", 7).await;
        x + v.iter().sum::<u32>()
    }

    pub async fn casts_and_unary(x: i32) -> (i64, i32, bool) {
        let wide = later("cast", x).await as i64;
        let negated = -now("neg", x).await;
        let not = !later("not", x > 0).await;
        (wide, negated, not)
    }

    pub async fn indexing(items: Vec<u32>) -> u32 {
        let v = items[later("idx", 1usize).await];
        let w = now("vec", items.clone()).await[0];
        v + w
    }

    pub async fn fields() -> u32 {
        let l = later("pair", Pair { left: 4, right: 5 }).await.left;
        l + now("pair2", Pair { left: 1, right: 2 }).await.right
    }

    pub async fn nested() -> u32 {
        let x = plain_double(later("inner", 3).await).await;
        let y = now("outer", plain_double(ev("arg", 4))).await.await;
        x + y
    }
}

/// A comparison's left operand that the right operand, which awaits, may change: a primitive
/// is read before the right operand runs (`0 < 4`, not `4 < 4`), any other type is borrowed
/// for the whole comparison (and so cannot change).
mod compared_with_what_changes_it {
    use super::*;

    differential! {
        pub async fn a_field_the_right_operand_bumps(start: u32) -> (bool, u32) {
            let mut tally = Tally { count: start, name: String::new() };
            let tally = &mut tally;
            let below = tally.count < tally.bump(4).await;
            (below, tally.count)
        }

        pub async fn a_local_the_right_operand_bumps(start: u32) -> bool {
            let mut count = start;
            count == now("after", { count += 1; count }).await - 1
        }

        pub async fn a_string_the_right_operand_reads(s: String) -> bool {
            s == later("copy", s.clone()).await
        }

        pub async fn a_field_a_method_reads(tally: &Tally) -> bool {
            tally.name == tally.name_later().await
        }

        pub async fn a_generic_value_the_right_operand_reads<T: PartialOrd + Clone>(t: T) -> bool {
            t <= later("copy", t.clone()).await
        }

        pub async fn a_copy_type_with_its_own_comparison(level: Level) -> bool {
            level > later("half", Level(level.0 / 2)).await
        }
    }

    impl Tally {
        #[lowering::lowering(classic)]
        pub async fn below_its_bump_classic(&mut self) -> bool {
            self.count < self.bump(4).await
        }

        pub async fn below_its_bump_runtime(&mut self) -> bool {
            self.count < self.bump(4).await
        }
    }

    #[test]
    fn a_primitive_is_read_first() {
        for start in [0, 3] {
            let outcome = same_at_every_suspension(
                || classic::a_field_the_right_operand_bumps(start),
                || runtime::a_field_the_right_operand_bumps(start),
            );
            assert_eq!(outcome, Outcome::Value((true, start + 4)));
            let outcome = same_at_every_suspension(
                || classic::a_local_the_right_operand_bumps(start),
                || runtime::a_local_the_right_operand_bumps(start),
            );
            assert_eq!(outcome, Outcome::Value(true));
        }
        let (mut classic, mut runtime) =
            (Tally { count: 0, name: String::new() }, Tally { count: 0, name: String::new() });
        let (classic_outcome, classic_log) = run(Stop::AtEnd, || classic.below_its_bump_classic());
        let (runtime_outcome, runtime_log) = run(Stop::AtEnd, || runtime.below_its_bump_runtime());
        assert_eq!((classic_outcome, classic_log), (runtime_outcome, runtime_log));
        assert_eq!((classic.count, runtime.count), (4, 4));
    }

    #[test]
    fn any_other_type_is_borrowed() {
        for s in ["", "s"] {
            same_at_every_suspension(
                || classic::a_string_the_right_operand_reads(s.to_owned()),
                || runtime::a_string_the_right_operand_reads(s.to_owned()),
            );
        }
        let tally = Tally { count: 0, name: String::from("n") };
        same_at_every_suspension(
            || classic::a_field_a_method_reads(&tally),
            || runtime::a_field_a_method_reads(&tally),
        );
        same_at_every_suspension(
            || classic::a_generic_value_the_right_operand_reads(3u8),
            || runtime::a_generic_value_the_right_operand_reads(3u8),
        );
        same_at_every_suspension(
            || classic::a_copy_type_with_its_own_comparison(Level(4)),
            || runtime::a_copy_type_with_its_own_comparison(Level(4)),
        );
    }
}

fn check<T: std::fmt::Debug + PartialEq, F1, F2>(classic: impl Fn() -> F1, runtime: impl Fn() -> F2, expected: T)
where
    F1: std::future::IntoFuture<Output = T>,
    F2: std::future::IntoFuture<Output = T>,
{
    let outcome = same_at_every_suspension(classic, runtime);
    assert_eq!(outcome, Outcome::Value(expected));
}

#[test]
fn binary_operands() {
    check(classic::binary, runtime::binary, 6);
    let (_, log) = same(classic::binary, runtime::binary);
    assert_eq!(log, ["eval a", "await b", "eval c", "suspend d", "resume d"]);
}

#[test]
fn calls_and_methods() {
    check(classic::call_args, runtime::call_args, 6);
    check(classic::method_receiver_and_args, runtime::method_receiver_and_args, vec![0, 1, 2, 3]);
}

#[test]
fn literals_in_order() {
    let (_, log) = same(classic::literals, runtime::literals);
    assert_eq!(log[0], "eval t0");
    same_at_every_suspension(classic::literals, runtime::literals);
}

#[test]
fn short_circuits() {
    for a in [false, true] {
        for b in [false, true] {
            check(|| classic::short_circuit(a, b), || runtime::short_circuit(a, b), (a && b, a || b));
        }
    }
}

#[test]
fn assignments() {
    check(|| classic::compound(1), || runtime::compound(1), 12 + 1 + 12 + 3 + 7 - 1);
}

#[test]
fn casts_unary_indexing_fields() {
    check(|| classic::casts_and_unary(-3), || runtime::casts_and_unary(-3), (-3, 3, true));
    check(|| classic::indexing(vec![5, 6]), || runtime::indexing(vec![5, 6]), 11);
    check(classic::fields, runtime::fields, 6);
}

#[test]
fn nested_awaits() {
    check(classic::nested, runtime::nested, 14);
}

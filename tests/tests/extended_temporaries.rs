//! Temporaries whose life Rust extends to the end of the block: the operand of a `let`'s `&`,
//! and, through a field, an index or a `*` of that operand, the value they are taken from
//! (`let items = &self.state.read().await.items;`, a mock server's `verify`: the read guard
//! lives until the block ends, and `items` borrows it). Before, only a `&` of the temporary
//! itself was given a local of its own, so a field of an awaited value was E0716 "temporary
//! value dropped while borrowed" under classic.
//!
//! Rust also extends a temporary borrowed where a `let`'s value is put together: in a tuple,
//! an array, a braced struct, a tuple struct or variant (`Some(&make())`), a cast, a block's
//! tail, an `if`'s or a `match` arm's value. Those are given a local declared before the `let`
//! and assigned where the temporary was made, so that what is evaluated, and when, stays.
//!
//! Each shape runs under both lowerings, to the end and dropped at every suspension: the guard
//! drops where Rust drops it (after the block's other locals), before and across an await.

use std::ops::{Deref, DerefMut};

use lowering_tests::*;

/// What a read guard gives: logs its drop through `name`.
pub struct State {
    pub items: Vec<u32>,
    pub inner: Inner,
}

pub struct Inner {
    pub name: Loud,
    pub weights: Vec<u32>,
}

/// A guard that reaches its state through `Deref`, as a lock's does.
pub struct Guard(pub State);

impl Deref for Guard {
    type Target = State;
    fn deref(&self) -> &State {
        &self.0
    }
}

impl DerefMut for Guard {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.0
    }
}

pub fn state(name: &str, items: &[u32]) -> State {
    State { items: items.to_vec(), inner: Inner { name: Loud::new(name), weights: vec![2, 3] } }
}

pub async fn read(name: &str, items: &[u32]) -> Guard {
    later("read", Guard(state(name, items))).await
}

pub async fn try_read(name: &str, items: &[u32]) -> Result<Guard, String> {
    if name.is_empty() { Err("no name".to_owned()) } else { Ok(read(name, items).await) }
}

pub fn make(name: &str) -> Loud {
    Loud::new(name)
}

pub struct Pair<'a> {
    pub first: &'a Loud,
    pub n: usize,
}

pub struct Named<'a>(pub &'a Loud);

pub fn loud_text(name: &str) -> Box<Loud> {
    Box::new(Loud::new(name))
}

differential! {
    use super::*;

    pub struct Store {
        pub items: Vec<u32>,
    }

    impl Store {
        /// The mock server's shape: a field of an awaited guard, borrowed by a `let`.
        pub async fn verify(&self) -> usize {
            let items = &read("verify", &self.items).await.items;
            items.len()
        }

        /// The same, held across a later await, and through `&mut`.
        pub async fn held(&mut self) -> u32 {
            let items = &mut read("held", &self.items).await.items;
            items.push(later("between", 4).await);
            let _after = Loud::new("after");
            items.iter().sum()
        }
    }

    /// Through nested fields, an index and `?`.
    pub async fn nested(name: String, items: Vec<u32>) -> Result<u32, String> {
        let weight = &try_read(&name, &items).await?.inner.weights[1];
        let name_len = &read(&name, &items).await.inner.name.0;
        let seen = later("seen", *weight).await;
        Ok(seen + name_len.len() as u32)
    }

    /// Through `*` of a call's value, and an index of a call's value, with no await in the
    /// statement; then an await.
    pub async fn deref_and_index(name: String) -> usize {
        let text = &*loud_text(&name);
        let first = &state("indexed", &[7, 8]).items[0];
        let _local = Loud::new("local");
        later("tail", text.name().len() + *first as usize).await
    }

    /// In a loop: each round's guard drops at the end of its round.
    pub async fn in_a_loop(names: Vec<String>) -> usize {
        let mut total = 0;
        for name in &names {
            let items = &read(name, &[1, 2]).await.items;
            total += later("round", items.len()).await;
        }
        total
    }

    /// In a `match` arm's block, behind a reference to the store.
    pub async fn in_an_arm(store: &Store, which: Option<&str>) -> usize {
        match which {
            Some(name) => {
                let items = &read(name, &store.items).await.items;
                later("arm", items.len()).await
            }
            None => 0,
        }
    }

    /// Not used after the await, the extended temporary still lives past it, to the end of
    /// the block: its drop is logged after the await's resume, and after `_local`'s.
    pub async fn unused_after_the_await(name: String) -> u32 {
        let name = &read(&name, &[1]).await.inner.name.0;
        let first = name.len() as u32;
        let _local = Loud::new("local");
        first + later("after", 1).await
    }

    /// In a tuple, a struct, an array, a tuple struct and `Some`: each made in its place, in
    /// order with the other operands (`ev`), and dropped at the end of the block.
    pub async fn in_aggregates(name: String) -> usize {
        let tuple = (ev("before", 1), &make(&name), &make("second").0);
        let pair = Pair { first: &make("in struct"), n: ev("n", 2) };
        let array = [&make("a0"), &read("a1", &[4]).await.inner.name];
        let named = Named(&make("named"));
        let some = Some(&make("some"));
        let _local = Loud::new("local");
        let total = tuple.0 + tuple.1.name().len() + tuple.2.len() + pair.first.name().len() + pair.n;
        later("sum", total + array[1].name().len() + named.0.name().len() + some.map_or(0, |l| l.name().len())).await
    }

    /// In an `if`'s branches (one made, one not), a block's tail, a `match` arm, a cast.
    pub async fn in_branches(name: String, c: bool) -> usize {
        let other = Loud::new("other");
        let chosen = if c { &make(&name) } else { &other };
        let tail = {
            let _inner = Loud::new("inner");
            &make("tail")
        };
        let arm = match c {
            true => &read("arm", &[1]).await.items,
            false => &Vec::new(),
        };
        let shown = &make("cast") as &dyn std::fmt::Debug;
        let seen = later("seen", chosen.name().len() + tail.name().len() + arm.len()).await;
        seen + format!("{shown:?}").len()
    }

    /// A method call's value is what is extended, not its receiver's: the guard drops at the
    /// end of the statement, the length lives on.
    pub async fn method_value(name: String) -> usize {
        let len = &read(&name, &[1, 2, 3]).await.items.len();
        let _after = Loud::new("after");
        later("len", *len).await
    }
}

#[test]
fn a_field_of_an_awaited_guard_lives_to_the_end_of_the_block() {
    let outcome = same_at_every_suspension(
        || async { classic::Store { items: vec![1, 2] }.verify().await },
        || async { runtime::Store { items: vec![1, 2] }.verify().await },
    );
    assert_eq!(outcome, Outcome::Value(2));
    let outcome = same_at_every_suspension(
        || async { classic::Store { items: vec![1, 2] }.held().await },
        || async { runtime::Store { items: vec![1, 2] }.held().await },
    );
    assert_eq!(outcome, Outcome::Value(7));
}

#[test]
fn nested_fields_indexes_and_derefs_of_temporaries() {
    for name in ["ab", ""] {
        same_at_every_suspension(
            || classic::nested(name.to_owned(), vec![1, 2]),
            || runtime::nested(name.to_owned(), vec![1, 2]),
        );
    }
    let outcome = same_at_every_suspension(
        || classic::deref_and_index("abc".to_owned()),
        || runtime::deref_and_index("abc".to_owned()),
    );
    assert_eq!(outcome, Outcome::Value(10));
    let outcome =
        same_at_every_suspension(|| classic::method_value("m".to_owned()), || runtime::method_value("m".to_owned()));
    assert_eq!(outcome, Outcome::Value(3));
}

#[test]
fn an_extended_temporary_drops_at_the_end_of_its_block_though_unused_after_an_await() {
    let (outcome, log) = same(
        || classic::unused_after_the_await("two".to_owned()),
        || runtime::unused_after_the_await("two".to_owned()),
    );
    assert_eq!(outcome, Outcome::Value(4));
    let at = |event: &str| log.iter().position(|e| e == event).unwrap_or_else(|| panic!("no {}: {:?}", event, log));
    assert!(at("resume after") < at("drop local") && at("drop local") < at("drop two"), "{:?}", log);
    same_at_every_suspension(
        || classic::unused_after_the_await("two".to_owned()),
        || runtime::unused_after_the_await("two".to_owned()),
    );
}

#[test]
fn extended_where_a_value_is_put_together() {
    same_at_every_suspension(|| classic::in_aggregates("ab".to_owned()), || runtime::in_aggregates("ab".to_owned()));
    let (outcome, log) = same(|| classic::in_aggregates("ab".to_owned()), || runtime::in_aggregates("ab".to_owned()));
    assert_eq!(outcome, Outcome::Value(31));
    let at = |event: &str| log.iter().position(|e| e == event).unwrap_or_else(|| panic!("no {}: {:?}", event, log));
    assert!(at("eval before") < at("new ab") && at("new in struct") < at("eval n"), "{:?}", log);
    assert!(at("resume sum") < at("drop local") && at("drop local") < at("drop some"), "{:?}", log);
    for c in [true, false] {
        let outcome = same_at_every_suspension(
            || classic::in_branches("abc".to_owned(), c),
            || runtime::in_branches("abc".to_owned(), c),
        );
        assert!(matches!(outcome, Outcome::Value(_)), "{:?}", outcome);
    }
}

#[test]
fn extended_in_a_loop_and_in_an_arm() {
    let names = || vec!["a".to_owned(), "b".to_owned()];
    let outcome = same_at_every_suspension(|| classic::in_a_loop(names()), || runtime::in_a_loop(names()));
    assert_eq!(outcome, Outcome::Value(4));
    for which in [Some("x"), None] {
        same_at_every_suspension(
            || async move { classic::in_an_arm(&classic::Store { items: vec![5] }, which).await },
            || async move { runtime::in_an_arm(&runtime::Store { items: vec![5] }, which).await },
        );
    }
}

//! A temporary borrowed by an awaited call's argument whose type the call decides: a database
//! client's `client.query(&statement, &[&oid]).await`, whose parameter is `&[&(dyn ToSql +
//! Sync)]`. The array lives past the await, so the lowering keeps it in a local of its own; made
//! apart from the call, it was an array of `&u32` that no coercion turns into one of `&dyn ToSql`
//! (E0308). It is now made where the call borrows it, with the type the call expects, as the plain
//! code makes it. The same for a closure borrowed as `&dyn Fn`, a `&mut` slice, nested
//! temporaries, several arrays in one call, and in a method, a loop and a `match` arm. Each
//! shape runs under both lowerings, to the end and dropped at every suspension.

use lowering_tests::*;

pub trait Param {
    fn text(&self) -> String;
}

impl Param for u32 {
    fn text(&self) -> String {
        self.to_string()
    }
}

impl Param for Loud {
    fn text(&self) -> String {
        self.name().to_owned()
    }
}

pub async fn query(statement: &str, params: &[&(dyn Param + Sync)]) -> String {
    let texts: Vec<String> = params.iter().map(|param| param.text()).collect();
    later("query", format!("{statement}({})", texts.join(","))).await
}

pub async fn query_mut(params: &mut [&(dyn Param + Sync)]) -> usize {
    params.reverse();
    later("query_mut", params.iter().map(|param| param.text().len()).sum()).await
}

pub async fn apply(f: &dyn Fn(u32) -> u32, value: u32) -> u32 {
    later("apply", f(value)).await
}

pub async fn count(values: &[Loud], extra: u32) -> usize {
    later("count", values.len() + extra as usize).await
}

differential! {
    pub struct Client {
        pub statement: String,
        pub id: u32,
    }

    // The client's shape: one parameter, then two, then none.
    pub async fn get_type(oid: u32) -> String {
        query("get_type", &[&oid]).await
    }

    pub async fn two_and_none(oid: u32, other: u32) -> String {
        let two = query("two", &[&oid, &other]).await;
        let none = query("none", &[]).await;
        two + &none
    }

    // Two arrays in one call, and an element that is a temporary itself (a `Loud`, dropped
    // with the statement).
    pub async fn two_arrays(oid: u32) -> String {
        let first = query("a", &[&oid]).await;
        let second = query(&format!("b{}", first.len()), &[&Loud::new("t"), &oid]).await;
        first + &second
    }

    // A closure borrowed as a trait object gets its parameter's type from the call.
    pub async fn closure_as_dyn(base: u32) -> u32 {
        apply(&|x| x + base, 2).await + apply(&move |x| x * base, 3).await
    }

    // A `&mut` slice of trait objects.
    pub async fn mutable_slice(a: u32, b: Loud) -> usize {
        query_mut(&mut [&a, &b, &7u32]).await
    }

    // A later argument that awaits: the array is made first, then the await, as in Rust.
    pub async fn made_before_a_later_await(a: Loud) -> usize {
        count(&[Loud::new("x"), Loud::new(a.name())], later("extra", 1).await).await
    }

    // In a loop and a `match` arm, the round's value borrowed.
    pub async fn in_a_loop_and_a_match(rounds: u32, pick: Option<u32>) -> String {
        let mut out = String::new();
        for round in 0..rounds {
            out += &query("round", &[&round, &rounds]).await;
        }
        match pick {
            Some(n) => out + &query("some", &[&n]).await,
            None => out + &query("none", &[]).await,
        }
    }

    impl Client {
        // A method: the statement and a field of `self` borrowed, and a parameter.
        pub async fn fetch(&self, n: u32) -> String {
            query(&self.statement, &[&self.id, &n]).await
        }
    }
}

#[test]
fn an_array_of_trait_objects_is_made_where_the_call_borrows_it() {
    let outcome = same_at_every_suspension(|| classic::get_type(7), || runtime::get_type(7));
    assert_eq!(outcome, Outcome::Value("get_type(7)".to_owned()));
    let outcome = same_at_every_suspension(|| classic::two_and_none(7, 8), || runtime::two_and_none(7, 8));
    assert_eq!(outcome, Outcome::Value("two(7,8)none()".to_owned()));
    let outcome = same_at_every_suspension(|| classic::two_arrays(5), || runtime::two_arrays(5));
    assert_eq!(outcome, Outcome::Value("a(5)b4(t,5)".to_owned()));
}

#[test]
fn a_closure_and_a_mutable_slice_get_the_types_the_call_expects() {
    let outcome = same_at_every_suspension(|| classic::closure_as_dyn(4), || runtime::closure_as_dyn(4));
    assert_eq!(outcome, Outcome::Value(6 + 12));
    let outcome = same_at_every_suspension(
        || classic::mutable_slice(1, Loud::new("bb")),
        || runtime::mutable_slice(1, Loud::new("bb")),
    );
    assert_eq!(outcome, Outcome::Value(4));
}

#[test]
fn an_array_before_a_later_await_is_made_first() {
    let outcome = same_at_every_suspension(
        || classic::made_before_a_later_await(Loud::new("a")),
        || runtime::made_before_a_later_await(Loud::new("a")),
    );
    assert_eq!(outcome, Outcome::Value(3));
}

#[test]
fn in_a_loop_a_match_and_a_method() {
    for rounds in 0..3 {
        for pick in [None, Some(9)] {
            same_at_every_suspension(
                || classic::in_a_loop_and_a_match(rounds, pick),
                || runtime::in_a_loop_and_a_match(rounds, pick),
            );
        }
    }
    let outcome = same_at_every_suspension(
        || {
            let client = classic::Client { statement: "s".to_owned(), id: 3 };
            async move { client.fetch(4).await }
        },
        || {
            let client = runtime::Client { statement: "s".to_owned(), id: 3 };
            async move { client.fetch(4).await }
        },
    );
    assert_eq!(outcome, Outcome::Value("s(3,4)".to_owned()));
}

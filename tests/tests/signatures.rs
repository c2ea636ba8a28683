//! Methods, generics, lifetimes, `impl Trait` arguments and trait impls, under both lowerings.

use std::fmt::Display;

use lowering_tests::*;

pub trait Shape {
    fn area(&self) -> impl std::future::Future<Output = u32>;
}

differential! {
    pub struct Account {
        pub balance: u32,
        pub name: String,
    }

    impl Account {
        pub async fn balance_later(&self) -> u32 {
            let b = later("read", self.balance).await;
            b + self.name.len() as u32
        }

        pub async fn deposit(&mut self, amount: u32) -> u32 {
            let amount = now("amount", amount).await;
            self.balance += amount;
            self.balance
        }

        pub async fn close(self) -> String {
            let suffix = later("close", "-closed").await;
            format!("{}{}", self.name, suffix)
        }

        pub async fn named(name: &str) -> Self {
            let name = later("name", name.to_owned()).await;
            Self { balance: 0, name }
        }
    }

    pub async fn generic_max<T: PartialOrd + Copy>(a: T, b: T) -> T
    where
        T: std::fmt::Debug,
    {
        let a = later("a", a).await;
        if a > b { a } else { b }
    }

    pub async fn with_lifetime<'a>(text: &'a str, other: &str) -> &'a str {
        let n = later("n", other.len()).await;
        &text[..n]
    }

    pub async fn impl_arg(value: impl Display, items: impl IntoIterator<Item = u32>) -> String {
        let mut out = later("display", value.to_string()).await;
        for item in items {
            out.push_str(&now("item", item).await.to_string());
        }
        out
    }

    // The runtime variant is the plain `async fn` in a trait, which rustc lints in a public
    // trait (callers cannot require `Send`); the test only calls it.
    #[allow(async_fn_in_trait)]
    pub trait Greeter {
        fn name(&self) -> String;

        /// A default body, lowered with the trait.
        async fn greet(&self, punctuation: char) -> String {
            let name = later("name", self.name()).await;
            format!("hello {name}{punctuation}")
        }
    }

    pub struct Person;

    impl Greeter for Person {
        fn name(&self) -> String {
            "ada".to_owned()
        }
    }

    pub struct Square(pub u32);

    impl Shape for Square {
        async fn area(&self) -> u32 {
            later("side", self.0).await * self.0
        }
    }
}

#[test]
fn methods() {
    let (a, b) =
        (classic::Account { balance: 5, name: "acc".into() }, runtime::Account { balance: 5, name: "acc".into() });
    same_at_every_suspension(|| a.balance_later(), || b.balance_later());
    let (mut a, mut b) = (a, b);
    let outcome = same(|| a.deposit(3), || b.deposit(3));
    assert_eq!(outcome.0, Outcome::Value(8));
    same(|| a.close(), || b.close());
    let (classic_named, _) = run(Stop::AtEnd, || classic::Account::named("x"));
    let (runtime_named, _) = run(Stop::AtEnd, || runtime::Account::named("x"));
    let (Outcome::Value(c), Outcome::Value(r)) = (classic_named, runtime_named) else { panic!() };
    assert_eq!((c.name, c.balance), (r.name, r.balance));
}

#[test]
fn generics_lifetimes_impl_trait() {
    same_at_every_suspension(|| classic::generic_max(3, 9), || runtime::generic_max(3, 9));
    same_at_every_suspension(|| classic::generic_max("b", "a"), || runtime::generic_max("b", "a"));
    let text = String::from("hello world");
    let outcome =
        same_at_every_suspension(|| classic::with_lifetime(&text, "abc"), || runtime::with_lifetime(&text, "abc"));
    assert_eq!(outcome, Outcome::Value("hel"));
    same_at_every_suspension(|| classic::impl_arg(7, vec![1, 2]), || runtime::impl_arg(7, vec![1, 2]));
}

#[test]
fn trait_default_bodies() {
    use classic::Greeter as _;
    use runtime::Greeter as _;
    let outcome = same_at_every_suspension(|| classic::Person.greet('!'), || runtime::Person.greet('!'));
    assert_eq!(outcome, Outcome::Value("hello ada!".to_owned()));
}

#[test]
fn trait_impls() {
    // Through a plain async wrapper: the classic call starts in the wrapper's first poll, and
    // its yield returns to the wrapper (the caller), not to the executor; so the two variants
    // are compared at the end only.
    let (outcome, _) = same(|| classic::Square(3).area_owned(), || runtime::Square(3).area_owned());
    assert_eq!(outcome, Outcome::Value(9));
}

trait AreaOwned {
    fn area_owned(self) -> impl std::future::Future<Output = u32>;
}

impl<T: Shape> AreaOwned for T {
    async fn area_owned(self) -> u32 {
        self.area().await
    }
}

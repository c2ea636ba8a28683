//! Names that a later edition reserves (`gen`, a keyword from edition 2024) are ordinary
//! identifiers in an edition 2021 crate, and the classic lowering's code must read them as the
//! user's edition does: a real crate (moka 0.12) has a local named `gen` in an `async fn`.

use lowering_tests::fuzz::*;
use lowering_tests::*;

differential! {
    // A parameter and a local named `gen`, each read after an await.
    pub async fn parameter_and_local(gen: u32) -> u32 {
        let doubled = later("a", gen * 2).await;
        let r#try = doubled + gen;
        r#try
    }

    // A local named `gen` borrowed across an await: it lives in place in the state machine.
    pub async fn borrowed_across_an_await(n: u32) -> u32 {
        let gen = Loud::new("gen");
        let held = &gen;
        later("a", n).await;
        weigh(held) + n
    }

    // Moved after an await, and a field shorthand of that name.
    pub async fn moved_and_a_field_shorthand(n: u32) -> (u32, u32) {
        let gen = later("a", n).await;
        let counter = Counter { gen };
        later("b", ()).await;
        (counter.gen, gen)
    }

    // Raw identifiers of every edition's keywords, kept in place and lent to a macro.
    pub async fn raw_identifiers(n: u32) -> u32 {
        let r#type = Loud::new("type");
        let r#gen = &r#type;
        later("a", n).await;
        let r#match = vec![weigh(r#gen)];
        later("b", ()).await;
        assert_eq!(r#match.len(), 1);
        weigh(&r#type) + r#match[0]
    }
}

#[derive(Debug, PartialEq)]
pub struct Counter {
    pub gen: u32,
}

#[test]
fn a_parameter_and_a_local_named_gen() {
    same_at_every_suspension(|| classic::parameter_and_local(4), || runtime::parameter_and_local(4));
}

#[test]
fn a_local_named_gen_kept_in_place() {
    same_at_every_suspension(|| classic::borrowed_across_an_await(3), || runtime::borrowed_across_an_await(3));
}

#[test]
fn raw_identifiers_of_keywords() {
    same_at_every_suspension(|| classic::raw_identifiers(1), || runtime::raw_identifiers(1));
}

#[test]
fn a_local_named_gen_moved_into_a_field() {
    same_at_every_suspension(|| classic::moved_and_a_field_shorthand(5), || runtime::moved_and_a_field_shorthand(5));
}

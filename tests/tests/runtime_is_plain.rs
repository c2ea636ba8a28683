//! `#[lowering(runtime)]` is the plain `async fn`, exactly: the same drop order (a tail
//! expression's temporaries drop by the rules of the crate's edition, which this file is
//! compiled under in 2024, 2021 and 2018) and the same future size.

use lowering::lowering;
use lowering_tests::*;

pub async fn helper(loud: &Loud) -> usize {
    later("helper", loud.name().len()).await
}

/// The same items twice: annotated, and as written.
macro_rules! annotated_and_plain {
    ($(async fn $name:ident $plain:ident ($($param:ident: $ty:ty),*) -> $out:ty $body:block)*) => {
        $(
            #[lowering(runtime)]
            pub async fn $name($($param: $ty),*) -> $out $body
            pub async fn $plain($($param: $ty),*) -> $out $body
        )*
    };
}

annotated_and_plain! {
    async fn tail_temporary tail_temporary_plain() -> usize {
        let z = Loud::new("z");
        log(format!("z {}", z.name()));
        helper(&Loud::new("temp")).await
    }

    async fn locals_and_params locals_and_params_plain(a: Loud, n: u32) -> u32 {
        let b = Loud::new("b");
        let total = later("n", n).await + a.name().len() as u32;
        drop(b);
        total + later("again", 1).await
    }
}

#[test]
fn drop_order_is_the_plain_functions() {
    let annotated = same_at_every_suspension(tail_temporary, tail_temporary_plain);
    assert_eq!(annotated, Outcome::Value(4));
    same_at_every_suspension(|| locals_and_params(Loud::new("a"), 3), || locals_and_params_plain(Loud::new("a"), 3));
}

#[test]
fn future_size_is_the_plain_functions() {
    assert_eq!(std::mem::size_of_val(&tail_temporary()), std::mem::size_of_val(&tail_temporary_plain()));
    let (a, b) = (Loud::new("a"), Loud::new("b"));
    assert_eq!(std::mem::size_of_val(&locals_and_params(a, 1)), std::mem::size_of_val(&locals_and_params_plain(b, 1)));
}

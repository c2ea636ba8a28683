//! The one place where the caller's edition changes what the classic lowering should do and
//! it cannot tell (a proc macro does not see its caller's edition): a non-`move` async block
//! that uses a field of a local by value captures the whole local in edition 2018, and only the
//! field since 2021. The classic lowering takes the field alone, as 2021 does; the plain 2018
//! function moves all of `pair` into the block. Both give the same result; the drops of a block
//! dropped before it runs come in another order. The README says so ("Closures and async
//! blocks capture as edition 2021 does").

use lowering_tests::fuzz::*;
use lowering_tests::*;

lowering::both! {
    pub async fn block_dropped_before_it_runs() -> u32 {
        let pair = Pair { a: Loud::new("a"), b: Loud::new("b") };
        let pending = async { consume(pair.b) };
        later("made", 0u32).await;
        drop(pending);
        later("dropped", 1u32).await
    }
}

#[test]
fn the_classic_lowering_captures_as_edition_2021_does() {
    let (classic, classic_log) = run(Stop::AtEnd, classic::block_dropped_before_it_runs);
    let (plain, plain_log) = run(Stop::AtEnd, runtime::block_dropped_before_it_runs);
    assert_eq!(classic, plain);
    assert_eq!(
        plain_log,
        ["new a", "new b", "suspend made", "resume made", "drop a", "drop b", "suspend dropped", "resume dropped"]
    );
    assert_eq!(
        classic_log,
        ["new a", "new b", "suspend made", "resume made", "drop b", "suspend dropped", "resume dropped", "drop a"]
    );
}

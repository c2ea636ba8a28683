//! The one place where the caller's edition changes what the classic lowering should do and
//! it cannot tell (a proc macro does not see its caller's edition): a closure or async block
//! that names a local only through its fields (a non-`move` one using a field by value, or a
//! `move` one naming a field at all) captures the whole local in edition 2018, and only the
//! fields since 2021. The classic lowering takes the fields alone, as 2021 does; the plain 2018
//! function moves all of the local into the block or closure. Both give the same result; the drops of a block
//! dropped before it runs come in another order. The README says so ("Closures and async
//! blocks capture as edition 2021 does").

use lowering_tests::fuzz::*;
use lowering_tests::*;

lowering::both! {
    pub async fn move_closure_dropped_early() -> u32 {
        let v = (7u32, Loud::new("z"));
        let f = move || v.0;
        let n = f();
        drop(f);
        later("after", n).await
    }

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

#[test]
fn a_move_closure_takes_fields_as_edition_2021_does() {
    let (classic, classic_log) = run(Stop::AtEnd, classic::move_closure_dropped_early);
    let (plain, plain_log) = run(Stop::AtEnd, runtime::move_closure_dropped_early);
    assert_eq!(classic, plain);
    // 2018: `v` moved whole into `f`, dropped with it; 2021 (classic): `v.0` copied, `v` stays.
    assert_eq!(plain_log, ["new z", "drop z", "suspend after", "resume after"]);
    assert_eq!(classic_log, ["new z", "suspend after", "resume after", "drop z"]);
}

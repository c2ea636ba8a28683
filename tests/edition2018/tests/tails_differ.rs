//! The other edition difference the classic lowering keeps (README, "Where the lowerings
//! differ"): a block's tail that awaits is taken apart, and the temporaries it made before the
//! await drop before the block's locals, as edition 2024 drops them; the plain 2018 function
//! drops them after, at the end of the statement around the block. Same result; this test
//! shows the two orders.

use lowering_tests::*;

lowering::both! {
    pub async fn awaiting_tail() -> usize {
        let n = {
            let _local = Loud::new("local");
            Loud::new("temp").name().len() + later("tail", 1usize).await
        };
        n + later("after", 0usize).await
    }
}

#[test]
fn an_awaiting_tail_drops_its_temporaries_as_edition_2024_does() {
    let (classic, classic_log) = run(Stop::AtEnd, classic::awaiting_tail);
    let (plain, plain_log) = run(Stop::AtEnd, runtime::awaiting_tail);
    assert_eq!(classic, plain);
    let before = ["new local", "new temp", "suspend tail", "resume tail"];
    let after = ["suspend after", "resume after"];
    let order = |drops: [&str; 2]| -> Vec<String> {
        before.iter().chain(&drops).chain(&after).map(|event| event.to_string()).collect()
    };
    assert_eq!(plain_log, order(["drop local", "drop temp"]));
    assert_eq!(classic_log, order(["drop temp", "drop local"]));
}

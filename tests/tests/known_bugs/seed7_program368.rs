//! Seed 7, program 368 (the classic expansion does not compile).
//! E0597: an async block awaited as an operand (`mix(async { .. }.await, ..)`) that borrows
//! parameters (`p3` read, `weigh(&p2)`): they are not kept in place while the block's future,
//! stored in the state machine, borrows them. Shrinking stopped at its time budget (55 nodes).

#![allow(unused)]

use lowering_tests::fuzz::*;
use lowering_tests::*;

differential! {
    pub async fn seed7_program368(p1: Result<u32, String>, p2: Loud, p3: u32) -> Result<u32, String> {

        if ((now("a4", 3u32).await == later("a5", 0u32).await) || later("a6", false).await) {
            return Err::<u32, String>(String::from("x7"));
        };
        'l8: for i9 in now("a13", [Loud::new("l10"), Loud::new("l11"), Loud::new("l12")]).await {
            let v24 = mix((async {
                let v17 = ev("e14", now("a15", 4u32).await < now("a16", 4u32).await);
                let mut i9 = consume(now("a18", Loud::new("l19")).await);
                [p3, later("a20", 7u32).await, weigh(&p2)][(ev("e21", 3u32) % 3) as usize] + mix(weigh(&p2), weigh(&Loud::new("t22")))
            }.await), later("a23", p3).await);
        };
        Ok::<u32, String>(now("a38", 7u32).await)
    }
}

fn main() {
    same_at_every_suspension(|| classic::seed7_program368(Err::<u32, String>(String::from("p1")), Loud::new("p2"), 6u32), || runtime::seed7_program368(Err::<u32, String>(String::from("p1")), Loud::new("p2"), 6u32));
}

//! Seed 7, program 20 (the classic expansion does not compile).
//! E0597: an async block awaited as an operand (`Ok(async { .. }.await)`) that captures a local
//! (`v60`, read by a loop's `break` value) and whose own `let` hides another captured-scope
//! local (`v47`): the captured local is not kept in place while the block's future, stored in
//! the state machine, borrows it.

#![allow(unused)]

use lowering_tests::fuzz::*;
use lowering_tests::*;

differential! {
    pub async fn seed7_program20(mut p2: u32, mut p3: u32) -> Result<u32, String> {

        let v47 = p2;
        let mut v60 = 0u32;
        Ok::<u32, String>((async {
            { let mut k80 = 0u32; 'l79: loop { if k80 == 1 { break 'l79 v60; } k80 += 1;
                let v47 = 0u32;
            } }
        }.await))
    }
}

fn main() {
    same_at_every_suspension(|| classic::seed7_program20(2u32, 5u32), || runtime::seed7_program20(2u32, 5u32));
}

//! Seed 7, program 221 (the classic expansion does not compile).
//! E0597: a reference that hides the local it borrows (`let p1 = &p1;`), in a block, while a
//! parameter of the same name is read after the block: the reference is stored in the state
//! machine but its referent is not kept in place.

#![allow(unused)]

use lowering_tests::fuzz::*;
use lowering_tests::*;

differential! {
    pub async fn seed7_program221(p1: u32) -> Result<u32, String> {

        match ({
            let mut p1 = now("a4", 0u32).await;
            let p1 = &p1;
            5u32
        }) {
            v5 => 0u32,
        };
        check("c8", p1)
    }
}

fn main() {
    same_at_every_suspension(|| classic::seed7_program221(1u32), || runtime::seed7_program221(1u32));
}

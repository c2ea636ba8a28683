//! Seed 7, program 419 (the classic expansion does not compile).
//! E0716: a reference that hides another local's name (`let v4 = &p1;` where `v4` is a `Loud`),
//! after an await in the same block: the reference is stored in the state machine, but the
//! parameter it borrows is not kept in place.

#![allow(unused)]

use lowering_tests::fuzz::*;
use lowering_tests::*;

differential! {
    pub async fn seed7_program419(mut p1: u32) -> Result<u32, String> {

        let v4 = Loud::new("z");
        {
            {
                now("a24", 0u32).await;
            };
            let v4 = &p1;
            Ok::<u32, String>(0u32)
        }
    }
}

fn main() {
    same_at_every_suspension(|| classic::seed7_program419(1u32), || runtime::seed7_program419(1u32));
}

//! Seed 7, program 28 (the classic expansion does not compile).
//! E0425: a local assigned in a loop whose `break` value (a tuple projection) reads it, then
//! read in a later loop, is not found in the classic expansion. A shape the generator had
//! before the borrowing ones.

#![allow(unused)]

use lowering_tests::fuzz::*;
use lowering_tests::*;

differential! {
    pub async fn seed7_program28() -> Result<u32, String> {

        let mut v25 = 0u32;
        let _ = { let mut k27 = 0u32; 'l26: loop { if k27 == 0 { break 'l26 (0u32, now("a29", 2u32).await, v25,).0; } k27 += 1;
            v25 = 3u32;
        } };
        Ok::<u32, String>({ let mut k38 = 0u32; 'l37: loop { if k38 == 0 { break 'l37 weigh(&Loud::new("t39")); } k38 += 1;
            let v40 = v25;
        } })
    }
}

fn main() {
    same_at_every_suspension(|| classic::seed7_program28(), || runtime::seed7_program28());
}

//! Seed 7, program 176 (the classic expansion does not compile).
//! E0507: an async block that moves a local it captures (here a parameter) does not compile:
//! the classic lowering reaches the captured local through a raw pointer, and moves out of it.

#![allow(unused)]

use lowering_tests::fuzz::*;
use lowering_tests::*;

differential! {
    pub async fn seed7_program176(p2: Result<u32, String>) -> Result<u32, String> {

        {
            (async {
                let v42 = p2;
                0u32
            }.await);
        };
        Ok::<u32, String>(0u32)
    }
}

fn main() {
    same_at_every_suspension(|| classic::seed7_program176(Ok::<u32, String>(4u32)), || runtime::seed7_program176(Ok::<u32, String>(4u32)));
}

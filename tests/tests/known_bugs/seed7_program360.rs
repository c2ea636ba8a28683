//! Seed 7, program 360 (the classic expansion does not compile).
//! E0716: in a method on `&mut self`, an async block that reads a field of `self`
//! (`self.buf.total()`) and whose own `let` hides a parameter (`p1`): the block's future,
//! stored in the state machine, borrows the `self` that move_next reborrows for one state only.

#![allow(unused)]

use lowering_tests::fuzz::*;
use lowering_tests::*;

differential! {
    pub struct Seed7Program360Machine { pub buf: Buf, pub label: Loud, pub count: u32 }

    impl Seed7Program360Machine {
        pub async fn seed7_program360(&mut self, p1: u32) -> Result<u32, String> {

            (async {
                {
                    let mut p1 = self.buf.total();
                    0u32
                }
            }.await);
            Ok::<u32, String>(0u32)
        }
    }
}

fn main() {
    same_at_every_suspension(|| call_method(classic::Seed7Program360Machine { buf: Buf::new("self.buf"), label: Loud::new("self.label"), count: 2 }, |receiver| receiver.seed7_program360(4u32)), || call_method(runtime::Seed7Program360Machine { buf: Buf::new("self.buf"), label: Loud::new("self.label"), count: 2 }, |receiver| receiver.seed7_program360(4u32)));
}

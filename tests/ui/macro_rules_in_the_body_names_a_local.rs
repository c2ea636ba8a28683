// A `macro_rules!` declared in the body is declared once for the state machine; a local its
// rules name is read where the macro is declared, where the state machine has no such local.
// Hand the macro the local, or declare it outside the function.
use std::cell::Cell;

use lowering::lowering;

#[lowering(classic)]
async fn disabled(flag: &Cell<bool>, first: Result<u32, String>) -> u32 {
    macro_rules! or_disable {
        ($e:expr) => {
            match $e {
                Ok(v) => v,
                Err(_) => {
                    flag.set(false);
                    0
                }
            }
        };
    }
    let value = lowering::leaf::ready(1u32).await;
    value + or_disable!(first)
}

fn main() {}

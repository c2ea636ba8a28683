// A `let` with a type whose initializer awaits inside an expression: the state machine
// computes the initializer into a slot of its own, checked against the `let`'s type where it
// is computed, so its mismatch is the twin's, at the awaited value, and `cargo` prints it once.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

// (as a plain async fn)
pub async fn f() -> u32 {
    let pair: (u32, u32) = (ready("text").await, 1);
    pair.0
}

fn main() {}

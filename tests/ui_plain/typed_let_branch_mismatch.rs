// A `let`'s type that one branch of its `if` does not have, the other awaiting: the plain
// function's error, word for word.
#[allow(unused_imports)]
use lowering::lowering;

// (as a plain async fn)
pub async fn f(c: bool) -> u32 {
    let x: u32 = if c { lowering::leaf::ready(1).await } else { 5u8 + 1 };
    x
}

fn main() {}

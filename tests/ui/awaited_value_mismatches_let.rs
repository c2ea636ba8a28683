// A `let`'s type that the awaited value does not have (issue 41's first case): the plain
// function's one error, and nothing about the local's later uses.
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
pub async fn f(a: u32) -> u32 {
    let x: String = lowering::leaf::ready(a).await;
    a
}

fn main() {}

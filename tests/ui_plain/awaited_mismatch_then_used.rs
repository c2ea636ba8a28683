// The same mistake with the local used after it (issue 41's second case): rustc takes the
// local's type for an error, and its use in `x + b` reports nothing more.
#[allow(unused_imports)]
use lowering::lowering;

// (as a plain async fn)
pub async fn f(a: u32, b: u32) -> u32 {
    let x: String = lowering::leaf::ready(a).await;
    x + b
}

fn main() {}

// A method its type does not have, on an awaited value (E0599).
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
pub async fn f(a: u32) -> u32 {
    let x = lowering::leaf::ready(a).await;
    x.frobnicate()
}

fn main() {}

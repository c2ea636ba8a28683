// A `let`'s type that its value does not have, before an await.
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
pub async fn f(a: u32) -> u32 {
    let x: String = a;
    lowering::leaf::ready(()).await;
    a
}

fn main() {}

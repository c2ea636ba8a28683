// A call with too few arguments after an await (E0061).
#[allow(unused_imports)]
use lowering::lowering;
fn two(a: u32, b: u32) -> u32 {
    a + b
}

#[lowering(classic)]
pub async fn f(a: u32) -> u32 {
    let x = lowering::leaf::ready(a).await;
    two(x)
}

fn main() {}

// A struct literal missing a field, after an await: E0063, once.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

pub struct P { pub a: u32, pub b: u32 }

#[lowering(classic)]
pub async fn f(a: u32) -> u32 {
    let n = ready(a).await;
    let p = P { a: n };
    p.a
}

fn main() {}

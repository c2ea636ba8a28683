// An immutable local assigned after an await (E0384).
#[allow(unused_imports)]
use lowering::lowering;

// (as a plain async fn)
pub async fn f(a: u32) -> u32 {
    let x = 1;
    lowering::leaf::ready(()).await;
    x = a;
    x
}

fn main() {}

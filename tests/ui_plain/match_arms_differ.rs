// Match arms of different types after an await.
#[allow(unused_imports)]
use lowering::lowering;

// (as a plain async fn)
pub async fn f(a: u32) -> u32 {
    let x = lowering::leaf::ready(a).await;
    match x {
        0 => 1,
        _ => "many",
    }
}

fn main() {}

// Match arms of different types after an await.
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
pub async fn f(a: u32) -> u32 {
    let x = lowering::leaf::ready(a).await;
    match x {
        0 => 1,
        _ => "many",
    }
}

fn main() {}

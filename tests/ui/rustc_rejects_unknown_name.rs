// A name that does not exist: rustc's own error, once, as for the plain `async fn`.
use lowering::leaf::ready;
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
async fn unknown(a: u32) -> u32 {
    let x = ready(a).await;
    x + missing_value
}

fn main() {}

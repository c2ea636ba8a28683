// An awaited number dereferenced: E0614, once.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

// (as a plain async fn)
pub async fn f(a: u32) -> u32 {
    let n = ready(a).await;
    *n
}

fn main() {}

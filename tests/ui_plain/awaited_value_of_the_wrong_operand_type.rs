// An awaited value added to a number of another type: E0277, once, as for the plain function.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

// (as a plain async fn)
pub async fn f(a: u32) -> u32 {
    let s = ready(String::new()).await;
    a + s
}

fn main() {}

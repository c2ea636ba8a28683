// A local assigned on one branch, read after an await: the plain function's E0381, and the
// classic lowering's E0425 instead (`errors_match`, DIFFERING).
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

// (as a plain async fn)
pub async fn f(c: bool) -> u32 {
    let x: u32;
    if c { x = 1; }
    ready(()).await;
    x + 1
}

fn main() {}

// `const async fn` is not Rust: the attribute leaves it as written, so rustc says so once,
// as for the plain function, and says nothing about the lowering.
use lowering::leaf::ready;
#[allow(unused_imports)]
use lowering::lowering;

// (as a plain async fn)
const async fn both(a: u32) -> u32 {
    ready(a).await
}

fn main() {}

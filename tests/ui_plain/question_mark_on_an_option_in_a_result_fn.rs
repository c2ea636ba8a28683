// `?` on an `Option` in a function that returns `Result`: E0277 twice, worded for an `async`
// block and for the state machine's closure: `errors_match`, DIFFERING.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

// (as a plain async fn)
pub async fn f(a: Option<u32>) -> Result<u32, String> {
    ready(()).await;
    let v = a?;
    Ok(v)
}

fn main() {}

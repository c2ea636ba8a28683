// A method that does not exist on the awaited value's type: rustc's own error, once, as for
// the plain `async fn`.
use lowering::leaf::ready;
#[allow(unused_imports)]
use lowering::lowering;

// (as a plain async fn)
async fn wrong_method(a: u32) -> u32 {
    let x = ready(a).await;
    x.no_such_method()
}

fn main() {}

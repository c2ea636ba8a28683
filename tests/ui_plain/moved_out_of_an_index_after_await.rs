// A `String` moved out of a `Vec` by index after an await: E0507 twice (the twin's, without the
// `.clone()` suggestion, and the state machine's copy, with it): `errors_match`, DIFFERING.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

// (as a plain async fn)
pub async fn f(v: &Vec<String>) -> String {
    ready(()).await;
    let s = v[0];
    s
}

fn main() {}

// A `return` of the wrong type after an await: E0308 twice (the twin's with its note, and the
// state machine's copy): `errors_match`, DIFFERING.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

// (as a plain async fn)
pub async fn f(a: u32) -> u32 {
    let n = ready(a).await;
    if n > 3 {
        return "big";
    }
    n
}

fn main() {}

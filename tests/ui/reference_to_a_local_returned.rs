// A reference to a local returned after an await: E0515, the plain function's, then the state
// machine's at the attribute: `errors_match`, DIFFERING.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

#[lowering(classic)]
pub async fn f(a: &u32) -> &u32 {
    let x = *a + 1;
    ready(()).await;
    &x
}

fn main() {}

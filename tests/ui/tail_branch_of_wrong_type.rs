// A tail `if` one branch of which has the wrong type, the other awaiting: one error at the
// user's branch.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

#[lowering(classic)]
pub async fn f(c: bool) -> u64 {
    if c { ready(1u64).await } else { "none" }
}

fn main() {}

// An `if` without `else` whose value is used, after an await: E0317, once.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

#[lowering(classic)]
pub async fn f(c: bool) -> u32 {
    ready(()).await;
    let x = if c { 1u32 };
    x
}

fn main() {}

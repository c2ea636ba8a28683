// An unsafe function called outside `unsafe` after an await (issue 41's fourth case): E0133
// once, in the plain function's words.
#[allow(unused_imports)]
use lowering::lowering;
pub unsafe fn danger() -> u32 {
    1
}

// (as a plain async fn)
pub async fn f() -> u32 {
    lowering::leaf::ready(()).await;
    danger()
}

fn main() {}

// An awaited value of the wrong type as an arithmetic operand and a returned value.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

// (as a plain async fn)
pub async fn f(early: bool) -> u32 {
    if early {
        return ready("text").await;
    }
    ready("a").await + 1u32
}

fn main() {}

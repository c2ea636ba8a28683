use lowering::leaf::ready;
use lowering::lowering;

#[lowering(classic)]
async fn traced() -> u32 {
    dbg!(ready(1).await)
}

fn main() {}

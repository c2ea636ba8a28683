use lowering::leaf::ready;
use lowering::lowering;

#[lowering(classic)]
async fn classify(n: u32) -> &'static str {
    match n {
        x if ready(x > 10).await => "big",
        _ => "small",
    }
}

fn main() {}

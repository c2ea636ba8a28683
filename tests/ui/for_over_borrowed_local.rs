use lowering::leaf::yield_now;
use lowering::lowering;

#[lowering(classic)]
async fn sum() -> u32 {
    let items = vec![1, 2, 3];
    let mut total = 0;
    for item in &items {
        yield_now().await;
        total += item;
    }
    total
}

fn main() {}

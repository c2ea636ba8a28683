use lowering::leaf::yield_now;
use lowering::lowering;

#[lowering(classic)]
async fn length() -> usize {
    let v = vec![1, 2, 3];
    let r = &v;
    yield_now().await;
    r.len()
}

fn main() {}

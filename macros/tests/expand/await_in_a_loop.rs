#[lowering(classic)]
async fn sum(n: u32) -> u32 {
    let mut total = 0;
    for i in 0..n {
        total += ready(i).await;
    }
    total
}

#[lowering(classic)]
async fn chained(x: Option<u32>) -> u32 {
    if let Some(a) = x
        && let Some(b) = ready(Some(a + 1)).await
    {
        return b;
    }
    0
}

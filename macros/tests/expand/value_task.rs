#[lowering(classic, value_task)]
async fn leaf(n: u32) -> u32 {
    ready(n).await + 1
}

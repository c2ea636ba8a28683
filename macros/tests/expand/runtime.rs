#[lowering(runtime)]
async fn add(a: u32, b: u32) -> u32 {
    let x = ready(a).await;
    x + b
}

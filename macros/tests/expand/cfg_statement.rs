#[lowering(classic)]
async fn metered(n: u32) -> u32 {
    #[cfg(feature = "metrics")]
    let timer = start();
    let value = ready(n).await;
    #[cfg(feature = "metrics")]
    timer.stop();
    value
}

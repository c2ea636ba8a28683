#[lowering(classic)]
async fn first(a: Gate, b: Gate) -> u32 {
    tokio::select! {
        x = a.wait() => x,
        y = b.wait() => y + 1,
    }
}

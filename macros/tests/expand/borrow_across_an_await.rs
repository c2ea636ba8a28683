#[lowering(classic)]
async fn measure(name: String) -> usize {
    let held = &name;
    tick().await;
    held.len()
}

#[lowering(classic)]
async fn show(name: String) -> usize {
    let held = &name;
    tick().await;
    log!("{}", name.len());
    held.len() + name.len()
}

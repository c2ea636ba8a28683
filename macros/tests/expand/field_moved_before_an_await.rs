#[lowering(classic)]
async fn lengths(pair: (String, String)) -> usize {
    let first = pair.0;
    tick().await;
    first.len() + pair.1.len()
}

#[lowering(classic)]
async fn register(n: usize, out: &mut Out) -> usize {
    let v = vec![7u8; n];
    let r = &v;
    tick().await;
    let len = r.len();
    out.push(keep! { v.len() + 1000 });
    tick().await;
    len
}

#[lowering(classic)]
async fn frames(mut res: Option<String>, mut more: u32) -> usize {
    let mut n = len_later(&res).await;
    loop {
        match res {
            Some(s) => n += step(s.len()).await,
            _ => break,
        }
        if more == 0 {
            break;
        }
        more -= 1;
        res = Some("abc".to_string());
    }
    n
}

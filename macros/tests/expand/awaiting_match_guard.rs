#[lowering(classic)]
async fn classify(n: u32) -> &'static str {
    match n {
        0 => "zero",
        m if is_prime(m).await => "prime",
        _ => "other",
    }
}

use lowering::leaf::yield_now;
use lowering::lowering;

#[lowering(classic)]
async fn first_len() -> usize {
    let name = Some(String::from("x"));
    match &name {
        Some(text) => {
            yield_now().await;
            text.len()
        }
        None => 0,
    }
}

fn main() {}

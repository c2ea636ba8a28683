// A classic task borrows what its parameters borrow, as the plain future does: it cannot
// outlive the data, whether its state machine keeps locals in place (pinned) or not.
use lowering::leaf::yield_now;
use lowering::lowering;

#[lowering(classic)]
async fn sum(values: &[u32]) -> u32 {
    let mut total = 0;
    for value in values {
        yield_now().await;
        total += value;
    }
    total
}

#[lowering(classic)]
async fn first_word(text: &str) -> &str {
    let word = text.split(' ').next().unwrap_or("");
    yield_now().await;
    word
}

fn main() {
    let task;
    {
        let values = vec![1, 2, 3];
        task = sum(&values);
    }
    drop(task);
    let word;
    {
        let text = String::from("two words");
        word = first_word(&text);
    }
    drop(word);
}

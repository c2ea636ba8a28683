// A result of the wrong type: the twin reports rustc's error at the user's expression, as the
// plain `async fn` gets it; the classic stub adds one more, about the task's type, at the
// attribute (the state machine's result is inferred from the same expression).
use lowering::leaf::ready;
use lowering::lowering;

#[lowering(classic)]
async fn wrong_result(a: u32) -> String {
    let x = ready(a).await;
    x
}

fn main() {}

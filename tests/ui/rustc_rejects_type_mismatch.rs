// A type error in the body: rustc's own error at the user's line, as for the plain `async fn`
// (`ui_plain/`; `errors_are_the_plain_functions` compares them). rustc emits it from the twin
// and from the state machine's copy in the same words, and `cargo` prints it once.
use lowering::leaf::ready;
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
async fn mismatch(a: u32) -> String {
    let text: String = ready(a).await;
    text
}

fn main() {}

// A type error in the body: rustc's own error, once, at the user's line, exactly as for the
// plain `async fn` (`ui_plain/rustc_rejects_type_mismatch.rs`; `errors_are_the_plain_functions`
// compares the two), and nothing about the generated state machine.
use lowering::leaf::ready;
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
async fn mismatch(a: u32) -> String {
    let text: String = ready(a).await;
    text
}

fn main() {}

// A `let` with a type whose initializer awaits inside an expression: the state machine
// computes the initializer into a slot of its own before the `let` binds it, so its mismatch
// is not at the awaited value (`errors_match::a_typed_let_around_an_await_is_reported_twice`).
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

#[lowering(classic)]
pub async fn f() -> u32 {
    let pair: (u32, u32) = (ready("text").await, 1);
    pair.0
}

fn main() {}

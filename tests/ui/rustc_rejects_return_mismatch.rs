// A result of the wrong type: one error, at the user's expression, as the plain `async fn`
// gets it, without its label at the signature; nothing at the attribute, nothing about the
// task's type.
use lowering::leaf::ready;
use lowering::lowering;

#[lowering(classic)]
async fn wrong_result(a: u32) -> String {
    let x = ready(a).await;
    x
}

fn main() {}

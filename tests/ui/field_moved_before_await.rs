// A field moved out of a local (`pair.label`) that is still in scope at a later await: the
// classic lowering saves the local whole there, and a partly moved value cannot move. (A
// `Copy` field is only copied, and compiles.)
use lowering::lowering;

struct Labelled {
    label: String,
    count: u32,
}

async fn tick() {}

fn consume(_: String) {}

#[lowering(classic)]
async fn report(pair: Labelled) -> u32 {
    let count = pair.count;
    consume(pair.label);
    tick().await;
    count
}

fn main() {}

// A field moved out of a local inside a loop that awaits: the `break` after it leaves the
// loop through a state of its own, which saves the local whole (the plain `async fn`
// compiles). The message says where the field moved and what to write instead.
use lowering::lowering;

struct Labelled {
    label: String,
    count: u32,
}

async fn tick() {}

fn consume(_: String) {}

#[lowering(classic)]
async fn report(pair: Labelled, rounds: u32) -> u32 {
    let mut total = 0;
    for _ in 0..rounds {
        tick().await;
        total += pair.count;
        if total > 10 {
            consume(pair.label);
            break;
        }
    }
    total
}

fn main() {}

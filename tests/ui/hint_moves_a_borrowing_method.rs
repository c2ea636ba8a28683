// A wrong hint is rustc's error, never wrong code: `moves(tx)` says `send` takes `tx`, but it
// borrows it, and the borrow-check twin makes the move the hint asks for, so rustc says that
// the moved value is dropped while the awaited future still borrows it. Write `keeps(tx)`.
use lowering::lowering;

struct Tx;

impl Tx {
    async fn send(&self, value: u32) -> u32 {
        value
    }
}

async fn tick() {}

#[lowering(classic, moves(tx))]
async fn forward(value: u32) -> u32 {
    let tx = Tx;
    let held = &tx;
    tick().await;
    let _ = held;
    tx.send(value).await
}

fn main() {}

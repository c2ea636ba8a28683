use lowering::lowering;

struct Tx;

impl Tx {
    async fn send(&self, value: u32) -> u32 {
        value
    }
}

// `tx.send(v)` borrows `tx`, but at `tx`'s last use the lowering takes it to be consumed.
#[lowering(classic)]
async fn forward(value: u32) -> u32 {
    let tx = Tx;
    tx.send(value).await
}

fn main() {}

// A wrong hint on a field is rustc's error, never wrong code: `moves(self.tx)` says `peek`
// takes `self.tx`, but it borrows it; the borrow-check twin moves the field as the hint asks, so
// rustc says that the moved value is dropped while the awaited future still borrows it. Drop
// the hint (a method on a field is taken to borrow it).
use lowering::lowering;

struct Tx;

impl Tx {
    async fn peek(&self) -> u32 {
        1
    }
}

struct Sender {
    tx: Tx,
}

impl Sender {
    #[lowering(classic, moves(self.tx))]
    async fn peek(self) -> u32 {
        self.tx.peek().await
    }
}

fn main() {}

// `keeps` names a local: a method called on a field is taken to borrow it already, so a
// `keeps` of a field says nothing; the attribute says so at the hint. Write no hint.
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
    #[lowering(classic, keeps(self.tx))]
    async fn peek(self) -> u32 {
        self.tx.peek().await
    }
}

fn main() {}

// `moves(d.to_t())` where the method called on that call's value borrows it: the value is a
// temporary of the statement, dropped while the awaited call still borrows it (E0716 at the
// call), never wrong code.
use lowering::lowering;

struct D(u32);

impl D {
    fn to_t(&self) -> T {
        T(self.0)
    }
}

struct T(u32);

impl T {
    async fn peek(&self) -> u32 {
        self.0
    }
}

#[lowering(classic, moves(d.to_t()))]
async fn run(d: D) -> u32 {
    d.to_t().peek().await
}

fn main() {}

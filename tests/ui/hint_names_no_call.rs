// A hint that names a call names one the body calls a method on, as the body writes it; and
// `keeps` names no call (a method on a call's value is taken to borrow it without a hint).
use lowering::lowering;

struct P(u32);

impl P {
    fn start(n: u32) -> P {
        P(n)
    }

    async fn finish(self) -> u32 {
        self.0
    }
}

#[lowering(classic, moves(P::start(m)))]
async fn misnamed(n: u32) -> u32 {
    P::start(n).finish().await
}

#[lowering(classic, keeps(P::start(n)))]
async fn kept(n: u32) -> u32 {
    P::start(n).finish().await
}

fn main() {}

// `join!` is lowered as an awaited call of the lowering's own join of 1 to 6 futures.
use lowering::leaf::ready;
use lowering::lowering;

#[lowering(classic)]
async fn seven() -> u32 {
    let (a, b, c, d, e, f, g) = futures::join!(ready(1), ready(2), ready(3), ready(4), ready(5), ready(6), ready(7));
    a + b + c + d + e + f + g
}

fn main() {}

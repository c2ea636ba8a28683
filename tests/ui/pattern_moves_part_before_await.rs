// A pattern that moves part of a local out and leaves the rest (`let (label, _) = pair;`),
// with the local still in scope at a later await: as for `consume(pair.0)`, the classic
// lowering saves the local whole there, and a partly moved value cannot move.
use lowering::lowering;

async fn tick() {}

#[lowering(classic)]
async fn label_of(pair: (String, Vec<u8>)) -> usize {
    let (label, _) = pair;
    tick().await;
    label.len()
}

fn main() {}

// An awaiting guard sees its bindings without moving them; the classic lowering tests the
// pattern through a reference, so a guard that names a binding of a non-`Copy` value bound by
// value is rustc's E0507 at that binding, and its help says what to write: `ref word`, which
// gives the guard the same reference it sees in the plain `async fn`.
use lowering::leaf::ready;
use lowering::lowering;

#[lowering(classic)]
async fn pick(word: Option<String>) -> usize {
    match word {
        Some(word) if ready(word.len() > 3).await => word.len(),
        _ => 0,
    }
}

fn main() {}

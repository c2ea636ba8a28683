// tokio's `select!` and futures' `select!` have different branches: a precondition (`, if`)
// is tokio's, `default` is futures'. The classic lowering reads each in its own grammar.
use lowering::leaf::ready;
use lowering::lowering;

#[lowering(classic)]
async fn futures_with_a_precondition(go: bool) -> u32 {
    futures::select! {
        a = ready(1), if go => a,
        complete => 0,
    }
}

#[lowering(classic)]
async fn tokio_with_default() -> u32 {
    tokio::select! {
        a = ready(1) => a,
        default => 0,
    }
}

fn main() {}

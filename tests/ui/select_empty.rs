// A `select!` needs at least one branch.
use lowering::lowering;

#[lowering(classic)]
async fn nothing() -> u32 {
    tokio::select! {}
}

fn main() {}

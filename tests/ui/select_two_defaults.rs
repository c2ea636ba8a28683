// A `select!` has one `default` branch, and one `else` (or `complete`) branch, at most.
use lowering::leaf::ready;
use lowering::lowering;

#[lowering(classic)]
async fn two_defaults() -> u32 {
    futures::select! {
        a = ready(1) => a,
        default => 0,
        default => 1,
    }
}

#[lowering(classic)]
async fn two_elses() -> u32 {
    tokio::select! {
        a = ready(1) => a,
        else => 0,
        else => 1,
    }
}

fn main() {}

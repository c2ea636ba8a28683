// A lowered `select!` takes 1 to 8 branches. The message says how to select among more.
use lowering::leaf::ready;
use lowering::lowering;

#[lowering(classic)]
async fn first_of_nine() -> u32 {
    tokio::select! {
        biased;
        a = ready(1) => a,
        b = ready(2) => b,
        c = ready(3) => c,
        d = ready(4) => d,
        e = ready(5) => e,
        f = ready(6) => f,
        g = ready(7) => g,
        h = ready(8) => h,
        i = ready(9) => i,
    }
}

fn main() {}

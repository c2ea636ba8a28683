// `select!` polls its futures in a loop of its own and awaits: a classic state machine cannot
// split that into states. The message says what to write instead.
use futures::FutureExt;
use lowering::leaf::yield_now;
use lowering::lowering;

#[lowering(classic)]
async fn first_of_two() -> u32 {
    let mut a = Box::pin(async { 1 }.fuse());
    let mut b = Box::pin(async { yield_now().await; 2 }.fuse());
    futures::select! {
        x = a => x,
        y = b => y,
    }
}

fn main() {}

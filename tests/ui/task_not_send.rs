// A classic task is `Send` exactly when the plain `async fn`'s future would be: this one holds
// an `Rc` across an await, so it cannot be spawned on another thread. rustc says so as it says
// it of the plain future, pointing at the value and the await in the user's body.
use std::rc::Rc;

use lowering::leaf::yield_now;
use lowering::lowering;

#[lowering(classic)]
async fn holds_an_rc(n: u32) -> u32 {
    let shared = Rc::new(n);
    yield_now().await;
    *shared + 1
}

fn spawn<F: std::future::Future + Send + 'static>(future: F) -> F {
    future
}

fn main() {
    let _ = spawn(holds_an_rc(1));
}

use lowering::leaf::ready;
use lowering::lowering;

fn make() -> impl AsyncFn() -> usize {
    async || 1
}

// `f()` is awaited at `f`'s last use, and nothing tells the macro that `f` is an async
// closure (whose future borrows it): the call takes `f`, as it takes an `FnOnce`. Calling it
// through a reference, `(&f)().await`, keeps it (`macros_and_closures.rs`).
#[lowering(classic)]
async fn call_made() -> usize {
    let f = make();
    let n = ready(1).await;
    n + f().await
}

fn main() {}

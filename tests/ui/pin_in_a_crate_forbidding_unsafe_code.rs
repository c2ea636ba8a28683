// A crate with `#![forbid(unsafe_code)]` lowers its functions classic, but not one that pins
// with a macro: the lowering rewrites `tokio::pin!(fut)` into an `unsafe` block at the user's
// tokens (`parse::pinning`), which the lint reports there; the plain function's macro writes
// its `unsafe` block in the macro's own code, which the lint does not report.
#![forbid(unsafe_code)]

use lowering::leaf::ready;
use lowering::lowering;

#[lowering(classic)]
async fn pinned() -> u32 {
    let fut = ready(1);
    tokio::pin!(fut);
    fut.await
}

fn main() {}

//! A function of the user's named like a standard one that never returns (`resume_unwind`),
//! but returning: the classic lowering reads a discarded call of it as leaving the function,
//! and rustc checks that reading at the call (E0308: the function the lowering hands the call
//! to, `called_function_must_never_return`, takes `Infallible`), rather than the lowering
//! believing a path ends that goes on. Rename the function, or lower this one `runtime`.

use lowering::lowering;

fn resume_unwind(payload: Box<dyn std::any::Any + Send>) {
    drop(payload);
}

async fn tick() {}

#[lowering(classic)]
async fn recover(payload: Box<dyn std::any::Any + Send>) -> u32 {
    tick().await;
    resume_unwind(payload);
    7
}

fn main() {}

// A macro the lowering does not know is left as written: the awaits among its tokens are taken
// to be its own (`stream! { .. }` expands to an async block of its own). This one pastes its
// argument into the function's body, so the await is the function's after all: it lands in
// `move_next`, which is no async context, and rustc says so at the user's `.await`. Await first
// and pass the value: `let value = ready(21).await; twice!(value)`, or say what the macro does:
// `#[lowering(classic, awaits(twice))]`.
use lowering::leaf::ready;
use lowering::lowering;

macro_rules! twice {
    ($e:expr) => {
        $e * 2
    };
}

#[lowering(classic)]
async fn doubled() -> u32 {
    twice!(ready(21).await)
}

fn main() {}

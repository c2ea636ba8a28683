use lowering::lowering;

macro_rules! ensure {
    ($condition:expr, $message:literal) => {
        if !$condition {
            return Err($message.to_owned());
        }
    };
}

async fn read(n: u32) -> u32 {
    n
}

// The lowering cannot see into `ensure!`: the `return` it expands to returns from the state
// machine's `move_next`, not from the function. Say what the macro does,
// `#[lowering(classic, returns(ensure))]`, or write the `return` in the function.
#[lowering(classic)]
async fn decode(n: u32) -> Result<u32, String> {
    let got = read(n).await;
    ensure!(got > 0, "empty");
    Ok(got)
}

fn main() {}

// A variadic function (only `unsafe extern "C"` ones are Rust) has no state machine to be.
use lowering::lowering;

#[lowering(classic)]
async unsafe extern "C" fn printf_like(format: *const u8, mut args: ...) -> u32 {
    0
}

fn main() {}

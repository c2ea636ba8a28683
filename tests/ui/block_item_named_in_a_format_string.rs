// A block that awaits is cut into the state machine's segments, so its items are declared for
// the whole function; one whose name the function also uses outside that block is declared
// under a name of its own, and so is every mention of it in the block. A format string's
// `{LIMIT}` is not a mention a macro can rename: refused, at the item.
use lowering::lowering;

const LIMIT: u32 = 1;

#[lowering(classic)]
pub async fn f(c: bool) -> String {
    let first = LIMIT;
    if c {
        const LIMIT: u32 = 2;
        lowering::leaf::ready(()).await;
        return format!("{first} {LIMIT}");
    }
    first.to_string()
}

fn main() {}

// A block that awaits is cut into the state machine's segments, so its items are declared for
// the whole function; an item whose name the function also uses outside that block could
// change what that name means there, and is refused.
use lowering::lowering;

mod plain {
    pub fn helper() -> u32 {
        1
    }
}
mod other {
    pub fn helper() -> u32 {
        2
    }
}
use plain::helper;

#[lowering(classic)]
pub async fn f(c: bool) -> u32 {
    let first = helper();
    if c {
        use other::helper;
        lowering::leaf::ready(()).await;
        return first + helper();
    }
    first
}

fn main() {}

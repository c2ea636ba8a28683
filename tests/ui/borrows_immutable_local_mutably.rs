// A mutable borrow of an immutable local after an await (E0596).
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
pub async fn f() -> usize {
    let v = Vec::new();
    lowering::leaf::ready(()).await;
    let r = &mut v;
    r.push(1u8);
    v.len()
}

fn main() {}

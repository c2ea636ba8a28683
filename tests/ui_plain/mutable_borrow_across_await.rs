// A mutable borrow held across an await while the local is used again (E0499).
#[allow(unused_imports)]
use lowering::lowering;

// (as a plain async fn)
pub async fn f() -> usize {
    let mut v = vec![1u8];
    let first = &mut v;
    lowering::leaf::ready(()).await;
    v.push(2);
    first.push(3);
    v.len()
}

fn main() {}

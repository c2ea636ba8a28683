// A parameter moved while a borrow of it lives across an await: E0505, once.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

// (as a plain async fn)
pub async fn f(v: Vec<u32>) -> usize {
    let r = &v;
    ready(()).await;
    drop(v);
    r.len()
}

fn main() {}

// A `mut` parameter pushed to while a borrow of it is held across awaits: E0502, once.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

#[lowering(classic)]
pub async fn f(mut v: Vec<u32>) -> usize {
    let first = &v[0];
    ready(()).await;
    v.push(1);
    ready(()).await;
    *first as usize
}

fn main() {}

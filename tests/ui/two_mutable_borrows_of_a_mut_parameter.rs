// Two `&mut` of a `mut` parameter alive across an await: E0499, once, naming the parameter.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

#[lowering(classic)]
pub async fn f(mut v: Vec<u32>) -> usize {
    let a = &mut v;
    let b = &mut v;
    ready(()).await;
    a.push(1);
    b.len()
}

fn main() {}

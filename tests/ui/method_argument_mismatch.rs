// A method's argument of the wrong type after an await.
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
pub async fn f(a: u32) -> usize {
    let mut s = String::new();
    lowering::leaf::ready(()).await;
    s.push_str(a);
    s.len()
}

fn main() {}

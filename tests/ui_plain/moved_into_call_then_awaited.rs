// A value moved into a call, then borrowed after an await: the plain function's E0382, once.
#[allow(unused_imports)]
use lowering::lowering;

fn consume(_: Vec<u8>) {}

// (as a plain async fn)
pub async fn f(v: Vec<u8>) -> usize {
    consume(v);
    lowering::leaf::ready(()).await;
    v.len()
}

fn main() {}

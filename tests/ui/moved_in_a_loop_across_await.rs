// A value moved in one round of a loop that awaits, used in the next: E0382, once.
#[allow(unused_imports)]
use lowering::lowering;

fn consume(_: String) {}

#[lowering(classic)]
pub async fn f(name: String) {
    for _ in 0..2 {
        lowering::leaf::ready(()).await;
        consume(name);
    }
}

fn main() {}

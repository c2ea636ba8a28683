// A user's macro whose `move` closure captures a local, which the function then uses again.
// The plain function is refused (E0382, use of a moved value) and so is classic, with that
// E0382 at the same line; the local, kept in place for the borrow across the first await, is
// lent to the macro as a reference bounded by this run of `move_next`, so keeping the closure
// past the call is refused as well (E0716): never a closure that reads freed memory.
use lowering::lowering;

macro_rules! keep {
    ($($t:tt)*) => {
        Box::new(move || { $($t)* })
    };
}

async fn tick() {}

type Out = Vec<Box<dyn Fn() -> usize>>;

#[lowering(classic)]
async fn register(n: usize, out: &mut Out) -> usize {
    let v = vec![7u8; n];
    let r = &v;
    tick().await;
    let len = r.len();
    out.push(keep! { v.len() + 1000 });
    tick().await;
    len + v.len()
}

fn main() {}

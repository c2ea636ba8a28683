// A user's macro whose `move` closure captures a local, which the function then uses again.
// The plain function is refused too (E0382, use of a moved value); under classic the local,
// kept in place for the borrow across the first await, is lent to the macro as a reference
// bounded by this run of `move_next`, and the closure that keeps it past the call is refused
// as well (E0597): never a closure that reads the finished task's memory.
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

// A borrow that the plain `async fn` could not have either: rustc's own error, at the user's
// line, from the borrow-check twin (the classic state machine keeps borrowed locals in place,
// which is sound only for bodies rustc accepts).
use lowering::leaf::yield_now;
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
async fn conflicting() -> usize {
    let mut items = vec![1, 2, 3];
    let first = &items[0];
    yield_now().await;
    items.push(4);
    *first + items.len()
}

fn main() {}

// A user's macro whose value borrows a local kept in place, held across one of the function's
// awaits, while the local is still used after the macro. The plain function compiles; under
// classic the macro is lent the local as a reference bounded by this run of `move_next`
// (a macro the lowering cannot see into may keep what it is handed: a raw place would outlive
// the task), and a value that keeps that borrow across an await is refused, at the attribute.
// Take the borrow outside the macro and hand the macro the reference:
// `let bytes = &v; let s = borrow_it!(*bytes);` or compute what the macro gives before the
// await (`let n = borrow_it!(v).len();`).
use lowering::lowering;

macro_rules! borrow_it {
    ($e:expr) => {
        &$e
    };
}

async fn tick() {}

#[lowering(classic)]
async fn held(n: usize) -> usize {
    let v = vec![7u8; n];
    let r = &v;
    tick().await;
    let s = borrow_it!(v);
    tick().await;
    s.len() + r.len() + v.len()
}

fn main() {}

// A user's macro at a kept local's last mention is lent the local's value (it may move it, as
// a `move` closure would); the borrow-check twin takes the value there too. Here the macro
// only borrows `name`, and `held` still borrows it after: the plain function compiles, and the
// classic lowering says where the move it would make conflicts (E0505), rather than drop a
// value `held` still reads. Mention the local after the macro (`let n = len_of!(name); drop(name);`),
// or take what the macro needs by reference before (`let n = { let name = &name; len_of!(name) };`).
use lowering::lowering;

macro_rules! len_of {
    ($v:expr) => {
        $v.len()
    };
}

async fn ready<T>(value: T) -> T {
    value
}

#[lowering(classic)]
async fn measure(name: String) -> usize {
    let held = &name;
    ready(()).await;
    let n = len_of!(name);
    held.len() + n
}

fn main() {}

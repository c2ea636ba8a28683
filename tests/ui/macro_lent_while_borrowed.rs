// A user's macro at a kept local's last mention is lent the local's value (it may move it, as
// a `move` closure would); the borrow-check twin takes the value there too. A local that holds
// a borrow of it and is used later (`let held = &name;`) makes it a reference instead; here the
// borrow is inside a tuple, which the lowering does not follow: rustc says where the move
// conflicts (E0505). Mention the local after the macro (`len_of!(name); drop(name);`), or
// take what the macro needs by reference before (`{ let name = &name; len_of!(name) }`).
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
    let held = (&name, 1);
    ready(()).await;
    let n = len_of!(name);
    held.0.len() + n
}

fn main() {}

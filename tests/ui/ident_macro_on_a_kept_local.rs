use lowering::lowering;

// A macro of the user's that takes a local as an identifier (`$v:ident`).
macro_rules! len_of {
    ($v:ident) => {
        $v.len()
    };
}

async fn ready<T>(value: T) -> T {
    value
}

// `name` is borrowed across an await, so it lives in place, and the lowering hands a macro it
// does not know, where the local is used again after it, a reference to it (bounded by the run
// of the state machine) rather than its name. (At the local's last use the macro gets the value
// under its own name, and `$v:ident` works.)
#[lowering(classic)]
async fn measure(name: String) -> usize {
    let held = &name;
    ready(()).await;
    held.len() + len_of!(name) + name.capacity()
}

fn main() {}

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

// `name` is borrowed across an await, so it lives in place, and the lowering hands macros it
// does not know its place rather than its name.
#[lowering(classic)]
async fn measure(name: String) -> usize {
    let held = &name;
    ready(()).await;
    held.len() + len_of!(name)
}

fn main() {}

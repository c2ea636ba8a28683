// A future that keeps a borrow of a temporary of its statement: the temporary lives in the
// state machine (Rust keeps it past the await), so the awaiter would borrow another field.
// The macro cannot see whether `len_of` keeps its argument (a future that does not, compiles);
// rustc's error points at the temporary in the user's line.
use lowering::lowering;

async fn len_of(text: &String) -> usize {
    text.len()
}

#[lowering(classic)]
async fn measure() -> usize {
    len_of(&String::from("text")).await
}

fn main() {}

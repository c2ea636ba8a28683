// A struct update from a local kept in place whose fields the function also moves one by one
// (`consume(v.a)`, then `Pair { .., ..v }`): the macro cannot name the fields the literal
// leaves out, so it would take `v` whole, after a field of it moved. Refused at `..v`, with
// what to write instead. (The plain function builds: this is a limit of the lowering.)
use lowering::lowering;

pub struct Pair {
    pub a: String,
    pub b: String,
}

pub async fn tick() {}

#[lowering(classic)]
pub async fn f() -> usize {
    let v = Pair { a: "a".to_owned(), b: "b".to_owned() };
    let first = v.a;
    tick().await;
    let rest = Pair { a: "new".to_owned(), ..v };
    tick().await;
    first.len() + rest.b.len()
}

fn main() {}

use lowering::lowering;

// A macro that declares a local borrowing another it declares, as
// `event_listener::listener!(event => listener)` pins its listener on the stack: the
// lowering cannot see either `let`, so the borrowed one is not kept across the await of the
// other.
macro_rules! listen {
    ($value:expr => $name:ident) => {
        let slot = $value;
        let $name = lowering::leaf::ready(&slot);
    };
}

#[lowering(classic)]
async fn measure() -> usize {
    listen!(String::from("held") => waiting);
    waiting.await.len()
}

fn main() {}

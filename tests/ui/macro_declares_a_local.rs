use lowering::lowering;

// A macro that declares a local, as `event_listener::listener!(event => listener)` does: the
// `let`s it expands to are out of the lowering's sight.
macro_rules! hold {
    ($value:expr => $name:ident) => {
        let slot = $value;
        let $name = &slot;
    };
}

async fn ready<T>(value: T) -> T {
    value
}

#[lowering(classic)]
async fn measure() -> usize {
    hold!(String::from("held") => held);
    ready(()).await;
    held.len()
}

fn main() {}

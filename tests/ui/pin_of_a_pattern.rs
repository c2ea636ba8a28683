// The pinning macros are lowered in the shapes they are written in: `pin!(name, ..)`,
// `pin! { let name = value; }` and `let name = pin!(value);`.
use lowering::leaf::ready;
use lowering::lowering;

#[lowering(classic)]
async fn pins_a_tuple() -> u32 {
    tokio::pin! {
        let (a, b) = (ready(1), ready(2));
    }
    a.await + b.await
}

fn main() {}

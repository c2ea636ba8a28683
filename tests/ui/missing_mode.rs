use lowering::lowering;

#[lowering]
async fn answer() -> u32 {
    42
}

fn main() {}

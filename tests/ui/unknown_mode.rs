use lowering::lowering;

#[lowering(fast)]
async fn answer() -> u32 {
    42
}

fn main() {}

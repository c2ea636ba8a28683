use lowering::lowering;

#[lowering(classic, crate = 5)]
async fn answer() -> u32 {
    42
}

fn main() {}

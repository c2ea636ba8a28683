use lowering::lowering;

#[lowering(classic)]
fn answer() -> u32 {
    42
}

fn main() {}

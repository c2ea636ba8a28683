use lowering::lowering;

#[lowering(classic)]
async fn show() -> impl std::fmt::Display {
    42
}

fn main() {}

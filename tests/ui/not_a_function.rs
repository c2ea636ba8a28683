use lowering::lowering;

#[lowering(runtime)]
struct Answer(u32);

fn main() {}

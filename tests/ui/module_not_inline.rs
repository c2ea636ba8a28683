// The module form lowers the items it sees: a module in another file is not among them.
use lowering::lowering;

#[lowering(classic)]
mod elsewhere;

fn main() {}

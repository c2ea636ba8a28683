// On a module, `awaits` and `returns` name a macro some function of the module invokes; a
// function that does not invoke it is lowered as without the hint.
use lowering::lowering;

#[lowering(classic, awaits(read_all))]
mod reads {
    pub async fn one() -> u32 {
        lowering::leaf::ready(1u32).await
    }
}

fn main() {}

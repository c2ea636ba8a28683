// `awaits` and `returns` name macros the body invokes, by name (a path and a `!` are allowed):
// a hint about a macro the body does not invoke, an empty list, or something that is not a
// macro's name is a mistake.
use lowering::lowering;

macro_rules! read_one {
    () => {
        lowering::leaf::ready(1u32).await
    };
}

#[lowering(classic, awaits(read_two))]
async fn misnamed() -> u32 {
    read_one!()
}

#[lowering(classic, returns())]
async fn empty() -> u32 {
    read_one!()
}

#[lowering(classic, awaits("read_one"))]
async fn quoted() -> u32 {
    read_one!()
}

#[lowering(classic, awaits(self::read_one!))]
async fn with_a_path() -> u32 {
    read_one!()
}

fn main() {}

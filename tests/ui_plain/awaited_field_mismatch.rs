// An awaited value of the wrong type as a struct literal's field and a tuple's element.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

pub struct Point {
    pub x: u32,
    pub y: u32,
}

fn pair(pair: (u32, u32)) -> u32 {
    pair.0
}

// (as a plain async fn)
pub async fn f() -> u32 {
    let point = Point { x: ready("text").await, y: 1 };
    pair((ready("text").await, point.y))
}

fn main() {}

// An impl without the trait's method (E0046), the method called after an await.
#[allow(unused_imports)]
use lowering::lowering;
pub trait Speak {
    fn speak(&self) -> u32;
}
pub struct Dog;
impl Speak for Dog {}

#[lowering(classic)]
pub async fn f() -> u32 {
    lowering::leaf::ready(()).await;
    Dog.speak()
}

fn main() {}

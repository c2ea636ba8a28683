// A method's result of the wrong type after an await: one error at the user's value.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

pub struct Counter {
    pub n: u32,
}

impl Counter {
    // (as a plain async fn)
    pub async fn next(&mut self) -> u32 {
        self.n += ready(1).await;
        format!("{}", self.n)
    }
}

fn main() {}

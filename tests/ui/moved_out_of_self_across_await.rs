// A method's `self` field moved, then `self` used whole after an await: E0382, once.
#[allow(unused_imports)]
use lowering::lowering;

pub struct Job {
    name: String,
}

fn consume(_: String) {}

impl Job {
    #[lowering(classic)]
    pub async fn run(self) -> usize {
        consume(self.name);
        lowering::leaf::ready(()).await;
        self.name.len()
    }
}

fn main() {}

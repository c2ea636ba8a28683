use lowering::leaf::ready;
use lowering::lowering;

macro_rules! twice {
    ($e:expr) => {
        $e * 2
    };
}

#[lowering(classic)]
async fn doubled() -> u32 {
    twice!(ready(21).await)
}

fn main() {}

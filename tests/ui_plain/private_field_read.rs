// A private field read after an await (E0616).
#[allow(unused_imports)]
use lowering::lowering;
mod inner {
    pub struct Secret {
        hidden: u32,
    }
    impl Secret {
        pub fn new() -> Self {
            Secret { hidden: 1 }
        }
    }
}

// (as a plain async fn)
pub async fn f() -> u32 {
    let s = inner::Secret::new();
    lowering::leaf::ready(()).await;
    s.hidden
}

fn main() {}

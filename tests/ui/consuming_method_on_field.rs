use lowering::lowering;

struct Inner(u32);

impl Inner {
    async fn send(self) -> u32 {
        self.0
    }
}

struct Outer {
    inner: Inner,
}

impl Outer {
    // Only a whole local is taken at its last use, not a field of one.
    #[lowering(classic)]
    async fn go(self) -> u32 {
        self.inner.send().await
    }
}

fn main() {}

use lowering::lowering;

struct Cmd(u32);

impl Cmd {
    async fn peek(&self) -> u32 {
        self.0
    }

    async fn apply(self, db: u32) -> u32 {
        self.0 + db
    }
}

// `cmd` is kept in place for `peek`'s borrow, so `apply` cannot take it by value.
#[lowering(classic)]
async fn run(db: u32) -> u32 {
    let cmd = Cmd(1);
    let seen = cmd.peek().await;
    cmd.apply(db).await + seen
}

fn main() {}

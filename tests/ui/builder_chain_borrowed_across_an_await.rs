use lowering::lowering;

struct Server {
    limit: u32,
}

impl Server {
    fn new() -> Server {
        Server { limit: 0 }
    }

    fn with_limit(mut self, limit: u32) -> Server {
        self.limit = limit;
        self
    }

    async fn accept(&mut self) -> u32 {
        self.limit
    }
}

// `accept` borrows what `with_limit` returns across the await; the lowering keeps the chain's
// first temporary (`Server::new()`) in place for it, which `with_limit` then cannot consume.
#[lowering(classic)]
async fn serve(limit: u32) -> u32 {
    Server::new().with_limit(limit).accept().await
}

fn main() {}

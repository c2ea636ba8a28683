use lowering::lowering;

async fn fill(buf: &mut Vec<u8>) {
    buf.push(1);
}

#[lowering(classic)]
async fn read() -> usize {
    let mut buf = Vec::new();
    fill(&mut buf).await;
    buf.len()
}

fn main() {}

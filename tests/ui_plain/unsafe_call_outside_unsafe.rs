// The classic code of a function that keeps locals in place runs in an `unsafe` block; the
// user's own code still may not call an unsafe function outside `unsafe` (the twin says so).
use lowering::leaf::yield_now;
#[allow(unused_imports)]
use lowering::lowering;

unsafe fn dangerous(buf: &mut Vec<u8>) {
    buf.push(1);
}

async fn fill(buf: &mut Vec<u8>) {
    buf.push(0);
}

// (as a plain async fn)
async fn read() -> usize {
    let mut buf = Vec::new();
    fill(&mut buf).await;
    dangerous(&mut buf);
    yield_now().await;
    buf.len()
}

fn main() {}

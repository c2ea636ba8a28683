#[lowering(classic)]
async fn fill(&mut self, n: usize) -> usize {
    let read = self.source.read(&mut self.buffer[..n]).await;
    self.total += read;
    read
}

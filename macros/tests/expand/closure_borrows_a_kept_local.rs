#[lowering(classic)]
async fn put(&mut self, k: String, v: u32) -> Option<u32> {
    let old = self.get(&k).await;
    self.0.retain(|(key, _)| *key != k);
    self.0.push((k, v));
    old
}

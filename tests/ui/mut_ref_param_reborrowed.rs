use lowering::lowering;

async fn push(items: &mut Vec<u32>) {
    items.push(1);
}

#[lowering(classic)]
async fn push_twice(items: &mut Vec<u32>) -> usize {
    push(items).await;
    items.len()
}

fn main() {}

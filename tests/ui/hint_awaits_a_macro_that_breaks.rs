// A macro named by `awaits` runs in an `async` block of its own: what its expansion does that
// the block cannot (a `break` or `continue` to a loop of the function) is rustc's error there,
// never other code. The plain function builds; under classic, take the loop's exit out of the
// macro (`if let Some(n) = next_or_none!(..) { .. } else { break }`).
use lowering::lowering;

macro_rules! next_or_break {
    ($values:expr) => {
        match lowering::leaf::ready($values.pop()).await {
            Some(value) => value,
            None => break,
        }
    };
}

#[lowering(classic, awaits(next_or_break))]
async fn total(mut values: Vec<u32>) -> u32 {
    let mut total = 0;
    loop {
        total += next_or_break!(values);
    }
    total
}

fn main() {}

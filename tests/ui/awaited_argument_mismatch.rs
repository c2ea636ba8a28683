// An awaited value of the wrong type as a function's and a method's argument: the twin's
// error, at the whole `ready(..).await`, with no "arguments to this function are incorrect".
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

fn takes(n: u32) -> u32 {
    n
}

#[lowering(classic)]
pub async fn f(values: Vec<u32>) -> u32 {
    let mut values = values;
    values.push(ready("text").await);
    takes(ready("text").await)
}

fn main() {}

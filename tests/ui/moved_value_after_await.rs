// A value used after a move, the use after an await (issue 41's third case): the plain
// function's error, once (`errors_match::a_moved_value_reads_as_in_an_async_block`).
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
pub async fn f(v: Vec<u8>) -> usize {
    let w = v;
    lowering::leaf::ready(()).await;
    v.len() + w.len()
}

fn main() {}

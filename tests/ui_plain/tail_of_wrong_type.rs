// A result of the wrong type after an await (issue 41's fifth case): see
// `errors_match::a_result_of_the_wrong_type_is_reported_twice` for what differs and why.
#[allow(unused_imports)]
use lowering::lowering;

// (as a plain async fn)
pub async fn f(a: u32) -> u32 {
    lowering::leaf::ready(a).await;
    "text"
}

fn main() {}

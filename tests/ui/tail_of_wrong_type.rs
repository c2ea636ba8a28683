// A result of the wrong type after an await: one error at the user's value, without the plain
// function's label at the signature (`errors_match::a_result_of_the_wrong_type_is_reported_once`).
#[allow(unused_imports)]
use lowering::lowering;

#[lowering(classic)]
pub async fn f(a: u32) -> u32 {
    lowering::leaf::ready(a).await;
    "text"
}

fn main() {}

// A local kept in place (here a vector a borrow crosses an await with) is handed to a macro of
// the user's as its lent place, `(*__lent_items)`; a rule that takes an identifier for it
// (`$v:ident`) does not match, and rustc says so at the user's line. (A parameter declared a
// reference, `items: &mut Vec<u32>` or `&mut self`, is handed an identifier.) Take the
// reference outside the macro and hand it that: `let items_ref = &mut items;
// push_one!(items_ref);`, with a rule that takes an expression, or `$v:expr`.
use lowering::lowering;

macro_rules! push_one {
    ($v:ident) => {
        $v.push(1)
    };
}

#[lowering(classic)]
async fn grown() -> usize {
    let mut items = vec![0u32];
    let first = &items[0];
    lowering::leaf::ready(*first).await;
    push_one!(items);
    items.len()
}

fn main() {}

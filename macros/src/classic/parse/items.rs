//! Items declared in the body (`use futures::StreamExt;`, a `fn`, a `struct`, a `const`): the
//! stub declares them, so that they are visible wherever the body's code lands (the segments
//! of `move_next` are not the blocks the items were written in). Items are visible in their
//! whole block in Rust, before and after their declaration, so declaring them at the top of
//! the stub changes no name's meaning, unless two blocks of one body declare the same name
//! (rustc then reports the duplicate at the user's items).

use syn::visit_mut::{self, VisitMut};

/// The body without its items, and the items.
pub(crate) fn hoist(block: &syn::Block) -> (syn::Block, Vec<syn::Item>) {
    let mut block = block.clone();
    let mut hoister = Hoister(Vec::new());
    hoister.visit_block_mut(&mut block);
    (block, hoister.0)
}

struct Hoister(Vec<syn::Item>);

impl VisitMut for Hoister {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut kept = Vec::with_capacity(block.stmts.len());
        for stmt in std::mem::take(&mut block.stmts) {
            match stmt {
                syn::Stmt::Item(item) => self.0.push(item),
                other => kept.push(other),
            }
        }
        block.stmts = kept;
        visit_mut::visit_block_mut(self, block);
    }

    // A standard macro's arguments are lowered as any code is (`panic!("{}", { use ..; .. })`).
    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        crate::classic::syntax::std_macros::visit_arguments(mac, |expr| self.visit_expr_mut(expr));
    }

    // Closures, async blocks and items keep what they declare: their code stays whole.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

//! What code assigns: the left-hand sides of `=` and of the compound assignments, found once
//! here for every phase that asks (the lowering's evaluation order, the places of in-place
//! locals, the captures of closures).

use syn::visit::{self, Visit};

use crate::classic::syntax::std_macros;

/// `+=`, `<<=` and the other compound assignments.
pub(crate) fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// Which code nested in an expression counts as its own.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// All of it but nested items: closures and async blocks too (what the expression's code
    /// may change at all, whenever it runs).
    Nested,
    /// Only what runs where the expression runs: not closures or async blocks, except an
    /// async block awaited where it is written (`async { v = 1 }.await`), which runs there.
    HereAndNow,
}

/// The places `expr` assigns, in source order; the arguments of the standard macros
/// included (`panic!("{}", { v = 1; v })`).
pub(crate) fn assigned_places(expr: &syn::Expr, reach: Reach) -> Vec<syn::Expr> {
    let mut finder = Finder { reach, found: Vec::new(), values: Vec::new() };
    finder.visit_expr(expr);
    finder.found
}

/// The plain assignments `place = value` of `expr` (not the compound ones), as
/// `assigned_places` finds them: each place with the value it is given.
pub(crate) fn assigned_values(expr: &syn::Expr, reach: Reach) -> Vec<(syn::Expr, syn::Expr)> {
    let mut finder = Finder { reach, found: Vec::new(), values: Vec::new() };
    finder.visit_expr(expr);
    finder.values
}

struct Finder {
    reach: Reach,
    found: Vec<syn::Expr>,
    values: Vec<(syn::Expr, syn::Expr)>,
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_expr_assign(&mut self, node: &'ast syn::ExprAssign) {
        self.found.push((*node.left).clone());
        self.values.push(((*node.left).clone(), (*node.right).clone()));
        visit::visit_expr_assign(self, node);
    }

    fn visit_expr_binary(&mut self, node: &'ast syn::ExprBinary) {
        if is_compound(&node.op) {
            self.found.push((*node.left).clone());
        }
        visit::visit_expr_binary(self, node);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(Ok(parsed)) = std_macros::parse(mac) {
            for (expr, _) in parsed.exprs_with_use() {
                self.visit_expr(expr);
            }
        }
    }

    fn visit_expr_await(&mut self, node: &'ast syn::ExprAwait) {
        match crate::classic::syntax::strip_parens(&node.base) {
            syn::Expr::Async(block) if self.reach == Reach::HereAndNow => visit::visit_block(self, &block.block),
            _ => visit::visit_expr_await(self, node),
        }
    }

    fn visit_expr_closure(&mut self, node: &'ast syn::ExprClosure) {
        if self.reach == Reach::Nested {
            visit::visit_expr_closure(self, node);
        }
    }

    fn visit_expr_async(&mut self, node: &'ast syn::ExprAsync) {
        if self.reach == Reach::Nested {
            visit::visit_expr_async(self, node);
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

//! A hoisted temporary assigned where it is borrowed, `&(__h0 = value)`
//! (`parse::lower::borrowed_where_made`).

use super::*;
use crate::classic::parse::lower::is_hoisted_temporary;

impl Places<'_> {
    /// `&(__h0 = value)`, a hoisted temporary assigned where it is borrowed
    /// (`parse::lower::borrowed_where_made`): `__h0.assign_and_borrow(value)`, whose result is
    /// a reference to the place, so that `value` has the type the reference's context expects.
    /// A temporary not kept in place is assigned, then borrowed.
    pub(super) fn borrowed_where_made(&mut self, node: &syn::ExprReference) -> Option<syn::Expr> {
        let syn::Expr::Assign(assign) = crate::classic::syntax::strip_parens(&node.expr) else { return None };
        let name = Self::path_name(&assign.left).filter(|name| is_hoisted_temporary(name))?;
        let mut value = (*assign.right).clone();
        self.value(&mut value);
        let span = node.expr.span();
        let borrow = match self.lookup(&name) {
            Some(local) => {
                let ident = with_span(&local.ident, span);
                match node.mutability {
                    Some(_) => syn::parse_quote_spanned!(span=> #ident.assign_and_borrow_mut(#value)),
                    None => syn::parse_quote_spanned!(span=> #ident.assign_and_borrow(#value)),
                }
            }
            None => {
                let left = &assign.left;
                let mutability = node.mutability;
                syn::parse_quote_spanned!(span=> { #left = #value; &#mutability #left })
            }
        };
        Some(borrow)
    }
}

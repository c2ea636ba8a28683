//! A hoisted temporary assigned where it is borrowed, `&(__h0 = value)`
//! (`parse::lower::borrowed_where_made`).

use super::*;

impl Places<'_> {
    /// `&(__h0 = value)`, a hoisted temporary assigned where it is borrowed
    /// (`parse::lower::borrowed_where_made`): `__h0.assign_and_borrow(value)`, whose result is
    /// a reference to the place, so that `value` has the type the reference's context expects.
    /// The temporary lives in place, for that reason (`ir::Body::hoisted`): a user's `&(x = v)`
    /// borrows the `()` the assignment makes, and stays as written.
    pub(super) fn borrowed_where_made(&mut self, node: &syn::ExprReference) -> Option<syn::Expr> {
        let syn::Expr::Assign(assign) = crate::classic::syntax::strip_parens(&node.expr) else { return None };
        let name = Self::path_name(&assign.left)?;
        let local = self.lookup(&name).filter(|local| local.reason == Some(Reason::HoistedTemporary))?;
        let ident = with_span(&local.ident, node.expr.span());
        let mut value = (*assign.right).clone();
        self.value(&mut value);
        let span = node.expr.span();
        Some(match node.mutability {
            Some(_) => syn::parse_quote_spanned!(span=> #ident.assign_and_borrow_mut(#value)),
            None => syn::parse_quote_spanned!(span=> #ident.assign_and_borrow(#value)),
        })
    }
}

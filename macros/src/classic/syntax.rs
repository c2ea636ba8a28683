//! Questions every phase asks of syn's tree, answered once each.

/// `expr` without the parentheses and invisible groups around it.
pub(crate) fn strip_parens(mut expr: &syn::Expr) -> &syn::Expr {
    loop {
        match expr {
            syn::Expr::Paren(node) => expr = &node.expr,
            syn::Expr::Group(node) => expr = &node.expr,
            _ => return expr,
        }
    }
}

/// An expression written as a statement as the rewriting left it, parenthesized when its first
/// operand is a block-like expression that the rewriting put there (a macro lent values, `{ let v
/// = ..; m!(v) } + 1;`): at the start of a statement, rustc reads such a block as a statement
/// of its own and the rest (`+ 1`) as the next, which the user's `m!(v) + 1;` never was.
pub(crate) fn expression_statement(expr: syn::Expr) -> syn::Expr {
    if !block_like(&expr) && block_like(leftmost_operand(&expr)) {
        syn::parse_quote!((#expr))
    } else {
        expr
    }
}

/// The operand an expression begins with (itself when it begins with none).
fn leftmost_operand(expr: &syn::Expr) -> &syn::Expr {
    let next = match expr {
        syn::Expr::Binary(node) => &node.left,
        syn::Expr::Assign(node) => &node.left,
        syn::Expr::MethodCall(node) => &node.receiver,
        syn::Expr::Field(node) => &node.base,
        syn::Expr::Index(node) => &node.expr,
        syn::Expr::Call(node) => &node.func,
        syn::Expr::Cast(node) => &node.expr,
        syn::Expr::Try(node) => &node.expr,
        syn::Expr::Await(node) => &node.base,
        syn::Expr::Range(syn::ExprRange { start: Some(start), .. }) => start,
        _ => return expr,
    };
    leftmost_operand(next)
}

/// Does rustc end a statement at this expression's closing brace when it starts one?
fn block_like(expr: &syn::Expr) -> bool {
    matches!(
        expr,
        syn::Expr::Block(_)
            | syn::Expr::If(_)
            | syn::Expr::Match(_)
            | syn::Expr::Loop(_)
            | syn::Expr::While(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Unsafe(_)
            | syn::Expr::Const(_)
            | syn::Expr::TryBlock(_)
    )
}

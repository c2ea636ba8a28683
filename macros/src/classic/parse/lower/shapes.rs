//! What `Lower` asks of an expression's syntax: whether it reads, changes or borrows what an
//! await may change, whether it is a temporary or a constant, and the names of the lowering's
//! own temporaries.

use super::*;

/// Reading this expression after an await gives what reading it before would: a literal, or
/// a place (a method receiver is auto-referenced, so it must not be moved into a temporary).
pub(super) fn is_stable(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Lit(_) | syn::Expr::Path(_) => true,
        syn::Expr::Paren(node) => is_stable(&node.expr),
        syn::Expr::Field(node) => is_stable(&node.base),
        syn::Expr::Index(node) => {
            is_stable(&node.expr) && matches!(&*node.index, syn::Expr::Lit(_) | syn::Expr::Path(_))
        }
        syn::Expr::Unary(node) if matches!(node.op, syn::UnOp::Deref(_)) => is_stable(&node.expr),
        syn::Expr::Reference(node) => is_stable(&node.expr),
        _ => false,
    }
}

/// Does `expr` assign `place` (`p`, `p.a`, `*r`), a place inside it (`p.a.b ^= ..`) or one
/// that contains it (`p = ..` for `p.a`), outside closures and async blocks, which may not
/// run there (but in an async block awaited where it is written, which does)? (Another field
/// of the same local, `p.b = ..`, is not `place`.)
pub(super) fn assigns(expr: &syn::Expr, place: &syn::Expr) -> bool {
    let place = place.to_token_stream().to_string();
    let within = |long: &str, short: &str| {
        long == short || long.strip_prefix(short).is_some_and(|rest| rest.starts_with([' ', '.', '[']))
    };
    assignments::assigned_places(expr, assignments::Reach::HereAndNow).into_iter().any(|target| {
        let target = target.to_token_stream().to_string();
        within(&target, &place) || within(&place, &target)
    })
}

/// `==`, `!=`, `<`, `<=`, `>`, `>=`: operators that borrow their operands.
pub(crate) fn is_comparison(op: &BinOp) -> bool {
    matches!(op, BinOp::Eq(_) | BinOp::Ne(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_))
}

/// A comparison's left operand is a place that the right operand, which awaits, names
/// (`c.count < c.bump(1).await`, `total == add(&mut total).await`): the right operand may
/// change it. Rust reads a primitive operand before the right one runs and borrows any
/// other for the whole comparison (so that nothing may change it), which the macro cannot
/// tell apart without types: `Lower::hold_compared` lets the type decide, and the place
/// lives in place (`analyse::loans`), as it may be borrowed across the awaits.
pub(crate) fn compared_with_what_may_change_it(left: &syn::Expr, right: &syn::Expr) -> bool {
    let Some(root) = read_root(left) else { return false };
    !root.starts_with(char::is_uppercase)
        && !has_await(left)
        && has_await(right)
        && mentions::of_expr(right).iter().any(|mention| mention.name == root)
}

/// The variable a place read by value starts from (`v` in `v`, `v.a`, `v[0]`, `*v`), as
/// `mentions` names it. Not for a borrow (`&v`): a borrow cannot move into a temporary
/// across the statement's awaits, and rustc rejects a later operand that changes `v`.
pub(super) fn read_root(expr: &syn::Expr) -> Option<String> {
    crate::classic::syntax::place_root(expr, crate::classic::syntax::Through::Reads)
        .map(|ident| if ident == "self" { mentions::SELF_LOCAL.to_owned() } else { ident.to_string() })
}

/// A `let` or a `let` chain (`crate::classic::syntax::let_chain`).
pub(super) fn contains_let(expr: &syn::Expr) -> bool {
    !crate::classic::syntax::let_chain(expr).is_empty()
}

pub(super) fn awaits_span(expr: &syn::Expr) -> Option<Span> {
    struct First(Option<Span>);
    impl<'ast> syn::visit::Visit<'ast> for First {
        fn visit_expr_await(&mut self, node: &'ast syn::ExprAwait) {
            self.0.get_or_insert(node.await_token.span);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut first = First(None);
    syn::visit::Visit::visit_expr(&mut first, expr);
    first.0
}

/// Does `expr` borrow a temporary (`&make()`, `make().len()`, `(a, b).0`, `[a, b][i]`) in a
/// position evaluated with it? Not inside blocks, branches, closures or macros, nor on the
/// right of `&&`/`||`: temporaries there end with them.
pub(super) fn has_borrowed_temporary(expr: &syn::Expr) -> bool {
    let borrowed = |inner: &syn::Expr| is_temporary(inner) || has_borrowed_temporary(inner);
    match expr {
        syn::Expr::Reference(node) if node.mutability.is_some() && is_constant(&node.expr) => {
            !matches!(&*node.expr, syn::Expr::Array(array) if array.elems.is_empty())
        }
        syn::Expr::Reference(node) => borrowed(&node.expr),
        syn::Expr::Field(node) => borrowed(&node.base),
        syn::Expr::Index(node) => borrowed(&node.expr) || has_borrowed_temporary(&node.index),
        syn::Expr::MethodCall(node) => borrowed(&node.receiver) || node.args.iter().any(has_borrowed_temporary),
        // Both operands of `&&` and `||` are scopes of their own for temporaries.
        syn::Expr::Binary(node) if matches!(node.op, BinOp::And(_) | BinOp::Or(_)) => false,
        // A scrutinee's temporaries live as long as the enclosing statement's (the arms are
        // scopes of their own).
        syn::Expr::Match(node) => borrowed(&node.expr),
        _ => operands(expr).into_iter().any(has_borrowed_temporary),
    }
}

/// Does a branch inside `expr` (an `if`, a `match`, a loop, the right of `&&` or `||`) move
/// or assign a variable on its path only, in a position `anf` takes apart? `emit` then sees
/// the construct on its own and saves each path's locals, as Rust keeps a drop flag (plain
/// code would count the move as certain, or the assignment as never made, and drop the
/// local early on the other paths).
///
/// So too for a construct that jumps out of the statement: the jump saves the locals alive
/// when it runs (the operands before it may have moved some) by name (which a binding on
/// its way may hide).
pub(super) fn changes_on_a_path(expr: &syn::Expr) -> bool {
    let jumps_out = || jumps::jumps_out_of(expr);
    match expr {
        syn::Expr::If(_) | syn::Expr::Match(_) | syn::Expr::While(_) | syn::Expr::Loop(_) | syn::Expr::ForLoop(_) => {
            changes_anything(expr) || jumps_out()
        }
        syn::Expr::Block(node) => node.block.stmts.iter().any(stmt_changes_on_a_path) || jumps_out(),
        syn::Expr::Unsafe(node) => node.block.stmts.iter().any(stmt_changes_on_a_path) || jumps_out(),
        // A `bool` variable on the right is copied, not moved.
        syn::Expr::Binary(node) if matches!(node.op, BinOp::And(_) | BinOp::Or(_)) => {
            changes_on_a_path(&node.left) || (!is_copied_bool(&node.right) && changes_anything(&node.right))
        }
        _ => operands(expr).into_iter().any(changes_on_a_path),
    }
}

/// The expressions evaluated as parts of `expr` itself, in order: operands, arguments,
/// elements, the value of a `return` or `break`. Not the bodies of constructs, closures or
/// macros.
pub(super) fn operands(expr: &syn::Expr) -> Vec<&syn::Expr> {
    match expr {
        syn::Expr::Binary(node) => vec![&node.left, &node.right],
        syn::Expr::Assign(node) => vec![&node.left, &node.right],
        syn::Expr::Call(node) => std::iter::once(&*node.func).chain(&node.args).collect(),
        syn::Expr::MethodCall(node) => std::iter::once(&*node.receiver).chain(&node.args).collect(),
        syn::Expr::Index(node) => vec![&node.expr, &node.index],
        syn::Expr::Field(syn::ExprField { base: inner, .. })
        | syn::Expr::Reference(syn::ExprReference { expr: inner, .. })
        | syn::Expr::Unary(syn::ExprUnary { expr: inner, .. })
        | syn::Expr::Cast(syn::ExprCast { expr: inner, .. })
        | syn::Expr::Paren(syn::ExprParen { expr: inner, .. })
        | syn::Expr::Group(syn::ExprGroup { expr: inner, .. })
        | syn::Expr::Try(syn::ExprTry { expr: inner, .. })
        | syn::Expr::Repeat(syn::ExprRepeat { expr: inner, .. })
        | syn::Expr::Let(syn::ExprLet { expr: inner, .. }) => vec![&**inner],
        syn::Expr::Tuple(node) => node.elems.iter().collect(),
        syn::Expr::Array(node) => node.elems.iter().collect(),
        syn::Expr::Struct(node) => node.fields.iter().map(|field| &field.expr).chain(node.rest.as_deref()).collect(),
        syn::Expr::Return(syn::ExprReturn { expr: value, .. })
        | syn::Expr::Break(syn::ExprBreak { expr: value, .. }) => value.as_deref().into_iter().collect(),
        syn::Expr::Range(node) => node.start.as_deref().into_iter().chain(node.end.as_deref()).collect(),
        _ => Vec::new(),
    }
}

/// A variable, or its negation, as an operand of `&&` or `||`: a `bool`, copied.
pub(super) fn is_copied_bool(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Path(_) => true,
        syn::Expr::Paren(node) => is_copied_bool(&node.expr),
        syn::Expr::Unary(node) if matches!(node.op, syn::UnOp::Not(_)) => is_copied_bool(&node.expr),
        _ => false,
    }
}

pub(crate) fn stmt_changes_on_a_path(stmt: &syn::Stmt) -> bool {
    match stmt {
        // A `let .. else`'s `else` is a path of its own: what it moves is moved on that path
        // only (`let Ok(v) = r else { break 'found p };`).
        syn::Stmt::Local(local) => local.init.as_ref().is_some_and(|init| {
            changes_on_a_path(&init.expr)
                || init
                    .diverge
                    .as_ref()
                    .is_some_and(|(_, diverge)| changes_anything(diverge) || jumps::jumps_out_of(diverge))
        }),
        syn::Stmt::Expr(expr, _) => changes_on_a_path(expr),
        _ => false,
    }
}

/// Does `expr` use a variable by value or assign one (a lower-case name: `None` and unit
/// structs are not variables)? Whether it is one of the function's locals is `emit`'s
/// business.
pub(super) fn changes_anything(expr: &syn::Expr) -> bool {
    mentions::of_expr(expr).iter().any(|mention| {
        matches!(mention.kind, mentions::Kind::Move | mentions::Kind::Assign)
            && !mention.name.starts_with(|c: char| c.is_ascii_uppercase())
    })
}

/// A value that, borrowed, lives in a temporary: a call's result, a literal aggregate with a
/// computed part, a macro's value. (A constant, `&0` or `&[1, 2]`, is promoted to a static
/// instead, and stays as written.)
/// The prefix of the temporaries hoisted out of a statement that awaits
/// (`len_of(&String::from("x")).await`): `__h0`, `__h1`, ... Only their names: which locals
/// are hoisted temporaries is `ir::Body::hoisted`.
pub(crate) const HOISTED_PREFIX: &str = "h";

/// Is this a temporary an operand was spilled into (`Lower::spill_value`), an await's value
/// among them?
pub(crate) fn is_operand_temporary(ident: &syn::Ident) -> bool {
    let name = ident.to_string();
    name.strip_prefix("__")
        .and_then(|rest| rest.strip_prefix(OPERAND_PREFIX))
        .is_some_and(|index| !index.is_empty() && index.bytes().all(|byte| byte.is_ascii_digit()))
}

/// Does a `loop` have a `break value` aimed at it (so that its value is not `()`)?
pub(super) fn breaks_with_value(source: &syn::ExprLoop) -> bool {
    struct Finder<'l> {
        label: Option<&'l syn::Lifetime>,
        depth: usize,
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
        fn visit_expr_break(&mut self, node: &'ast syn::ExprBreak) {
            let aimed = match &node.label {
                Some(label) => self.label == Some(label),
                None => self.depth == 0,
            };
            self.found |= aimed && node.expr.is_some();
            syn::visit::visit_expr_break(self, node);
        }
        fn visit_expr_loop(&mut self, node: &'ast syn::ExprLoop) {
            self.depth += 1;
            syn::visit::visit_expr_loop(self, node);
            self.depth -= 1;
        }
        fn visit_expr_while(&mut self, node: &'ast syn::ExprWhile) {
            self.depth += 1;
            syn::visit::visit_expr_while(self, node);
            self.depth -= 1;
        }
        fn visit_expr_for_loop(&mut self, node: &'ast syn::ExprForLoop) {
            self.depth += 1;
            syn::visit::visit_expr_for_loop(self, node);
            self.depth -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder { label: source.label.as_ref().map(|label| &label.name), depth: 0, found: false };
    syn::visit::Visit::visit_block(&mut finder, &source.body);
    finder.found
}

pub(super) fn is_temporary(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Paren(node) => is_temporary(&node.expr),
        syn::Expr::Group(node) => is_temporary(&node.expr),
        syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Macro(_) | syn::Expr::Struct(_) => true,
        // `x?`'s value (`conn().await?.read().await`).
        syn::Expr::Try(_) => true,
        // `&|x| x + base` borrowed by an awaited call (`&dyn Fn(u32) -> u32`).
        syn::Expr::Closure(_) => true,
        syn::Expr::Tuple(_) | syn::Expr::Array(_) | syn::Expr::Repeat(_) => !is_constant(expr),
        _ => false,
    }
}

pub(super) fn is_constant(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Lit(_) => true,
        syn::Expr::Paren(node) => is_constant(&node.expr),
        syn::Expr::Unary(node) => matches!(node.op, syn::UnOp::Neg(_)) && is_constant(&node.expr),
        syn::Expr::Tuple(node) => node.elems.iter().all(is_constant),
        syn::Expr::Array(node) => node.elems.iter().all(is_constant),
        syn::Expr::Repeat(node) => is_constant(&node.expr),
        _ => false,
    }
}

pub(super) fn has_struct_literal(expr: &syn::Expr) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_struct(&mut self, _: &'ast syn::ExprStruct) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_expr(&mut finder, expr);
    finder.0
}

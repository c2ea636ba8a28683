//! Expressions taken apart for their awaits (A-normal form): each operand evaluated in
//! Rust's order, spilled into a temporary of the lowering's where an await after it could
//! change what it reads, so that every await stands at statement level.

use super::*;

impl Lower {
    /// `expr` without awaits: every await it contains, and everything evaluated before one,
    /// goes to `pre` as a temporary.
    pub(super) fn anf(&mut self, expr: &syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        if !self.needs(expr) {
            return expr.clone();
        }
        if let syn::Expr::Match(node) = expr
            && !has_await(expr)
            && !changes_anything(expr)
        {
            // Here only because its scrutinee borrows a temporary in an operand of an
            // await: the scrutinee's temporaries live to the end of the statement, not
            // of the `match`.
            let mut node = node.clone();
            let scrutinee = self.anf(&node.expr, pre);
            *node.expr = self.hoist_if_temporary(scrutinee, pre);
            return syn::Expr::Match(node);
        }
        if let Some(construct) = self.construct(expr, pre) {
            return self.spill_value(construct, pre, expr.span());
        }
        match expr {
            syn::Expr::Await(node) => {
                let operand = self.hoisting_temporaries(|this| this.anf(&node.base, pre));
                let value = Expr::Await(Await { operand, span: node.await_token.span });
                self.spill_value(value, pre, node.await_token.span)
            }
            syn::Expr::Paren(node) => {
                let inner = self.anf(&node.expr, pre);
                if let syn::Expr::Path(_) = inner {
                    // Computed into a temporary: parentheses around it would be linted.
                    return inner;
                }
                let mut node = node.clone();
                *node.expr = inner;
                syn::Expr::Paren(node)
            }
            syn::Expr::Group(node) => self.anf(&node.expr, pre),
            syn::Expr::Binary(node)
                if matches!(node.op, BinOp::And(_) | BinOp::Or(_))
                    && !has_await(&node.right)
                    && (is_copied_bool(&node.right) || !changes_anything(&node.right)) =>
            {
                // Both operands are scopes of their own for temporaries.
                let mut node = node.clone();
                *node.left = self.own_scope(&node.left, pre);
                syn::Expr::Binary(node)
            }
            syn::Expr::Binary(node) if matches!(node.op, BinOp::And(_) | BinOp::Or(_)) => {
                // `a && b` is `if a { b } else { false }`; `a || b` is `if a { true } else { b }`.
                let mut left = self.own_scope(&node.left, pre);
                // The condition of an `if` needs no parentheses (rustc would lint them), unless
                // it holds a struct literal.
                let bare = crate::classic::syntax::strip_parens(&left).clone();
                if !has_struct_literal(&bare) {
                    left = bare;
                }
                // Without awaits, `emit` may run it as written.
                let source = (!has_await(&node.right)).then(|| {
                    let right = &node.right;
                    match node.op {
                        BinOp::And(_) => parse_quote!(if #left { #right } else { false }),
                        _ => parse_quote!(if #left { true } else { #right }),
                    }
                });
                let right = Expr::Block(Box::new(self.expr_block(&node.right)));
                let constant = |value: bool| {
                    let lit: syn::Expr = parse_quote!(#value);
                    Expr::Block(Box::new(Block::plain(vec![Stmt::Expr(Expr::Plain(lit), false)])))
                };
                let (then_branch, else_branch) = match node.op {
                    BinOp::And(_) => (right, constant(false)),
                    _ => (constant(true), right),
                };
                let Expr::Block(then_branch) = then_branch else { unreachable!() };
                let construct = Expr::If(Box::new(If {
                    cond: left,
                    then_branch: *then_branch,
                    else_branch: Some(else_branch),
                    source,
                }));
                self.spill_value(construct, pre, expr.span())
            }
            syn::Expr::Binary(node) if assignments::is_compound(&node.op) => {
                // The right side of a compound assignment is evaluated first (for the
                // primitive types it is used with most).
                let mut node = node.clone();
                let right = self.anf(&node.right, pre);
                *node.right = if self.needs(&node.left) { self.spill(right, pre) } else { right };
                *node.left = self.anf_place(&node.left, pre);
                syn::Expr::Binary(node)
            }
            syn::Expr::Binary(node) => {
                let mut node = node.clone();
                // Arithmetic takes its operands by value; a comparison borrows them.
                let by_value = !is_comparison(&node.op);
                if !by_value && compared_with_what_may_change_it(&node.left, &node.right) {
                    *node.left = self.hold_compared(&node.left, pre);
                    *node.right = self.anf(&node.right, pre);
                    return syn::Expr::Binary(node);
                }
                let operands = vec![(*node.left).clone(), (*node.right).clone()];
                let [left, right]: [syn::Expr; 2] = self
                    .operand_list_moving(operands, pre, |_| by_value)
                    .try_into()
                    .unwrap_or_else(|_| unreachable!("two operands"));
                *node.left = left;
                *node.right = right;
                syn::Expr::Binary(node)
            }
            syn::Expr::Assign(node) => {
                let mut node = node.clone();
                let right = self.anf(&node.right, pre);
                *node.right = if self.needs(&node.left) { self.spill(right, pre) } else { right };
                *node.left = self.anf_place(&node.left, pre);
                syn::Expr::Assign(node)
            }
            syn::Expr::Call(node) => {
                let mut node = node.clone();
                let mut all: Vec<syn::Expr> =
                    std::iter::once((*node.func).clone()).chain(node.args.iter().cloned()).collect();
                all = self.operand_list_moving(all, pre, |index| index > 0);
                *node.func = all.remove(0);
                node.args = all.into_iter().collect();
                syn::Expr::Call(node)
            }
            syn::Expr::MethodCall(node) => {
                let mut node = node.clone();
                let mut all: Vec<syn::Expr> =
                    std::iter::once((*node.receiver).clone()).chain(node.args.iter().cloned()).collect();
                // (A receiver the method may borrow stays a place: it is read where the
                // method runs, and rustc keeps the arguments from changing it before.)
                // (A call's value the user's `moves` hint names, `d.to_t()` in
                // `d.to_t().finish().await`: the method takes it, as the plain code hands it over;
                // no temporary of the lowering's, in place, holds it.)
                let hinted = crate::classic::hints::moves_temporary(&node.receiver);
                let receiver_by_value = receivers::takes_receiver_by_value(&node.method.to_string()) || hinted;
                all = self.operand_list_moving(all, pre, |index| index > 0 || receiver_by_value);
                if !receiver_by_value {
                    self.keep_awaited_borrowed(&node.receiver, &all[0]);
                }
                let receiver = all.remove(0);
                *node.receiver = if hinted { receiver } else { self.hoist_if_temporary(receiver, pre) };
                node.args = all.into_iter().collect();
                syn::Expr::MethodCall(node)
            }
            syn::Expr::Field(node) => {
                let mut node = node.clone();
                let base = self.anf(&node.base, pre);
                if self.hoisting
                    && let Some(field) = self.hoist_literal_fields(&base, &node.member, pre)
                {
                    return field;
                }
                *node.base = self.hoist_if_temporary(base, pre);
                syn::Expr::Field(node)
            }
            syn::Expr::Index(node) => {
                let mut node = node.clone();
                let [base, index] = self.operands([&*node.expr, &*node.index], pre);
                *node.expr = if self.needs(&node.index) { base } else { self.hoist_if_temporary(base, pre) };
                *node.index = index;
                syn::Expr::Index(node)
            }
            syn::Expr::Unary(node) => {
                let mut node = node.clone();
                *node.expr = self.anf(&node.expr, pre);
                syn::Expr::Unary(node)
            }
            syn::Expr::Cast(node) => {
                let mut node = node.clone();
                *node.expr = self.anf(&node.expr, pre);
                syn::Expr::Cast(node)
            }
            syn::Expr::Reference(node) => {
                let mut node = node.clone();
                let referent = self.anf(&node.expr, pre);
                self.keep_awaited_borrowed(&node.expr, &referent);
                *node.expr = if node.mutability.is_some() && self.hoisting && is_constant(&referent) {
                    // `&mut ()`: rustc promotes no constant behind `&mut` (but `&mut []`), so it
                    // is a temporary of the statement like any other.
                    self.hoist(referent, pre)
                } else if self.hoisting && is_temporary(&referent) {
                    // What `&` borrows is the temporary itself, even at the end of a chain that
                    // starts at a hoisted one (`&name.trim().to_uppercase()`: the owned
                    // `String` the awaiter holds a borrow of).
                    self.hoist(referent, pre)
                } else {
                    referent
                };
                syn::Expr::Reference(node)
            }
            syn::Expr::Try(node) => {
                let mut node = node.clone();
                *node.expr = self.anf(&node.expr, pre);
                syn::Expr::Try(node)
            }
            syn::Expr::Tuple(node) => {
                let mut node = node.clone();
                node.elems =
                    self.operand_list_moving(node.elems.iter().cloned().collect(), pre, |_| true).into_iter().collect();
                syn::Expr::Tuple(node)
            }
            syn::Expr::Array(node) => {
                let mut node = node.clone();
                node.elems =
                    self.operand_list_moving(node.elems.iter().cloned().collect(), pre, |_| true).into_iter().collect();
                syn::Expr::Array(node)
            }
            syn::Expr::Repeat(node) => {
                let mut node = node.clone();
                *node.expr = self.anf(&node.expr, pre);
                syn::Expr::Repeat(node)
            }
            syn::Expr::Struct(node) => {
                let mut node = node.clone();
                let mut all: Vec<syn::Expr> = node.fields.iter().map(|field| field.expr.clone()).collect();
                all.extend(node.rest.as_deref().cloned());
                let mut all = self.operand_list_moving(all, pre, |_| true).into_iter();
                for field in node.fields.iter_mut() {
                    field.expr = all.next().expect("one operand per field");
                }
                if let Some(rest) = node.rest.as_mut() {
                    **rest = all.next().expect("the base operand");
                }
                syn::Expr::Struct(node)
            }
            syn::Expr::Range(node) => {
                let mut node = node.clone();
                match (node.start.as_mut(), node.end.as_mut()) {
                    (Some(start), Some(end)) => {
                        let [s, e] = self.operands([&**start, &**end], pre);
                        **start = s;
                        **end = e;
                    }
                    (Some(only), None) | (None, Some(only)) => **only = self.anf(only, pre),
                    (None, None) => {}
                }
                syn::Expr::Range(node)
            }
            syn::Expr::Return(node) => {
                let mut node = node.clone();
                if let Some(value) = node.expr.as_mut() {
                    **value = self.anf(value, pre);
                }
                syn::Expr::Return(node)
            }
            syn::Expr::Break(node) => {
                let mut node = node.clone();
                if let Some(value) = node.expr.as_mut() {
                    **value = self.anf(value, pre);
                }
                syn::Expr::Break(node)
            }
            syn::Expr::Macro(node) => self.std_macro(&node.mac, pre).unwrap_or_else(|| expr.clone()),
            syn::Expr::Let(node) => {
                let mut node = node.clone();
                *node.expr = self.anf(&node.expr, pre);
                syn::Expr::Let(node)
            }
            _ => {
                let span = awaits_span(expr).unwrap_or_else(|| expr.span());
                self.error(
                    span,
                    "classic lowering: an await in this position is not supported; bind it to a \
                     `let` first (`let value = ....await;`)",
                );
                expr.clone()
            }
        }
    }

    /// The target of an assignment: a place, evaluated after the assigned value.
    pub(super) fn anf_place(&mut self, expr: &syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        self.anf(expr, pre)
    }

    pub(super) fn operands<const N: usize>(&mut self, exprs: [&syn::Expr; N], pre: &mut Vec<Stmt>) -> [syn::Expr; N] {
        let list = self.operand_list(exprs.iter().map(|expr| (*expr).clone()).collect(), pre);
        list.try_into().unwrap_or_else(|_| unreachable!("one result per operand"))
    }

    /// Operands evaluated left to right: each one before the last that must be taken apart
    /// is computed into a temporary (with what it borrows hoisted: it runs before an await of
    /// the statement), unless reading it later gives the same value (a place, a literal).
    pub(super) fn operand_list(&mut self, exprs: Vec<syn::Expr>, pre: &mut Vec<Stmt>) -> Vec<syn::Expr> {
        self.operand_list_moving(exprs, pre, |_| false)
    }

    /// `operand_list` where the operands at `by_value` positions (call arguments, the parts
    /// of a literal) are taken by value: a local named there moves into its temporary before
    /// the awaits that follow, as Rust moves it (it drops with the statement's operands if
    /// the statement is cut short).
    pub(super) fn operand_list_moving(
        &mut self,
        exprs: Vec<syn::Expr>,
        pre: &mut Vec<Stmt>,
        by_value: impl Fn(usize) -> bool,
    ) -> Vec<syn::Expr> {
        let Some(last) = exprs.iter().rposition(|expr| self.needs(expr)) else {
            return exprs;
        };
        // An operand that takes a place by value where an operand after it (up to the last
        // taken apart) names it, and so may assign it (`v * { v *= 2; v }`), is read first,
        // into a temporary, as Rust reads it.
        // A comparison reads a primitive operand there too (`p < { p ^= q; 2 }` compares the
        // old `p`); one that a later operand assigns can only be primitive (rustc rejects
        // assigning a value that an overloaded comparison borrows), so it is copied first.
        let changed_later: Vec<bool> = (0..last)
            .map(|index| {
                read_root(&exprs[index]).is_some_and(|root| {
                    exprs[index + 1..=last].iter().any(|later| {
                        if by_value(index) {
                            mentions::of_expr(later).iter().any(|mention| mention.name == root)
                        } else {
                            assigns(later, &exprs[index])
                        }
                    })
                })
            })
            .collect();
        exprs
            .into_iter()
            .enumerate()
            .map(|(index, expr)| {
                if index < last {
                    let expr = self.hoisting_temporaries(|this| this.anf(&expr, pre));
                    // A place taken by value (`v`, `v.a`, `v[0]`, `*r`) moves or is copied
                    // where the operand is evaluated: into the statement's temporaries, which
                    // drop before the locals if an await after it is where the future stops.
                    // (Not a constant: `MAX`, `Self::LIMIT.0`.)
                    let place = read_root(&expr).is_some_and(|root| !root.starts_with(char::is_uppercase));
                    if is_stable(&expr) && !(place && by_value(index)) && !changed_later[index] {
                        expr
                    } else {
                        self.spill(expr, pre)
                    }
                } else if index == last {
                    self.anf(&expr, pre)
                } else {
                    expr
                }
            })
            .collect()
    }

    /// `let held = (&ComparedProbe(&place)).hold();` before the right operand, and
    /// `*Compared::get(&held)` as the operand (`lowering::__private::ComparedProbe`): a copy
    /// of a `Copy` value, a borrow of any other.
    pub(super) fn hold_compared(&mut self, left: &syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        let krate = self.krate.clone();
        let span = left.span();
        let probe: syn::Expr = parse_quote_spanned!(span=> {
            use #krate::__private::{HoldCopy as _, HoldRef as _};
            (&#krate::__private::ComparedProbe(&#left)).hold()
        });
        let held = self.spill(probe, pre);
        parse_quote_spanned!(span=> *#krate::__private::Compared::get(&#held))
    }

    pub(super) fn spill(&mut self, expr: syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        let span = expr.span();
        self.spill_value(Expr::Plain(expr), pre, span)
    }

    pub(super) fn spill_value(&mut self, value: Expr, pre: &mut Vec<Stmt>, span: Span) -> syn::Expr {
        let temp = self.temp_at(span);
        pre.push(Stmt::Let(Let {
            // `mut`: the value may be the receiver of a `&mut self` method, as a temporary
            // can be (`m.lock().await.push(x)` through `DerefMut`).
            attrs: vec![parse_quote!(#[allow(unused_mut)])],
            pat: parse_quote!(mut #temp),
            init: Some(value),
            diverge: None,
            span,
        }));
        parse_quote!(#temp)
    }
}

//! Temporaries a statement's awaits would outlive: hoisted into locals of the lowering's own
//! (`__h0`), declared where Rust's temporary would be, so that they live as long.

use super::*;

impl Lower {
    /// Must `expr` be taken apart: it awaits, (while hoisting) it borrows a temporary, or a
    /// branch inside it moves a variable (`emit` must see each path's locals).
    pub(super) fn needs(&self, expr: &syn::Expr) -> bool {
        has_await(expr) || (self.hoisting && has_borrowed_temporary(expr)) || changes_on_a_path(expr)
    }

    /// `lower` with the temporaries that `expr` borrows hoisted into locals.
    pub(super) fn hoisting_temporaries<T>(&mut self, lower: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.hoisting, true);
        let value = lower(self);
        self.hoisting = outer;
        value
    }

    /// `lower` in a scope of its own for temporaries (a statement, a condition, an operand
    /// of `&&` or `||`): what it borrows ends with it.
    pub(super) fn own_temporaries<T>(&mut self, lower: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.hoisting, false);
        let value = lower(self);
        self.hoisting = outer;
        value
    }

    /// `expr` in a scope of its own for temporaries (an operand of `&&` or `||`, a
    /// condition): what it computes before its awaits, the temporaries their operands
    /// borrow included, ends with it, in a block of its own.
    pub(super) fn own_scope(&mut self, expr: &syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        self.own_temporaries(|this| {
            let mut inner = Vec::new();
            let value = this.anf(expr, &mut inner);
            if inner.is_empty() {
                return value;
            }
            inner.push(Stmt::Expr(Expr::Plain(value), false));
            this.spill_value(Expr::Block(Box::new(Block::plain(inner))), pre, expr.span())
        })
    }

    /// While hoisting, a temporary in a borrowed position (computed by now) gets its local,
    /// unless it is computed from one that did (`make().name().len()` hoists `make()` only:
    /// what a method chain returns from a temporary usually borrows it, and has no
    /// destructor of its own).
    pub(super) fn hoist_if_temporary(&mut self, expr: syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        if !self.hoisting || !is_temporary(&expr) || self.borrows_hoisted(&expr) {
            return expr;
        }
        self.hoist(expr, pre)
    }

    /// A temporary of the statement: declared at the start of the statement's block, so that
    /// it drops after the operands computed for the statement's awaits (which Rust drops
    /// first when the statement is cut short, by a panic or by cancellation), and assigned
    /// where it is computed.
    pub(super) fn hoist(&mut self, expr: syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        let span = expr.span();
        // An await may hold a borrow of it, so it lives in place (`ir::Body::hoisted`).
        let mut temp = self.temp(HOISTED_PREFIX);
        temp.set_span(Span::mixed_site().located_at(span));
        let declared = pre
            .iter()
            .take_while(|stmt| matches!(stmt, Stmt::Let(node) if node.init.is_none() && self.is_hoisted(&node.pat)))
            .count();
        pre.insert(
            declared,
            Stmt::Let(Let { attrs: Vec::new(), pat: parse_quote!(#temp), init: None, diverge: None, span }),
        );
        pre.push(Stmt::Expr(Expr::Plain(parse_quote_spanned!(span=> #temp = #expr)), true));
        self.hoisted.insert(temp.to_string());
        parse_quote!(#temp)
    }

    /// An awaited value that a later await of the statement may hold a borrow of
    /// (`weigh(&make().await).await`, `make().await.get().await`, `&make().await.name`): the
    /// local the lowering computed it into (`lowered`, for `original`) lives in place, as a
    /// hoisted temporary does. A value moved on (`f(make().await).await`) needs no place.
    pub(super) fn keep_awaited_borrowed(&mut self, original: &syn::Expr, lowered: &syn::Expr) {
        if !self.hoisting {
            return;
        }
        let strip = crate::classic::syntax::strip_parens;
        let (mut original, mut lowered) = (original, lowered);
        loop {
            match (strip(original), strip(lowered)) {
                (syn::Expr::Field(from), syn::Expr::Field(to)) => {
                    original = &from.base;
                    lowered = &to.base;
                }
                (syn::Expr::Await(_), syn::Expr::Path(path)) => {
                    if let Some(temp) = path.path.get_ident() {
                        self.hoisted.insert(temp.to_string());
                    }
                    return;
                }
                _ => return,
            }
        }
    }

    pub(super) fn is_hoisted(&self, pat: &syn::Pat) -> bool {
        matches!(pat, syn::Pat::Ident(ident) if self.hoisted.contains(&ident.ident.to_string()))
    }

    /// `(a, b, c).1` or `Pair { a, b }.a` while hoisting: each field gets a local of its own,
    /// declared last field first, so that the ones not taken drop at the end of the
    /// statement in the order the temporary would drop them (a partly moved temporary cannot
    /// be saved whole). Returns the local holding `member`.
    pub(super) fn hoist_literal_fields(
        &mut self,
        base: &syn::Expr,
        member: &syn::Member,
        pre: &mut Vec<Stmt>,
    ) -> Option<syn::Expr> {
        let literal = crate::classic::syntax::strip_parens(base);
        let members: Vec<syn::Member> = match literal {
            syn::Expr::Tuple(tuple) if !tuple.elems.is_empty() => {
                (0..tuple.elems.len()).map(|index| syn::Member::Unnamed(syn::Index::from(index))).collect()
            }
            syn::Expr::Struct(node) if node.rest.is_none() && node.dot2_token.is_none() => {
                node.fields.iter().map(|field| field.member.clone()).collect()
            }
            _ => return None,
        };
        if !members.contains(member) {
            return None;
        }
        let whole = self.spill(base.clone(), pre);
        let mut taken = None;
        for field in members.iter().rev() {
            let local = self.hoist(parse_quote!(#whole.#field), pre);
            if field == member {
                taken = Some(local);
            }
        }
        taken
    }

    /// Is the receiver chain of `expr` rooted at a hoisted temporary?
    pub(super) fn borrows_hoisted(&self, expr: &syn::Expr) -> bool {
        match expr {
            syn::Expr::MethodCall(node) => self.borrows_hoisted(&node.receiver),
            syn::Expr::Field(node) => self.borrows_hoisted(&node.base),
            syn::Expr::Index(node) => self.borrows_hoisted(&node.expr),
            syn::Expr::Paren(node) => self.borrows_hoisted(&node.expr),
            syn::Expr::Reference(node) => self.borrows_hoisted(&node.expr),
            syn::Expr::Unary(node) => self.borrows_hoisted(&node.expr),
            syn::Expr::Path(path) => {
                path.path.get_ident().is_some_and(|ident| self.hoisted.contains(&ident.to_string()))
            }
            _ => false,
        }
    }

    /// `let sig = &make();`: Rust extends the temporary's life to the end of the block, as if
    /// it were a local declared just before `sig` (and dropped just after it). Written so:
    /// `let __h0 = make(); let sig = &__h0;`, a local of the function that lives in place. A
    /// constant (`&[1, 2]`, `&5`) is left alone: Rust promotes it to a `'static`, which a
    /// local would not be.
    ///
    /// The `&`'s operand may be a place inside the temporary: a field, an index or a `*` of it
    /// extends it too (`let items = &lock().await.items;` keeps the guard until the block
    /// ends: `let __h0 = lock().await; let items = &__h0.items;`). A method call's value is
    /// the temporary then, not its receiver's (`&lock().await.items.len()`), as in Rust.
    pub(super) fn extended_temporary(&mut self, local: &syn::Local) -> Option<(syn::Local, syn::Local)> {
        let init = local.init.as_ref().filter(|init| init.diverge.is_none())?;
        let syn::Expr::Reference(reference) = crate::classic::syntax::strip_parens(&init.expr) else { return None };
        if !reference.attrs.is_empty() {
            return None;
        }
        let mut place = (*reference.expr).clone();
        let extended = extended_operand(&mut place)?;
        if !is_extended_value(extended) {
            return None;
        }
        let span = extended.span();
        let name = self.extended_local(span);
        let mutability = reference.mutability;
        let syn::Stmt::Local(temporary) = parse_quote_spanned!(span=> let #mutability #name = #extended;) else {
            return None;
        };
        *extended = parse_quote_spanned!(span=> #name);
        let and = reference.and_token;
        let mut binding = local.clone();
        *binding.init.as_mut()?.expr = parse_quote_spanned!(span=> #and #mutability #place);
        Some((temporary, binding))
    }

    /// A fresh local for a temporary Rust extends, located at it: an await may hold what
    /// borrows it, so it lives in place (`ir::Body::hoisted`).
    fn extended_local(&mut self, span: Span) -> syn::Ident {
        let mut name = self.temp(HOISTED_PREFIX);
        name.set_span(Span::mixed_site().located_at(span));
        self.hoisted.insert(name.to_string());
        name
    }

    /// `let pair = (ev(1), &make());`, `let r = if c { &make() } else { &other };`: Rust extends
    /// a temporary borrowed where the `let`'s value is put together (an operand of a tuple, an
    /// array, a braced struct, a tuple struct or variant, a cast; a block's tail, an `if`'s or a
    /// `match` arm's value; the operand of such a `&`). Such a temporary is made there, maybe
    /// not at all, after the operands before it: it cannot be hoisted before the `let`. It is
    /// given a local declared (not assigned) before the `let`, and assigned where it is made:
    /// `let __h0; let r = if c { { __h0 = make(); &__h0 } } else { &other };`. Declared in
    /// order, the locals drop in the reverse order of the temporaries, after the `let`'s own.
    pub(super) fn extended_in_place(&mut self, local: &syn::Local) -> Option<(Vec<syn::Local>, syn::Local)> {
        local.init.as_ref().filter(|init| init.diverge.is_none())?;
        let mut binding = local.clone();
        let mut declarations = Vec::new();
        self.extend_in_place(&mut binding.init.as_mut()?.expr, &mut declarations);
        (!declarations.is_empty()).then_some((declarations, binding))
    }

    /// Walks the extending operands of `expr`, giving each borrowed temporary a declared local.
    fn extend_in_place(&mut self, expr: &mut syn::Expr, declarations: &mut Vec<syn::Local>) {
        match expr {
            syn::Expr::Reference(reference) if reference.attrs.is_empty() => {
                let mut place = (*reference.expr).clone();
                let Some(extended) = extended_operand(&mut place) else { return };
                if !is_extended_value(extended) {
                    // The operand of an extending `&` extends what it borrows in turn.
                    return self.extend_in_place(&mut reference.expr, declarations);
                }
                let span = extended.span();
                let name = self.extended_local(span);
                let mutability = reference.mutability;
                let made = std::mem::replace(extended, parse_quote_spanned!(span=> #name));
                let syn::Stmt::Local(declaration) = parse_quote_spanned!(span=> let #mutability #name;) else {
                    return;
                };
                declarations.push(declaration);
                let and = reference.and_token;
                *expr = parse_quote_spanned!(span=> { #name = #made; #and #mutability #place });
            }
            syn::Expr::Tuple(node) => node.elems.iter_mut().for_each(|elem| self.extend_in_place(elem, declarations)),
            syn::Expr::Array(node) => node.elems.iter_mut().for_each(|elem| self.extend_in_place(elem, declarations)),
            syn::Expr::Struct(node) => {
                node.fields.iter_mut().for_each(|field| self.extend_in_place(&mut field.expr, declarations))
            }
            syn::Expr::Call(node) if is_tuple_constructor(&node.func) => {
                node.args.iter_mut().for_each(|arg| self.extend_in_place(arg, declarations))
            }
            syn::Expr::Cast(node) => self.extend_in_place(&mut node.expr, declarations),
            syn::Expr::Paren(node) => self.extend_in_place(&mut node.expr, declarations),
            syn::Expr::Group(node) => self.extend_in_place(&mut node.expr, declarations),
            syn::Expr::Block(node) => self.extend_in_tail(&mut node.block, declarations),
            syn::Expr::Unsafe(node) => self.extend_in_tail(&mut node.block, declarations),
            syn::Expr::If(node) => {
                self.extend_in_tail(&mut node.then_branch, declarations);
                if let Some((_, otherwise)) = &mut node.else_branch {
                    self.extend_in_place(otherwise, declarations);
                }
            }
            syn::Expr::Match(node) => {
                node.arms.iter_mut().for_each(|arm| self.extend_in_place(&mut arm.body, declarations))
            }
            _ => {}
        }
    }

    fn extend_in_tail(&mut self, block: &mut syn::Block, declarations: &mut Vec<syn::Local>) {
        if let Some(syn::Stmt::Expr(tail, None)) = block.stmts.last_mut() {
            self.extend_in_place(tail, declarations);
        }
    }
}

/// Is `expr` a value Rust makes into a temporary that a `let` can extend: a temporary, or an
/// await's value (`&lock().await.items`)?
fn is_extended_value(expr: &syn::Expr) -> bool {
    is_temporary(expr) || matches!(expr, syn::Expr::Await(_))
}

/// Is `func` a tuple struct's or variant's name (`Some`, `Wrapper`, `Enum::Variant`)? Rust
/// extends what their arguments borrow and not a function's; the name alone tells them apart
/// as Rust's naming convention does (upper camel case), which a `fn` named so would defeat.
fn is_tuple_constructor(func: &syn::Expr) -> bool {
    let syn::Expr::Path(path) = func else { return false };
    path.qself.is_none()
        && path.path.segments.last().is_some_and(|segment| {
            segment.ident.to_string().chars().next().is_some_and(char::is_uppercase)
                && segment.ident.to_string().chars().any(char::is_lowercase)
        })
}

/// The operand whose temporary a `&` of `place` extends: `place` itself, or what a field, an
/// index (its indexed operand, not the index) or a `*` is taken from, followed down to a value
/// that is not such a place. `None` for an attribute on the way (`&(#[cfg(..)] x).f`), which
/// is left as written.
fn extended_operand(place: &mut syn::Expr) -> Option<&mut syn::Expr> {
    let attrs = match &*place {
        syn::Expr::Field(node) => &node.attrs,
        syn::Expr::Index(node) => &node.attrs,
        syn::Expr::Unary(node) if matches!(node.op, syn::UnOp::Deref(_)) => &node.attrs,
        syn::Expr::Paren(node) => &node.attrs,
        _ => return Some(place),
    };
    if !attrs.is_empty() {
        return None;
    }
    let operand = match place {
        syn::Expr::Field(node) => &mut node.base,
        syn::Expr::Index(node) => &mut node.expr,
        syn::Expr::Unary(node) => &mut node.expr,
        syn::Expr::Paren(node) => &mut node.expr,
        _ => return None,
    };
    extended_operand(operand)
}

//! User code moved into `move_next`: what must change for it to mean the same thing there.
//!
//! - `self` becomes the state machine's local for it (a closure cannot bind `self`).
//! - `return e` returns `Poll::Ready(e)` from `move_next`.
//! - `?` on an `Option` in a function returning `Option` is spelled out (`Poll<Option<T>>` is
//!   not a `Try` type; `?` on a `Result` works unchanged inside `Poll<Result<T, E>>`).
//! - `break` and `continue` aimed at a loop (or labelled block) that `emit` split across
//!   states become a jump to that loop's head or exit state.
//!
//! Closures, async blocks and nested items own their `return`, `?`, `break` and `continue`;
//! only `self` is renamed inside closures and async blocks, which capture it.

use std::rc::Rc;

use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::visit_mut::{self, VisitMut};

use crate::classic::syntax::jumps::Targets;
use crate::classic::syntax::mentions::Mention;

/// Where a value computed by user code goes.
#[derive(Clone)]
pub(crate) enum Sink {
    /// A statement's value, dropped.
    Discard,
    /// A construct's value, stored in the slot of a hidden local (its variable and slot), as
    /// a value of the type its `let` declares, if it declares one (`stored_value`).
    Assign(usize, Ident, Option<Rc<syn::Type>>),
    /// The function's result.
    Return,
}

/// A value stored into a sink's slot, of the type the `let` it initializes declares, if any
/// (`let out: Box<dyn Display> = if c { Box::new(a) } else { Box::new(b) };`): each value is
/// coerced to that type where it is computed, as the plain `let` coerces each branch's, rather
/// than fixing the slot's type by the first one stored; a mismatch is rustc's error at the
/// value, in the plain function's words (the value is a block's tail: no label points at the
/// lowering's own `let`). The parentheses keep a value that begins like a statement (`match ..
/// {} | x`, an await's value) one expression; rustc reports at the value inside them, as their
/// span (the attribute's) does not contain it.
pub(crate) fn stored_value(value: TokenStream, declared: Option<&syn::Type>) -> TokenStream {
    match declared {
        None => value,
        Some(ty) => {
            let typed = Ident::new("__lowering_typed", proc_macro2::Span::mixed_site());
            quote!({ let #typed: #ty = { (#value) }; #typed })
        }
    }
}

/// A split loop or labelled block that `break`/`continue` in user code may target.
pub(crate) struct JumpTarget {
    pub label: Option<String>,
    /// A loop (targeted by unlabelled `break`/`continue`), not a labelled block.
    pub is_loop: bool,
    pub sink: Sink,
}

/// How a `break` or `continue` found in user code leaves.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Jump {
    pub target: usize,
    pub is_continue: bool,
    /// `break 'label value`: the target's sink holds the value when the jump saves.
    pub has_value: bool,
    /// The variables the value uses by value: moved before the jump saves the rest.
    pub moves: Vec<String>,
    /// The fields of variables the value uses by value (`break consume(v.a)`): the jump
    /// saves those variables as partly moved.
    pub field_moves: Vec<FieldMove>,
}

/// A `MoveField` mention of a jump's value; two are the same if they name the same field.
#[derive(Clone)]
pub(crate) struct FieldMove(pub Mention);

impl FieldMove {
    fn key(&self) -> (&str, String) {
        (&self.0.name, self.0.field.as_ref().map(|field| field.to_token_stream().to_string()).unwrap_or_default())
    }
}

impl PartialEq for FieldMove {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for FieldMove {}

impl std::fmt::Debug for FieldMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.key())
    }
}

pub(crate) struct Rewriter<'a> {
    pub self_ident: Option<&'a Ident>,
    pub option_return: bool,
    /// The function's result type: a returned value is stored as one (`stored_value`), so
    /// that a value of another type is a mismatch at the user's expression, as in the plain
    /// function, not at `Poll::Ready` (where rustc would also point into `core`).
    pub result_type: Option<&'a syn::Type>,
    pub targets: &'a [JumpTarget],
    /// The code of each jump (filled by `emit` for the jumps `scan` found).
    pub jumps: Vec<(Jump, TokenStream)>,
    /// Found jumps (scan mode) instead of rewriting them.
    scanning: bool,
    found: Vec<Jump>,
    /// The loops and labelled blocks of the code being rewritten around the current point:
    /// a jump to one of them stays as written.
    inside: Targets,
    closure_depth: usize,
}

impl<'a> Rewriter<'a> {
    pub(crate) fn new(
        self_ident: Option<&'a Ident>,
        option_return: bool,
        result_type: Option<&'a syn::Type>,
        targets: &'a [JumpTarget],
    ) -> Self {
        Rewriter {
            self_ident,
            option_return,
            result_type,
            targets,
            jumps: Vec::new(),
            scanning: false,
            found: Vec::new(),
            inside: Targets::default(),
            closure_depth: 0,
        }
    }

    /// The jumps out of `expr` that need `emit`'s code.
    pub(crate) fn scan_expr(&mut self, expr: &syn::Expr) -> Vec<Jump> {
        self.scan(|this| this.visit_expr_mut(&mut expr.clone()))
    }

    pub(crate) fn scan_stmt(&mut self, stmt: &syn::Stmt) -> Vec<Jump> {
        self.scan(|this| this.visit_stmt_mut(&mut stmt.clone()))
    }

    /// Runs `visit` (on a copy of the code) in scan mode: the jumps it meets, once each.
    fn scan(&mut self, visit: impl FnOnce(&mut Self)) -> Vec<Jump> {
        self.scanning = true;
        self.found.clear();
        visit(self);
        self.scanning = false;
        dedup(std::mem::take(&mut self.found))
    }

    pub(crate) fn expr(&mut self, expr: &syn::Expr) -> syn::Expr {
        let mut expr = expr.clone();
        self.visit_expr_mut(&mut expr);
        expr
    }

    pub(crate) fn stmt(&mut self, stmt: &syn::Stmt) -> syn::Stmt {
        let mut stmt = stmt.clone();
        self.visit_stmt_mut(&mut stmt);
        stmt
    }

    pub(crate) fn pat(&mut self, pat: &syn::Pat) -> syn::Pat {
        let mut pat = pat.clone();
        self.visit_pat_mut(&mut pat);
        pat
    }

    /// `Poll::Ready(value)` returned from `move_next`, the value stored as the result type.
    pub(crate) fn ready(&self, value: TokenStream, span: proc_macro2::Span) -> TokenStream {
        let value = stored_value(value, self.result_type);
        quote_spanned!(span=> return ::core::task::Poll::Ready(#value))
    }

    /// The target of a `break`/`continue` with this label (or none) that leaves the
    /// rewritten code, if it is a split one.
    fn target(&self, label: Option<&syn::Lifetime>) -> Option<usize> {
        if self.closure_depth > 0 || !self.inside.escapes(label) {
            return None;
        }
        match label {
            Some(label) => {
                let name = label.ident.to_string();
                self.targets.iter().rposition(|target| target.label.as_deref() == Some(&name))
            }
            None => self.targets.iter().rposition(|target| target.is_loop),
        }
    }

    /// Visit code inside a loop (`is_loop`) or a block with this label.
    fn nested(&mut self, label: Option<&syn::Label>, is_loop: bool, visit: impl FnOnce(&mut Self)) {
        let inner = self.inside.inside(label, is_loop);
        let outer = std::mem::replace(&mut self.inside, inner);
        visit(self);
        self.inside = outer;
    }

    fn jump_code(&self, jump: Jump) -> TokenStream {
        self.jumps
            .iter()
            .find(|(known, _)| *known == jump)
            .map(|(_, code)| code.clone())
            .unwrap_or_else(|| quote!(::core::unreachable!("lowering: a jump without code")))
    }

    fn rename_self_in_tokens(&self, tokens: TokenStream) -> TokenStream {
        let Some(self_ident) = self.self_ident else {
            return tokens;
        };
        let mut out = Vec::new();
        let mut iter = tokens.into_iter().peekable();
        while let Some(token) = iter.next() {
            match token {
                TokenTree::Ident(ident) if ident == "self" => {
                    let is_path = matches!(iter.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                    if is_path {
                        out.push(TokenTree::Ident(ident));
                    } else {
                        let mut renamed = self_ident.clone();
                        renamed.set_span(ident.span().resolved_at(self_ident.span()));
                        out.push(TokenTree::Ident(renamed));
                    }
                }
                TokenTree::Group(group) => {
                    let mut new = Group::new(group.delimiter(), self.rename_self_in_tokens(group.stream()));
                    new.set_span(group.span());
                    out.push(TokenTree::Group(new));
                }
                other => out.push(other),
            }
        }
        out.into_iter().collect()
    }
}

/// The variables `value` uses by value (a `break` value: computed before the jump saves).
fn moved_by(value: &syn::Expr) -> Vec<String> {
    crate::classic::syntax::mentions::of_expr(value)
        .into_iter()
        .filter(|mention| mention.kind == crate::classic::syntax::mentions::Kind::Move)
        .map(|mention| mention.name)
        .collect()
}

fn fields_moved_by(value: &syn::Expr) -> Vec<FieldMove> {
    crate::classic::syntax::mentions::of_expr(value)
        .into_iter()
        .filter(|mention| mention.kind == crate::classic::syntax::mentions::Kind::MoveField)
        .map(FieldMove)
        .collect()
}

fn dedup(mut jumps: Vec<Jump>) -> Vec<Jump> {
    let mut seen = Vec::new();
    jumps.retain(|jump| {
        let new = !seen.contains(jump);
        seen.push(jump.clone());
        new
    });
    jumps
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        match expr {
            syn::Expr::Path(path) if path.qself.is_none() && path.path.is_ident("self") => {
                if let Some(self_ident) = self.self_ident {
                    let span = path.path.segments[0].ident.span();
                    let mut renamed = self_ident.clone();
                    renamed.set_span(span.resolved_at(self_ident.span()));
                    *expr = syn::Expr::Verbatim(renamed.into_token_stream());
                }
            }
            syn::Expr::Return(node) if self.closure_depth == 0 => {
                let span = node.return_token.span;
                let value = match node.expr.as_mut() {
                    Some(value) => {
                        self.visit_expr_mut(value);
                        value.to_token_stream()
                    }
                    None => quote_spanned!(span=> ()),
                };
                *expr = syn::Expr::Verbatim(self.ready(value, span));
            }
            syn::Expr::Try(node) if self.closure_depth == 0 && self.option_return => {
                self.visit_expr_mut(&mut node.expr);
                let inner = &node.expr;
                let span = node.question_token.span;
                *expr = syn::Expr::Verbatim(quote_spanned! {span=>
                    match #inner {
                        ::core::option::Option::Some(value) => value,
                        ::core::option::Option::None => return ::core::task::Poll::Ready(::core::option::Option::None),
                    }
                });
            }
            syn::Expr::Break(node) => {
                let moves = node.expr.as_deref().map(moved_by).unwrap_or_default();
                let field_moves = node.expr.as_deref().map(fields_moved_by).unwrap_or_default();
                if let Some(value) = node.expr.as_mut() {
                    self.visit_expr_mut(value);
                }
                let Some(target) = self.target(node.label.as_ref()) else {
                    return;
                };
                let jump = Jump { target, is_continue: false, has_value: node.expr.is_some(), moves, field_moves };
                if self.scanning {
                    self.found.push(jump);
                    return;
                }
                let code = self.jump_code(jump);
                let span = node.break_token.span;
                let store = match (&self.targets[target].sink, node.expr.as_ref()) {
                    (_, None) => quote!(),
                    // Dropped here, as the value of a loop whose statement ends with it (`drop` would
                    // lint on a `Copy` value, which the plain function never does). A block makes
                    // it a value (`let _ = v;` would leave `v` where it is), and the parentheses
                    // keep a value that begins like a statement (`match .. {} + 1`, an await's
                    // value) one expression.
                    (Sink::Discard, Some(value)) => quote_spanned!(span=> let _ = { (#value) };),
                    (Sink::Assign(_, field, declared), Some(value)) => {
                        let sm = Ident::new("__sm", proc_macro2::Span::mixed_site());
                        let value = stored_value(value.to_token_stream(), declared.as_deref());
                        quote_spanned!(span=> #sm.#field = ::core::option::Option::Some(#value);)
                    }
                    (Sink::Return, Some(value)) => {
                        let ready = self.ready(value.to_token_stream(), span);
                        quote!(#ready;)
                    }
                };
                *expr = syn::Expr::Verbatim(quote_spanned!(span=> { #store #code }));
            }
            syn::Expr::Continue(node) => {
                let Some(target) = self.target(node.label.as_ref()) else {
                    return;
                };
                let jump =
                    Jump { target, is_continue: true, has_value: false, moves: Vec::new(), field_moves: Vec::new() };
                if self.scanning {
                    self.found.push(jump);
                    return;
                }
                let code = self.jump_code(jump);
                let span = node.continue_token.span;
                *expr = syn::Expr::Verbatim(quote_spanned!(span=> { #code }));
            }
            syn::Expr::Loop(_) | syn::Expr::While(_) | syn::Expr::ForLoop(_) => {
                let label = match expr {
                    syn::Expr::Loop(node) => node.label.clone(),
                    syn::Expr::While(node) => node.label.clone(),
                    syn::Expr::ForLoop(node) => node.label.clone(),
                    _ => unreachable!(),
                };
                self.nested(label.as_ref(), true, |this| visit_mut::visit_expr_mut(this, expr));
            }
            syn::Expr::Block(node) if node.label.is_some() => {
                let label = node.label.clone();
                self.nested(label.as_ref(), false, |this| visit_mut::visit_expr_mut(this, expr));
            }
            syn::Expr::Closure(_) | syn::Expr::Async(_) => {
                self.closure_depth += 1;
                visit_mut::visit_expr_mut(self, expr);
                self.closure_depth -= 1;
            }
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        // A standard macro's arguments are expressions: a `return`, `?`, `break` or
        // `continue` among them is rewritten like any other.
        if let Some(Ok(mut parsed)) = crate::classic::syntax::std_macros::parse(mac) {
            for expr in parsed.exprs_mut() {
                self.visit_expr_mut(expr);
            }
            mac.tokens = parsed.arguments();
            return;
        }
        mac.tokens = self.rename_self_in_tokens(mac.tokens.clone());
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

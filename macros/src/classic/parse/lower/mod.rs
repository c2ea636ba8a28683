//! From the `syn` body to the lowered tree of `ir`: awaits moved to statement level, in
//! Rust's evaluation order, and loops reduced to `loop`.

use proc_macro2::Span;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::{BinOp, parse_quote, parse_quote_spanned};

use quote::ToTokens;

use super::awaits;
use super::ir::{Arm, Await, Block, Body, Expr, If, Let, Loop, Match, Stmt};
use crate::classic::syntax::std_macros;
use crate::classic::syntax::{assignments, jumps, mentions, receivers};

mod anf;
mod borrowed_where_made;
mod hoisting;
mod shapes;

use shapes::*;
pub(crate) use shapes::{
    HOISTED_PREFIX, compared_with_what_may_change_it, is_comparison, is_operand_temporary, stmt_changes_on_a_path,
};

pub(crate) struct Lower {
    errors: Vec<syn::Error>,
    next_temp: usize,
    /// Lowering code that runs before an await of its statement: every temporary it borrows
    /// (`&make()`, `make().len()`, `(a, b).0`) lives to the end of the statement in Rust, past
    /// the await, so it gets a local of its own in the statement's block
    /// (`hoisting_temporaries`).
    hoisting: bool,
    /// The locals `hoist` and `extended_temporary` made (`ir::Body::hoisted`).
    hoisted: std::collections::HashSet<String>,
    /// The runtime crate's path, for the support code some operands need (`hold_compared`).
    krate: syn::Path,
}

/// Lower a function body. All errors are reported together.
pub(crate) fn body(block: &syn::Block, krate: &syn::Path) -> syn::Result<Body> {
    let mut lower =
        Lower { errors: Vec::new(), next_temp: 0, hoisting: false, hoisted: Default::default(), krate: krate.clone() };
    let mut lowered = lower.block(block);
    borrowed_where_made::merge(&mut lowered, &lower.hoisted);
    let mut errors = lower.errors.into_iter();
    match errors.next() {
        None => Ok(Body { block: lowered, hoisted: lower.hoisted }),
        Some(mut first) => {
            errors.for_each(|error| first.combine(error));
            Err(first)
        }
    }
}

fn has_await(expr: &syn::Expr) -> bool {
    awaits::in_expr(expr)
}

impl Lower {
    fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// A fresh temporary: invisible to user code (mixed-site hygiene); `is_lowering_temporary` knows it.
    fn temp(&mut self, prefix: &str) -> syn::Ident {
        let index = self.next_temp;
        self.next_temp += 1;
        syn::Ident::new(&format!("__{prefix}{index}"), Span::mixed_site())
    }

    /// A fresh temporary located at the code it holds, so that rustc's notes about it point
    /// there.
    fn temp_at(&mut self, span: Span) -> syn::Ident {
        let mut temp = self.temp(OPERAND_PREFIX);
        temp.set_span(Span::mixed_site().located_at(span));
        temp
    }

    fn block(&mut self, block: &syn::Block) -> Block {
        Block { span: Some(block.brace_token.span.join()), ..Block::plain(self.stmts(&block.stmts)) }
    }

    fn stmts(&mut self, stmts: &[syn::Stmt]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for stmt in stmts {
            self.stmt(stmt, &mut out);
        }
        out
    }

    fn stmt(&mut self, stmt: &syn::Stmt, out: &mut Vec<Stmt>) {
        self.own_temporaries(|this| this.stmt_in_scope(stmt, out));
    }

    fn stmt_in_scope(&mut self, stmt: &syn::Stmt, out: &mut Vec<Stmt>) {
        match stmt {
            syn::Stmt::Local(local) => self.local(local, out),
            syn::Stmt::Expr(expr, semi) => {
                let mut pre = Vec::new();
                let value = self.value(expr, &mut pre);
                let semi = semi.is_some();
                if pre.is_empty() {
                    out.push(Stmt::Expr(value, semi));
                } else {
                    // Temporaries live until the end of their statement: the statement
                    // becomes a block holding them.
                    pre.push(Stmt::Expr(value, false));
                    out.push(Stmt::Expr(Expr::Block(Box::new(Block::plain(pre))), semi));
                }
            }
            syn::Stmt::Macro(stmt_macro) => {
                if !awaits::in_macro(&stmt_macro.mac) {
                    out.push(Stmt::Verbatim(stmt.clone()));
                    return;
                }
                // As an expression statement, so that the standard macros' awaits are lowered.
                let expr =
                    syn::Expr::Macro(syn::ExprMacro { attrs: stmt_macro.attrs.clone(), mac: stmt_macro.mac.clone() });
                let semi = stmt_macro.semi_token.or_else(|| Some(Default::default()));
                self.stmt(&syn::Stmt::Expr(expr, semi), out);
            }
            syn::Stmt::Item(_) => out.push(Stmt::Verbatim(stmt.clone())),
        }
    }

    fn macro_await(&mut self, span: Span, mac: &syn::Macro) {
        let name = mac.path.segments.last().map(|segment| segment.ident.to_string()).unwrap_or_default();
        self.error(
            span,
            format!(
                "classic lowering: cannot see inside `{name}!`, so it cannot save what the macro \
                 holds across this await; bind the await to a `let` first \
                 (`let value = ....await;`) and pass `value` to the macro"
            ),
        );
    }

    /// A standard macro whose arguments await: the awaits (and the arguments evaluated before
    /// them) are computed first, in the macro's order, and the macro is invoked on the results.
    /// `assert!` is spelled out so that its message still shows the condition as written.
    fn std_macro(&mut self, mac: &syn::Macro, pre: &mut Vec<Stmt>) -> Option<syn::Expr> {
        let span = awaits::in_tokens(&mac.tokens).unwrap_or_else(|| mac.path.span());
        let mut parsed = match std_macros::parse(mac) {
            Some(Ok(parsed)) => parsed,
            _ => {
                self.macro_await(span, mac);
                return None;
            }
        };
        match &parsed.kind {
            std_macros::Kind::Dbg(_) => {
                self.error(
                    span,
                    "classic lowering: `dbg!` prints the text of its argument, which an await inside \
                     would change; bind the await to a `let` first and pass the value to `dbg!`",
                );
                return None;
            }
            std_macros::Kind::Assert { debug, cond, message } => {
                let stringified = std_macros::first_argument_as_written(mac).unwrap_or_else(|| cond.to_token_stream());
                let message = match message {
                    Some(args) => {
                        let tokens =
                            std_macros::Parsed { kind: std_macros::Kind::Format(Some(args.clone())) }.arguments();
                        quote::quote!(::core::panic!(#tokens))
                    }
                    // The standard message, a `&'static str` payload as `assert!`'s, whose
                    // braces (`assert!({ let k = f().await; k > 0 })`) are no format string;
                    // at the macro's name, where `assert!` reports its location.
                    None => quote_spanned!(mac.path.span()=> ::std::panic::panic_any(::core::concat!(
                        "assertion failed: ",
                        ::core::stringify!(#stringified)
                    ))),
                };
                let check: syn::Expr = if *debug {
                    parse_quote_spanned!(span=> if ::core::cfg!(debug_assertions) { if !(#cond) { #message } })
                } else {
                    parse_quote_spanned!(span=> if !(#cond) { #message })
                };
                let value = self.construct(&check, pre).expect("an `if` is a construct");
                self.spill_value(value, pre, span);
                return Some(parse_quote!(()));
            }
            // A message is formatted only when the assertion fails: one that awaits is
            // spelled out as the standard macro's `match` and `if`, so that its awaits run
            // only then, with the standard message.
            std_macros::Kind::AssertCmp { left, right, message: Some(args) }
                if args.args.iter().any(|arg| awaits::in_expr(&arg.expr)) =>
            {
                let name = mac.path.segments.last().map(|segment| segment.ident.to_string()).unwrap_or_default();
                let (op, failed) = if name.ends_with("_ne") {
                    (quote::quote!(!=), quote::quote!(==))
                } else {
                    (quote::quote!(==), quote::quote!(!=))
                };
                let header = format!("assertion `left {op} right` failed: {{}}\n  left: {{}}\n right: {{}}");
                let tokens = std_macros::Parsed { kind: std_macros::Kind::Format(Some(args.clone())) }.arguments();
                let [left_value, right_value, failure, message] = ["__left", "__right", "__failure", "__message"]
                    .map(|name| syn::Ident::new(name, Span::mixed_site()));
                // The compared values are written out (`Debug`) when the comparison fails,
                // before the message's awaits, which then hold no borrow of them.
                let body: syn::Expr = parse_quote_spanned!(span=> {
                    let #failure = match (&(#left), &(#right)) {
                        (#left_value, #right_value) => {
                            if *#left_value #failed *#right_value {
                                ::core::option::Option::Some((
                                    ::std::format!("{:?}", #left_value),
                                    ::std::format!("{:?}", #right_value),
                                ))
                            } else {
                                ::core::option::Option::None
                            }
                        }
                    };
                    if let ::core::option::Option::Some((#left_value, #right_value)) = #failure {
                        let #message = ::std::format!(#tokens);
                        ::core::panic!(#header, #message, #left_value, #right_value)
                    }
                });
                let check: syn::Expr = if name.starts_with("debug_") {
                    parse_quote_spanned!(span=> if ::core::cfg!(debug_assertions) #body)
                } else {
                    body
                };
                let value = self.construct(&check, pre).expect("an `if` or a `match` is a construct");
                self.spill_value(value, pre, span);
                return Some(parse_quote!(()));
            }
            _ => {}
        }
        let exprs: Vec<syn::Expr> = parsed.exprs_mut().into_iter().map(|expr| expr.clone()).collect();
        let lowered = self.operand_list(exprs, pre);
        for (slot, expr) in parsed.exprs_mut().into_iter().zip(lowered) {
            *slot = expr;
        }
        let mut mac = mac.clone();
        mac.tokens = parsed.arguments();
        Some(syn::Expr::Macro(syn::ExprMacro { attrs: Vec::new(), mac }))
    }

    fn local(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
        if let Some((temporary, local)) = self.extended_temporary(local) {
            self.local(&temporary, out);
            return self.local(&local, out);
        }
        if let Some((declarations, local)) = self.extended_in_place(local) {
            for declaration in &declarations {
                self.local(declaration, out);
            }
            return self.local(&local, out);
        }
        let span = local.let_token.span;
        let Some(init) = &local.init else {
            out.push(Stmt::Let(Let {
                attrs: local.attrs.clone(),
                pat: local.pat.clone(),
                init: None,
                diverge: None,
                span,
            }));
            return;
        };
        // A `let .. else` that awaits becomes two `match`es, so that its `else` block is a path
        // of code the analyses follow (what it reads lives across the initializer's awaits).
        // So does one whose `else` block leaves by `break` or `continue`: the jump's code saves
        // the locals by name, which a `let` of that block may hide (`let p = &x; continue;`).
        if let Some((_, diverge)) = &init.diverge
            && (awaits::in_expr(diverge) || awaits::in_expr(&init.expr) || jumps::jumps_out_of(diverge))
        {
            return self.let_else_with_await(local, out);
        }
        let diverge = init.diverge.as_ref().map(|(_, diverge)| match &**diverge {
            syn::Expr::Block(block) => block.block.clone(),
            other => parse_quote!({ #other }),
        });
        let mut pre = Vec::new();
        let value = self.value(&init.expr, &mut pre);
        if pre.is_empty() {
            out.push(Stmt::Let(Let {
                attrs: local.attrs.clone(),
                pat: local.pat.clone(),
                init: Some(value),
                diverge,
                span,
            }));
            return;
        }
        let mut bindings = Vec::new();
        crate::classic::syntax::bindings::pattern_bindings(&local.pat, &mut bindings);
        let whole_value = matches!(&local.pat, syn::Pat::Ident(ident) if ident.subpat.is_none())
            || matches!(&local.pat, syn::Pat::Type(typed) if matches!(&*typed.pat, syn::Pat::Ident(ident) if ident.subpat.is_none()));
        if whole_value || diverge.is_some() || bindings.iter().any(|binding| binding.by_ref) {
            pre.push(Stmt::Expr(value, false));
            let init = Expr::Block(Box::new(Block::plain(pre)));
            out.push(Stmt::Let(Let {
                attrs: local.attrs.clone(),
                pat: local.pat.clone(),
                init: Some(init),
                diverge,
                span,
            }));
            return;
        }
        // What the pattern leaves unbound drops at the end of the `let`, before the
        // temporaries computed for its awaits: the pattern is matched inside the block that
        // holds them, and the bindings leave it as a tuple.
        // `let (a, _) = { pre; value };` is `let (a,) = { pre; let (a, _) = value; (a,) };`
        let names: Vec<&syn::Ident> = bindings.iter().map(|binding| &binding.ident).collect();
        let outer: syn::Pat = {
            let items = bindings.iter().map(|binding| {
                let ident = &binding.ident;
                if binding.mutable { quote::quote!(mut #ident) } else { quote::quote!(#ident) }
            });
            parse_quote!((#(#items,)*))
        };
        let pat = &local.pat;
        pre.push(Stmt::Let(Let {
            attrs: vec![parse_quote!(#[allow(unused_mut)])],
            pat: parse_quote!(#pat),
            init: Some(value),
            diverge: None,
            span,
        }));
        pre.push(Stmt::Expr(Expr::Plain(parse_quote!((#(#names,)*))), false));
        let init = Expr::Block(Box::new(Block::plain(pre)));
        out.push(Stmt::Let(Let { attrs: local.attrs.clone(), pat: outer, init: Some(init), diverge: None, span }));
    }

    /// `let P = e else { .. };`, with an await in `e` or in the block, is
    /// `let m = match e { P => Some((a, b)), _ => None }; let (a, b) = match m { Some(t) => t,
    /// None => { .. } };`: matched in a statement of its own, so that `e`'s temporaries and a
    /// value that does not match drop before the `else` block runs, as they do in Rust.
    fn let_else_with_await(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
        let init = local.init.as_ref().expect("checked by the caller");
        let (_, diverge) = init.diverge.as_ref().expect("checked by the caller");
        let mut bindings = Vec::new();
        crate::classic::syntax::bindings::pattern_bindings(&local.pat, &mut bindings);
        let names: Vec<_> = bindings.iter().map(|binding| &binding.ident).collect();
        let outer: Vec<_> = bindings
            .iter()
            .map(|binding| {
                let ident = &binding.ident;
                if binding.mutable {
                    quote_spanned!(ident.span()=> mut #ident)
                } else {
                    quote_spanned!(ident.span()=> #ident)
                }
            })
            .collect();
        let pat = &local.pat;
        // `let P = (if ..) else { .. }` needs its parentheses; the `match` does not.
        let expr = crate::classic::syntax::strip_parens(&init.expr);
        let span = local.let_token.span;
        let mut matched = self.temp("m");
        matched.set_span(Span::mixed_site().located_at(span));
        let matching: syn::Stmt = parse_quote_spanned! {span=>
            let #matched = match #expr {
                #[allow(unused_mut)]
                #pat => ::core::option::Option::Some((#(#names,)*)),
                _ => ::core::option::Option::None,
            };
        };
        let bound: syn::Stmt = parse_quote_spanned! {span=>
            let (#(#outer,)*) = match #matched {
                ::core::option::Option::Some(bound) => bound,
                ::core::option::Option::None => #diverge,
            };
        };
        for rewritten in [matching, bound] {
            let syn::Stmt::Local(rewritten) = rewritten else { unreachable!("parsed as a `let`") };
            self.local(&rewritten, out);
        }
    }

    /// An expression whose value its statement uses: an await, a construct, or plain code
    /// (after `pre`, which computes what it awaits).
    fn value(&mut self, expr: &syn::Expr, pre: &mut Vec<Stmt>) -> Expr {
        if let Some(construct) = self.construct(expr, pre) {
            return construct;
        }
        match expr {
            syn::Expr::Await(node) => {
                // What the operand borrows lives to the end of the statement, past the await.
                let operand = self.hoisting_temporaries(|this| this.anf(&node.base, pre));
                Expr::Await(Await { operand, span: node.await_token.span })
            }
            syn::Expr::Paren(node) if has_await(expr) => self.value(&node.expr, pre),
            _ => Expr::Plain(self.anf(expr, pre)),
        }
    }

    /// A block as a lowered block with its value as tail.
    fn expr_block(&mut self, expr: &syn::Expr) -> Block {
        match expr {
            syn::Expr::Block(block) if block.label.is_none() => self.block(&block.block),
            _ => {
                let mut stmts = Vec::new();
                self.stmt(&syn::Stmt::Expr(expr.clone(), None), &mut stmts);
                Block::plain(stmts)
            }
        }
    }

    /// `if`, `match` and loops always; blocks when they contain an await.
    fn construct(&mut self, expr: &syn::Expr, pre: &mut Vec<Stmt>) -> Option<Expr> {
        let awaits = has_await(expr);
        let source = if awaits { None } else { Some(expr.clone()) };
        Some(match expr {
            syn::Expr::If(node) => {
                let computed = pre.len();
                let cond = self.condition(&node.cond, pre);
                // A condition taken apart (its parts computed first, into `pre`): the `if` as
                // written reads what they computed.
                let source = source.map(|source| match source {
                    syn::Expr::If(mut plain) if pre.len() != computed => {
                        *plain.cond = cond.clone();
                        syn::Expr::If(plain)
                    }
                    other => other,
                });
                let then_branch = self.block(&node.then_branch);
                let else_branch = node.else_branch.as_ref().map(|(_, else_branch)| match &**else_branch {
                    syn::Expr::If(_) => {
                        // An `else if` whose condition awaits computes it first, in the
                        // `else` branch.
                        let mut computed = Vec::new();
                        let nested = self.construct(else_branch, &mut computed).expect("an if is a construct");
                        if computed.is_empty() {
                            nested
                        } else {
                            computed.push(Stmt::Expr(nested, false));
                            Expr::Block(Box::new(Block::plain(computed)))
                        }
                    }
                    other => Expr::Block(Box::new(self.expr_block(other))),
                });
                Expr::If(Box::new(If { cond, then_branch, else_branch, source }))
            }
            syn::Expr::Match(node) => {
                // The scrutinee's temporaries live to the end of the `match`, past the awaits
                // of its arms, and past the state an arm's binding may begin (one that hides
                // a live local: `emit::shadowing`).
                let computed = pre.len();
                let scrutinee = if awaits || has_borrowed_temporary(&node.expr) {
                    self.hoisting_temporaries(|this| this.anf(&node.expr, pre))
                } else {
                    self.anf(&node.expr, pre)
                };
                // A scrutinee taken apart (its parts, or the temporaries it borrows, computed
                // first, into `pre`): the `match` as written reads what they computed.
                let source = source.map(|source| match source {
                    syn::Expr::Match(mut plain) if pre.len() != computed => {
                        *plain.expr = scrutinee.clone();
                        syn::Expr::Match(plain)
                    }
                    other => other,
                });
                let arms = node
                    .arms
                    .iter()
                    .map(|arm| {
                        if let syn::Pat::Guard(guard) = &arm.pat
                            && let Some(span) = awaits_span(&guard.guard)
                        {
                            self.error(
                                span,
                                "classic lowering: an await in a match guard cannot be resumed; \
                                     await before the `match` and test the value in the guard",
                            );
                        }
                        Arm { attrs: arm.attrs.clone(), pat: arm.pat.clone(), body: self.expr_block(&arm.body) }
                    })
                    .collect();
                Expr::Match(Box::new(Match { scrutinee, arms, source }))
            }
            syn::Expr::Loop(node) => {
                let unit = !breaks_with_value(node);
                Expr::Loop(Box::new(Loop { label: node.label.clone(), body: self.block(&node.body), source, unit }))
            }
            syn::Expr::While(node) => {
                // `while c { b }` is `loop { if c { b } else { break } }`.
                let mut body = Vec::new();
                let cond = self.condition(&node.cond, &mut body);
                let then_branch = self.block(&node.body);
                let brk: syn::Expr = parse_quote_spanned!(node.while_token.span=> break);
                let else_branch = Expr::Block(Box::new(Block::plain(vec![Stmt::Expr(Expr::Plain(brk), true)])));
                body.push(Stmt::Expr(
                    Expr::If(Box::new(If { cond, then_branch, else_branch: Some(else_branch), source: None })),
                    false,
                ));
                Expr::Loop(Box::new(Loop { label: node.label.clone(), body: Block::plain(body), source, unit: true }))
            }
            // One that jumps out of the statement too (`for x in v { break 'block; }`): the
            // jump saves the locals alive where it runs, which only the walk knows.
            syn::Expr::ForLoop(node) if awaits || changes_anything(expr) || jumps::jumps_out_of(expr) => {
                // `for p in e { b }` is
                // `{ let mut it = IntoIterator::into_iter(e); loop { match Iterator::next(&mut it) { Some(p) => b, None => break } } }`
                let mut stmts = Vec::new();
                // The iterable's temporaries live to the end of the loop.
                let iterable = self.hoisting_temporaries(|this| this.anf(&node.expr, &mut stmts));
                let iter = self.temp("iter");
                let span = node.for_token.span;
                let into_iter: syn::Expr =
                    parse_quote_spanned!(span=> ::core::iter::IntoIterator::into_iter(#iterable));
                stmts.push(Stmt::Let(Let {
                    attrs: Vec::new(),
                    pat: parse_quote!(mut #iter),
                    init: Some(Expr::Plain(into_iter)),
                    diverge: None,
                    span,
                }));
                let pat = &node.pat;
                let next: syn::Expr = parse_quote_spanned!(span=> ::core::iter::Iterator::next(&mut #iter));
                let brk: syn::Expr = parse_quote_spanned!(span=> break);
                let arms = vec![
                    Arm {
                        attrs: Vec::new(),
                        pat: parse_quote!(::core::option::Option::Some(#pat)),
                        body: self.block(&node.body),
                    },
                    Arm {
                        attrs: Vec::new(),
                        pat: parse_quote!(::core::option::Option::None),
                        body: Block::plain(vec![Stmt::Expr(Expr::Plain(brk), false)]),
                    },
                ];
                let matcher = Expr::Match(Box::new(Match { scrutinee: next, arms, source: None }));
                let body = Block::plain(vec![Stmt::Expr(matcher, false)]);
                // Without awaits, `emit` runs the loop as written unless a path through it
                // moves or assigns a local (`must_split`).
                let source = (!awaits).then(|| {
                    let (label, body) = (&node.label, &node.body);
                    parse_quote_spanned! {span=>
                        #label loop {
                            match ::core::iter::Iterator::next(&mut #iter) {
                                ::core::option::Option::Some(#pat) => #body,
                                ::core::option::Option::None => break,
                            }
                        }
                    }
                });
                stmts.push(Stmt::Expr(
                    Expr::Loop(Box::new(Loop { label: node.label.clone(), body, source, unit: true })),
                    false,
                ));
                Expr::Block(Box::new(Block::plain(stmts)))
            }
            syn::Expr::Block(node) if awaits || changes_on_a_path(expr) => {
                let mut block = self.block(&node.block);
                block.label = node.label.clone();
                Expr::Block(Box::new(block))
            }
            syn::Expr::Unsafe(node) if awaits || changes_on_a_path(expr) => {
                let mut block = self.block(&node.block);
                block.unsafety = Some(node.unsafe_token);
                Expr::Block(Box::new(block))
            }
            _ => return None,
        })
    }

    /// An `if` or `while` condition: awaits in a plain condition are computed first; in a
    /// `let` chain only the first `let`'s scrutinee may await.
    fn condition(&mut self, cond: &syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        self.own_temporaries(|this| this.condition_in_scope(cond, pre))
    }

    fn condition_in_scope(&mut self, cond: &syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        // A condition that moves a local on one path only (`if (if c { consume(p); .. } ..)`)
        // is taken apart too, so that `emit` sees each path's locals, as for an operand.
        if !has_await(cond) && (!changes_on_a_path(cond) || contains_let(cond)) {
            return cond.clone();
        }
        match cond {
            syn::Expr::Let(node) => {
                let scrutinee = self.anf(&node.expr, pre);
                let mut node = node.clone();
                *node.expr = scrutinee;
                syn::Expr::Let(node)
            }
            _ if contains_let(cond) => {
                let span = awaits_span(cond).unwrap_or_else(|| cond.span());
                self.error(
                    span,
                    "classic lowering: an await inside a `let` chain cannot be resumed; \
                     await before the `if` and match on the value",
                );
                cond.clone()
            }
            _ => self.own_scope(cond, pre),
        }
    }
}

/// The prefix of the temporaries an operand is spilled into (`Lower::temp_at`): `__t0`, ..
const OPERAND_PREFIX: &str = "t";

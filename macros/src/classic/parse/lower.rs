//! From the `syn` body to the lowered tree of `ir`: awaits moved to statement level, in
//! Rust's evaluation order, and loops reduced to `loop`.

use proc_macro2::Span;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::{BinOp, parse_quote, parse_quote_spanned};

use quote::ToTokens;

use super::awaits;
use super::ir::{Arm, Await, Block, Expr, If, Let, Loop, Match, Stmt};
use super::std_macros;
use crate::classic::analyse::{assignments, jumps, mentions};

pub(crate) struct Lower {
    errors: Vec<syn::Error>,
    next_temp: usize,
    /// Lowering code that runs before an await of its statement: every temporary it borrows
    /// (`&make()`, `make().len()`, `(a, b).0`) lives to the end of the statement in Rust, past
    /// the await, so it gets a local of its own in the statement's block
    /// (`hoisting_temporaries`).
    hoisting: bool,
    /// The locals `hoist_if_temporary` made.
    hoisted: std::collections::HashSet<String>,
    /// The runtime crate's path, for the support code some operands need (`hold_compared`).
    krate: syn::Path,
}

/// Lower a function body. All errors are reported together.
pub(crate) fn body(block: &syn::Block, krate: &syn::Path) -> syn::Result<Block> {
    let mut lower =
        Lower { errors: Vec::new(), next_temp: 0, hoisting: false, hoisted: Default::default(), krate: krate.clone() };
    let lowered = lower.block(block);
    let mut errors = lower.errors.into_iter();
    match errors.next() {
        None => Ok(lowered),
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
    /// Must `expr` be taken apart: it awaits, (while hoisting) it borrows a temporary, or a
    /// branch inside it moves a variable (`emit` must see each path's locals).
    fn needs(&self, expr: &syn::Expr) -> bool {
        has_await(expr) || (self.hoisting && has_borrowed_temporary(expr)) || changes_on_a_path(expr)
    }

    /// `lower` with the temporaries that `expr` borrows hoisted into locals.
    fn hoisting_temporaries<T>(&mut self, lower: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.hoisting, true);
        let value = lower(self);
        self.hoisting = outer;
        value
    }

    /// `lower` in a scope of its own for temporaries (a statement, a condition, an operand
    /// of `&&` or `||`): what it borrows ends with it.
    fn own_temporaries<T>(&mut self, lower: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.hoisting, false);
        let value = lower(self);
        self.hoisting = outer;
        value
    }

    /// `expr` in a scope of its own for temporaries (an operand of `&&` or `||`, a
    /// condition): what it computes before its awaits, the temporaries their operands
    /// borrow included, ends with it, in a block of its own.
    fn own_scope(&mut self, expr: &syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
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
    fn hoist_if_temporary(&mut self, expr: syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        if !self.hoisting || !is_temporary(&expr) || self.borrows_hoisted(&expr) {
            return expr;
        }
        self.hoist(expr, pre)
    }

    /// A temporary of the statement: declared at the start of the statement's block, so that
    /// it drops after the operands computed for the statement's awaits (which Rust drops
    /// first when the statement is cut short, by a panic or by cancellation), and assigned
    /// where it is computed.
    fn hoist(&mut self, expr: syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        let span = expr.span();
        // Named apart from other temporaries: an await may hold a borrow of it, so it lives in
        // place (`analyse::loans::is_hoisted_temporary`).
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

    fn is_hoisted(&self, pat: &syn::Pat) -> bool {
        matches!(pat, syn::Pat::Ident(ident) if self.hoisted.contains(&ident.ident.to_string()))
    }

    /// `(a, b, c).1` or `Pair { a, b }.a` while hoisting: each field gets a local of its own,
    /// declared last field first, so that the ones not taken drop at the end of the
    /// statement in the order the temporary would drop them (a partly moved temporary cannot
    /// be saved whole). Returns the local holding `member`.
    fn hoist_literal_fields(
        &mut self,
        base: &syn::Expr,
        member: &syn::Member,
        pre: &mut Vec<Stmt>,
    ) -> Option<syn::Expr> {
        let mut literal = base;
        while let syn::Expr::Paren(inner) = literal {
            literal = &inner.expr;
        }
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
    fn borrows_hoisted(&self, expr: &syn::Expr) -> bool {
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
    fn extended_temporary(&mut self, local: &syn::Local) -> Option<(syn::Local, syn::Local)> {
        let init = local.init.as_ref().filter(|init| init.diverge.is_none())?;
        let mut reference = &*init.expr;
        while let syn::Expr::Paren(paren) = reference {
            reference = &paren.expr;
        }
        let syn::Expr::Reference(reference) = reference else { return None };
        let extended = &*reference.expr;
        if !(is_temporary(extended) || matches!(extended, syn::Expr::Await(_))) || !reference.attrs.is_empty() {
            return None;
        }
        let span = extended.span();
        // A hoisted temporary's name: an await may hold `sig`, so it lives in place
        // (`analyse::loans::is_hoisted_temporary`).
        let mut name = self.temp(HOISTED_PREFIX);
        name.set_span(Span::mixed_site().located_at(span));
        let mutability = reference.mutability;
        let syn::Stmt::Local(temporary) = parse_quote_spanned!(span=> let #mutability #name = #extended;) else {
            return None;
        };
        let and = reference.and_token;
        let mut binding = local.clone();
        *binding.init.as_mut()?.expr = parse_quote_spanned!(span=> #and #mutability #name);
        Some((temporary, binding))
    }

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
                let stringified = cond.to_token_stream();
                let message = match message {
                    Some(args) => {
                        let tokens =
                            std_macros::Parsed { kind: std_macros::Kind::Format(Some(args.clone())) }.arguments();
                        quote::quote!(::core::panic!(#tokens))
                    }
                    None => quote::quote!(::core::panic!(::core::concat!(
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
        super::bindings::pattern_bindings(&local.pat, &mut bindings);
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
        super::bindings::pattern_bindings(&local.pat, &mut bindings);
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
        let mut expr = &*init.expr;
        while let syn::Expr::Paren(inner) = expr {
            expr = &inner.expr;
        }
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

    /// `expr` without awaits: every await it contains, and everything evaluated before one,
    /// goes to `pre` as a temporary.
    fn anf(&mut self, expr: &syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
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
                while let syn::Expr::Paren(inner) = &left {
                    if has_struct_literal(&inner.expr) {
                        break;
                    }
                    left = (*inner.expr).clone();
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
                all = self.operand_list_moving(all, pre, |index| index > 0);
                *node.receiver = self.hoist_if_temporary(all.remove(0), pre);
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
    fn anf_place(&mut self, expr: &syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        self.anf(expr, pre)
    }

    fn operands<const N: usize>(&mut self, exprs: [&syn::Expr; N], pre: &mut Vec<Stmt>) -> [syn::Expr; N] {
        let list = self.operand_list(exprs.iter().map(|expr| (*expr).clone()).collect(), pre);
        list.try_into().unwrap_or_else(|_| unreachable!("one result per operand"))
    }

    /// Operands evaluated left to right: each one before the last that must be taken apart
    /// is computed into a temporary (with what it borrows hoisted: it runs before an await of
    /// the statement), unless reading it later gives the same value (a place, a literal).
    fn operand_list(&mut self, exprs: Vec<syn::Expr>, pre: &mut Vec<Stmt>) -> Vec<syn::Expr> {
        self.operand_list_moving(exprs, pre, |_| false)
    }

    /// `operand_list` where the operands at `by_value` positions (call arguments, the parts
    /// of a literal) are taken by value: a local named there moves into its temporary before
    /// the awaits that follow, as Rust moves it (it drops with the statement's operands if
    /// the statement is cut short).
    fn operand_list_moving(
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
    fn hold_compared(&mut self, left: &syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        let krate = self.krate.clone();
        let span = left.span();
        let probe: syn::Expr = parse_quote_spanned!(span=> {
            use #krate::__private::{HoldCopy as _, HoldRef as _};
            (&#krate::__private::ComparedProbe(&#left)).hold()
        });
        let held = self.spill(probe, pre);
        parse_quote_spanned!(span=> *#krate::__private::Compared::get(&#held))
    }

    fn spill(&mut self, expr: syn::Expr, pre: &mut Vec<Stmt>) -> syn::Expr {
        let span = expr.span();
        self.spill_value(Expr::Plain(expr), pre, span)
    }

    fn spill_value(&mut self, value: Expr, pre: &mut Vec<Stmt>, span: Span) -> syn::Expr {
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

/// Reading this expression after an await gives what reading it before would: a literal, or
/// a place (a method receiver is auto-referenced, so it must not be moved into a temporary).
fn is_stable(expr: &syn::Expr) -> bool {
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
fn assigns(expr: &syn::Expr, place: &syn::Expr) -> bool {
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
fn read_root(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Path(path) => path
            .path
            .get_ident()
            .map(|ident| if ident == "self" { mentions::SELF_LOCAL.to_owned() } else { ident.to_string() }),
        syn::Expr::Paren(node) => read_root(&node.expr),
        syn::Expr::Field(node) => read_root(&node.base),
        syn::Expr::Index(node) => read_root(&node.expr),
        syn::Expr::Unary(node) if matches!(node.op, syn::UnOp::Deref(_)) => read_root(&node.expr),
        _ => None,
    }
}

fn contains_let(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Let(_) => true,
        syn::Expr::Binary(node) if matches!(node.op, BinOp::And(_)) => {
            contains_let(&node.left) || contains_let(&node.right)
        }
        syn::Expr::Paren(node) => contains_let(&node.expr),
        _ => false,
    }
}

fn awaits_span(expr: &syn::Expr) -> Option<Span> {
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
fn has_borrowed_temporary(expr: &syn::Expr) -> bool {
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
fn changes_on_a_path(expr: &syn::Expr) -> bool {
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
fn operands(expr: &syn::Expr) -> Vec<&syn::Expr> {
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
fn is_copied_bool(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Path(_) => true,
        syn::Expr::Paren(node) => is_copied_bool(&node.expr),
        syn::Expr::Unary(node) if matches!(node.op, syn::UnOp::Not(_)) => is_copied_bool(&node.expr),
        _ => false,
    }
}

fn stmt_changes_on_a_path(stmt: &syn::Stmt) -> bool {
    match stmt {
        syn::Stmt::Local(local) => local.init.as_ref().is_some_and(|init| changes_on_a_path(&init.expr)),
        syn::Stmt::Expr(expr, _) => changes_on_a_path(expr),
        _ => false,
    }
}

/// Does `expr` use a variable by value or assign one (a lower-case name: `None` and unit
/// structs are not variables)? Whether it is one of the function's locals is `emit`'s
/// business.
fn changes_anything(expr: &syn::Expr) -> bool {
    mentions::of_expr(expr).iter().any(|mention| {
        matches!(mention.kind, mentions::Kind::Move | mentions::Kind::Assign)
            && !mention.name.starts_with(|c: char| c.is_ascii_uppercase())
    })
}

/// A value that, borrowed, lives in a temporary: a call's result, a literal aggregate with a
/// computed part, a macro's value. (A constant, `&0` or `&[1, 2]`, is promoted to a static
/// instead, and stays as written.)
/// The prefix of the temporaries hoisted out of a statement that awaits
/// (`len_of(&String::from("x")).await`): an await may hold a borrow of one, so they live in
/// place (`analyse::loans::is_hoisted_temporary`): `__h0`, `__h1`, ...
pub(crate) const HOISTED_PREFIX: &str = "h";

/// The prefix of the temporaries an operand is spilled into (`Lower::temp_at`): `__t0`, ..
const OPERAND_PREFIX: &str = "t";

/// Is this a temporary an operand was spilled into (`Lower::spill_value`), an await's value
/// among them?
pub(crate) fn is_operand_temporary(ident: &syn::Ident) -> bool {
    let name = ident.to_string();
    name.strip_prefix("__")
        .and_then(|rest| rest.strip_prefix(OPERAND_PREFIX))
        .is_some_and(|index| !index.is_empty() && index.bytes().all(|byte| byte.is_ascii_digit()))
}

/// Is this a temporary the lowering made (`Lower::temp`)?
pub(crate) fn is_lowering_temporary(ident: &syn::Ident) -> bool {
    ident.to_string().starts_with("__")
}

/// Does a `loop` have a `break value` aimed at it (so that its value is not `()`)?
fn breaks_with_value(source: &syn::ExprLoop) -> bool {
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

fn is_temporary(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Paren(node) => is_temporary(&node.expr),
        syn::Expr::Group(node) => is_temporary(&node.expr),
        syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Macro(_) | syn::Expr::Struct(_) => true,
        syn::Expr::Tuple(_) | syn::Expr::Array(_) | syn::Expr::Repeat(_) => !is_constant(expr),
        _ => false,
    }
}

fn is_constant(expr: &syn::Expr) -> bool {
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

fn has_struct_literal(expr: &syn::Expr) -> bool {
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

//! Locals a macro declares (`event_listener::listener!(event => listener)` expands to
//! `let`s of the name it is given): the lowering sees a macro's tokens, not its expansion, so
//! it cannot save such a local across an await, and rustc would report the use after the
//! await as an unknown name (E0425). This finds that shape and says what it is instead.
//!
//! A name counts when a macro the lowering does not know is handed it in a statement of a
//! block, nothing in the function binds it, and a statement of the block after one that
//! awaits uses it as a value that is not called (a function's name is called; a local's is
//! read). (A use after an await in the awaiting statement itself is left to rustc.) A global with a lower-case name used that way is the one shape this
//! would mistake, and it is not one Rust's naming conventions leave.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::visit_mut::{self as visit_mut, VisitMut};

use super::{awaits, pinning};
use crate::classic::syntax::bindings::pattern_bindings;
use crate::classic::syntax::{std_macros, tracing_macros};

/// The errors for the locals that macros of `block` declare and later code uses after an
/// await; `params` are the parameters' names.
pub(crate) fn check(block: &syn::Block, params: &[String]) -> Vec<syn::Error> {
    let mut bound = Bound(params.iter().cloned().collect());
    bound.visit_block(block);
    let mut finder = Finder { bound: bound.0, errors: Vec::new(), reported: HashSet::new() };
    finder.visit_block(block);
    finder.errors
}

/// After each statement of a macro the lowering does not know, a `let mut name = name;` for
/// each name the macro is handed that nothing in the function binds and a later statement of
/// the block uses as a value: the local the macro declares, bound again where the lowering
/// sees it, so that the lowering keeps it like any local (in place when a borrow of it lives
/// across a state of the lowering's, `declare!(d = e); let r = &d;`). Rebinding moves the
/// value to a binding declared right after the macro's, which drops at the same scope end.
/// A name that is not a local (a function's, a global's) rebinds a copy of it, or is
/// rustc's error (E0507 for a lower-case global that is not `Copy`), never other code.
pub(crate) fn rebind(block: &mut syn::Block, params: &[String]) {
    let mut bound = Bound(params.iter().cloned().collect());
    bound.visit_block(block);
    Rebinder { bound: bound.0 }.visit_block_mut(block);
}

struct Rebinder {
    bound: HashSet<String>,
}

impl VisitMut for Rebinder {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut index = 0;
        while index < block.stmts.len() {
            let rebound: Vec<proc_macro2::Ident> = match statement_macro(&block.stmts[index]) {
                Some(mac) if is_unknown(mac) => {
                    let mut seen = HashSet::new();
                    let own = super::macro_bindings::own_bindings(&mac.tokens);
                    handed_idents(&mac.tokens)
                        .into_iter()
                        .filter(|ident| !self.bound.contains(&ident.to_string()) && !own.contains(&ident.to_string()))
                        .filter(|ident| seen.insert(ident.to_string()))
                        .filter(|ident| {
                            let name = ident.to_string();
                            block.stmts[index + 1..].iter().any(|later| named_as_value(later, &name))
                        })
                        .collect()
                }
                _ => Vec::new(),
            };
            visit_mut::visit_stmt_mut(self, &mut block.stmts[index]);
            for (offset, ident) in rebound.iter().enumerate() {
                let stmt: syn::Stmt = syn::parse_quote_spanned!(ident.span()=>
                    #[allow(unused_mut, unused_variables)]
                    let mut #ident = #ident;
                );
                block.stmts.insert(index + 1 + offset, stmt);
            }
            index += 1 + rebound.len();
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
}

/// Every name a pattern of the function binds, anywhere.
struct Bound(HashSet<String>);

impl<'ast> Visit<'ast> for Bound {
    fn visit_pat(&mut self, pat: &'ast syn::Pat) {
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        self.0.extend(bindings.into_iter().map(|binding| binding.ident.to_string()));
        visit::visit_pat(self, pat);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

struct Finder {
    bound: HashSet<String>,
    errors: Vec<syn::Error>,
    reported: HashSet<String>,
}

/// A name a macro statement was handed: the macro's path, for the message.
struct Candidate {
    name: String,
    macro_path: String,
    awaited: bool,
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_block(&mut self, block: &'ast syn::Block) {
        let mut candidates: Vec<Candidate> = Vec::new();
        for stmt in &block.stmts {
            for candidate in candidates.iter().filter(|candidate| candidate.awaited) {
                if self.reported.contains(&candidate.name) {
                    continue;
                }
                if let Some(span) = used_as_value(stmt, &candidate.name) {
                    self.reported.insert(candidate.name.clone());
                    let (name, path) = (&candidate.name, &candidate.macro_path);
                    self.errors.push(syn::Error::new(
                        span,
                        format!(
                            "classic lowering: `{name}` is a local that the macro `{path}!` declares, and it is \
                             used after an await: the lowering sees the macro's tokens, not the `let`s it expands \
                             to, so the state machine cannot keep `{name}` across the await; declare it with a \
                             `let` of the function's own (the call the macro wraps), or use it before the await"
                        ),
                    ));
                }
            }
            // Only a statement after the one that awaits counts: the awaiting statement may
            // use the local before its await (`later("b", total).await`), in its state.
            if awaits_in_stmt(stmt) {
                for candidate in &mut candidates {
                    candidate.awaited = true;
                }
            }
            if let Some(mac) = statement_macro(stmt)
                && is_unknown(mac)
            {
                let macro_path = path_text(&mac.path);
                // (A name the macro's own `if let`, `for` or `match` binds is not handed to it.)
                let own = super::macro_bindings::own_bindings(&mac.tokens);
                for name in handed_names(&mac.tokens) {
                    if !self.bound.contains(&name) && !own.contains(&name) {
                        candidates.push(Candidate { name, macro_path: macro_path.clone(), awaited: false });
                    }
                }
            }
            self.visit_stmt(stmt);
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    // A closure's or async block's own code is plain Rust.
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
}

fn statement_macro(stmt: &syn::Stmt) -> Option<&syn::Macro> {
    match stmt {
        syn::Stmt::Macro(node) => Some(&node.mac),
        syn::Stmt::Expr(syn::Expr::Macro(node), Some(_)) => Some(&node.mac),
        _ => None,
    }
}

/// Not one whose grammar the lowering knows (the standard ones and tracing's, which declare
/// nothing; the pinning ones, which it lowers or refuses itself).
fn is_unknown(mac: &syn::Macro) -> bool {
    let name = mac.path.segments.last().map(|segment| segment.ident.to_string()).unwrap_or_default();
    std_macros::parse(mac).is_none() && !tracing_macros::is_tracing_name(&name) && !pinning::is_pinning(mac)
}

fn path_text(path: &syn::Path) -> String {
    path.segments.iter().map(|segment| segment.ident.to_string()).collect::<Vec<_>>().join("::")
}

/// The identifiers a macro is handed that could name a local it declares: lower-case, not a
/// field or method (after `.`), not a path's segment nor a macro's name (before `::` or `!`),
/// not called (before `(`), not a keyword.
fn handed_names(tokens: &TokenStream) -> Vec<String> {
    handed_idents(tokens).into_iter().map(|ident| ident.to_string()).collect()
}

/// `handed_names`, as the macro's identifiers (their spans and hygiene).
fn handed_idents(tokens: &TokenStream) -> Vec<proc_macro2::Ident> {
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut names = Vec::new();
    for (index, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                let previous = index.checked_sub(1).map(|before| &tokens[before]);
                let after_dot_or_path =
                    matches!(previous, Some(TokenTree::Punct(p)) if p.as_char() == '.' || p.as_char() == ':');
                let before_path_or_bang = matches!(tokens.get(index + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!' || p.as_char() == ':');
                let called = matches!(tokens.get(index + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
                let lower = name.starts_with(|c: char| c.is_lowercase() || c == '_') && name != "_";
                if lower && !after_dot_or_path && !before_path_or_bang && !called && !is_keyword(&name) {
                    names.push(ident.clone());
                }
            }
            TokenTree::Group(group) => names.extend(handed_idents(&group.stream())),
            _ => {}
        }
    }
    names
}

fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "as" | "async"
            | "await"
            | "break"
            | "const"
            | "continue"
            | "crate"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
    )
}

fn awaits_in_stmt(stmt: &syn::Stmt) -> bool {
    match stmt {
        syn::Stmt::Local(local) => local.init.as_ref().is_some_and(|init| {
            awaits::in_expr(&init.expr) || init.diverge.as_ref().is_some_and(|(_, block)| awaits::in_expr(block))
        }),
        syn::Stmt::Expr(expr, _) => awaits::in_expr(expr),
        syn::Stmt::Macro(node) => awaits::in_macro(&node.mac),
        syn::Stmt::Item(_) => false,
    }
}

/// Where `stmt` uses `name` as a value that is not called (outside closures and async
/// blocks, whose code is plain Rust). What `check` asks.
fn used_as_value(stmt: &syn::Stmt, name: &str) -> Option<Span> {
    value_use(stmt, name, false)
}

/// Does `stmt` name `name` as a value anywhere: in a closure or an async block too (which
/// capture it), or among a macro's tokens (an identifier not called and not a field)? What
/// `rebind` asks: the local the macro declared is then bound again where the lowering sees it.
fn named_as_value(stmt: &syn::Stmt, name: &str) -> bool {
    value_use(stmt, name, true).is_some()
}

/// The first use of `name` as a value in `stmt` that is not called; `everywhere`: inside
/// closures, async blocks and macros' tokens too.
fn value_use(stmt: &syn::Stmt, name: &str, everywhere: bool) -> Option<Span> {
    struct Uses<'n> {
        name: &'n str,
        everywhere: bool,
        found: Option<Span>,
    }
    impl<'ast> Visit<'ast> for Uses<'_> {
        fn visit_expr(&mut self, expr: &'ast syn::Expr) {
            match expr {
                // A call's callee: a function's name, or a closure's.
                syn::Expr::Call(call) => {
                    if !matches!(&*call.func, syn::Expr::Path(_)) {
                        self.visit_expr(&call.func);
                    }
                    for arg in &call.args {
                        self.visit_expr(arg);
                    }
                }
                syn::Expr::Path(path) if path.qself.is_none() && path.path.is_ident(self.name) => {
                    self.found.get_or_insert(path.span());
                }
                syn::Expr::Closure(_) | syn::Expr::Async(_) if !self.everywhere => {}
                _ => visit::visit_expr(self, expr),
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if self.everywhere
                && let Some(span) = token_use(&mac.tokens, self.name)
            {
                self.found.get_or_insert(span);
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    /// An identifier `name` among `tokens` that is not called (`name(..)`) nor a field (`.name`),
    /// or a string literal naming it as a format string's inline argument.
    fn token_use(tokens: &TokenStream, name: &str) -> Option<Span> {
        let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
        tokens.iter().enumerate().find_map(|(index, token)| match token {
            TokenTree::Ident(ident)
                if ident == name
                    && !matches!(tokens.get(index + 1), Some(TokenTree::Group(group)) if group.delimiter() == proc_macro2::Delimiter::Parenthesis)
                    && !index.checked_sub(1).is_some_and(|before| matches!(&tokens[before], TokenTree::Punct(punct) if punct.as_char() == '.')) =>
            {
                Some(ident.span())
            }
            TokenTree::Group(group) => token_use(&group.stream(), name),
            // A format string's inline argument (`info!("{d}")`) reads the local too.
            TokenTree::Literal(literal) if std_macros::token_captures(literal).iter().any(|captured| captured == name) => {
                Some(literal.span())
            }
            _ => None,
        })
    }
    let mut uses = Uses { name, everywhere, found: None };
    uses.visit_stmt(stmt);
    uses.found
}

//! Which `syn::Expr`, `syn::Stmt` and `syn::Pat` variants a run drew with an in-place operand:
//! each program is printed, parsed with syn (the version in `Cargo.lock`, 3.x, whose names
//! these are) and walked, with the names its classic lowering keeps in place
//! ([`ast::in_place`]).
//!
//! A node counts for its variant when it has an in-place operand: an expression, when one of
//! its direct operands (or its value, for a block) is such a local (`v`, `&v`, `&mut v`, `*v`,
//! `v.f`, `(v)`), or, for a path, when it is one; a macro (its tokens), a closure or an async
//! block (what it captures), when it names one. A statement, when it has one as an expression
//! does (a `let`, its initializer), or binds one. A pattern, when it binds one, or when it is
//! matched against one (a `let`, `match` or `for` whose operand is an in-place local), or (an
//! arm's `pat if guard`, a `Pat::Guard` in syn 3) when its guard names one.

use std::collections::BTreeSet;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

use super::ast::{self, Program};
use super::print;

/// The variants of `syn::Expr` in syn 3.0.10 (`src/expr.rs`), `syn::Stmt` (`src/stmt.rs`)
/// and `syn::Pat` (`src/pat.rs`).
pub const EXPR: [&str; 40] = [
    "Array",
    "Assign",
    "Async",
    "Await",
    "Binary",
    "Block",
    "Break",
    "Call",
    "Cast",
    "Closure",
    "Const",
    "Continue",
    "Field",
    "ForLoop",
    "Group",
    "If",
    "Index",
    "Infer",
    "Let",
    "Lit",
    "Loop",
    "Macro",
    "Match",
    "MethodCall",
    "Paren",
    "Path",
    "Range",
    "RawAddr",
    "Reference",
    "Repeat",
    "Return",
    "Struct",
    "Try",
    "TryBlock",
    "Tuple",
    "Unary",
    "Unsafe",
    "Verbatim",
    "While",
    "Yield",
];
pub const STMT: [&str; 4] = ["Local", "Item", "Expr", "Macro"];
pub const PAT: [&str; 18] = [
    "Const",
    "Guard",
    "Ident",
    "Lit",
    "Macro",
    "Or",
    "Paren",
    "Path",
    "Range",
    "Reference",
    "Rest",
    "Slice",
    "Struct",
    "Tuple",
    "TupleStruct",
    "Type",
    "Verbatim",
    "Wild",
];

/// What the generated language cannot write at all, and why.
pub const CANNOT: [(&str, &str); 20] = [
    ("Expr::Const", "no `const { .. }` blocks"),
    ("Expr::Group", "only macro expansions make invisible groups; printed code has none"),
    ("Expr::Infer", "no `_` expressions"),
    ("Expr::Let", "no `if let` nor `while let` (`let .. else` is a statement)"),
    ("Expr::RawAddr", "no `&raw const`"),
    ("Expr::Repeat", "no `[x; n]` arrays"),
    ("Expr::TryBlock", "unstable"),
    ("Expr::Unsafe", "no `unsafe` blocks"),
    ("Expr::Verbatim", "syn's fallback for what it cannot parse"),
    ("Expr::Yield", "unstable"),
    ("Pat::Const", "no `const { .. }` patterns"),
    ("Pat::Macro", "no macros in pattern position"),
    ("Pat::Paren", "no parenthesized patterns"),
    ("Pat::Path", "no unit-variant or constant patterns"),
    ("Pat::Range", "no range patterns"),
    ("Pat::Reference", "no `&x` patterns"),
    ("Pat::Rest", "no `..` patterns"),
    ("Pat::Slice", "no slice patterns"),
    ("Pat::Struct", "no struct patterns"),
    ("Pat::Verbatim", "syn's fallback for what it cannot parse"),
];

/// A run's variants: those drawn with an in-place operand, and those drawn at all.
#[derive(Default)]
pub struct Coverage {
    pub in_place: BTreeSet<String>,
    pub drawn: BTreeSet<String>,
}

impl Coverage {
    /// Counts the variants of `program`.
    pub fn add(&mut self, program: &Program) {
        let text = print::function(program, "program");
        let file =
            syn::parse_file(&text).unwrap_or_else(|error| panic!("syn cannot parse a program ({error}):\n{text}"));
        let names = ast::in_place(program);
        let mut walker = Walker { names: &names, coverage: self };
        for item in &file.items {
            match item {
                syn::Item::Fn(function) if function.sig.ident == "program" => walker.visit_item_fn(function),
                syn::Item::Impl(block) => {
                    for item in &block.items {
                        if let syn::ImplItem::Fn(method) = item {
                            if method.sig.ident == "program" {
                                walker.visit_impl_item_fn(method);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The coverage line: every variant of the three enums, in one of four lists.
    pub fn line(&self) -> String {
        let cannot: Vec<&str> = CANNOT.iter().map(|(name, _)| *name).collect();
        let all: Vec<String> = EXPR
            .iter()
            .map(|name| format!("Expr::{name}"))
            .chain(STMT.iter().map(|name| format!("Stmt::{name}")))
            .chain(PAT.iter().map(|name| format!("Pat::{name}")))
            .collect();
        let list = |keep: &dyn Fn(&String) -> bool| {
            let names: Vec<&str> = all.iter().filter(|name| keep(name)).map(String::as_str).collect();
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        };
        format!(
            "coverage (syn 3.x variants): drawn with an in-place operand: {}; drawn, never with one: {}; not drawn this \
             run: {}; cannot draw: {}",
            list(&|name| self.in_place.contains(name)),
            list(&|name| !self.in_place.contains(name) && self.drawn.contains(name)),
            list(&|name| !self.drawn.contains(name) && !cannot.contains(&name.as_str())),
            list(&|name| !self.drawn.contains(name) && cannot.contains(&name.as_str())),
        )
    }
}

struct Walker<'a> {
    names: &'a BTreeSet<String>,
    coverage: &'a mut Coverage,
}

impl Walker<'_> {
    fn count(&mut self, variant: String, with_operand: bool) {
        if with_operand {
            self.coverage.in_place.insert(variant.clone());
        }
        self.coverage.drawn.insert(variant);
    }

    /// `v`, `&v`, `&mut v`, `*v`, `v.f`, `(v)` of an in-place `v`.
    fn is_operand(&self, expr: &syn::Expr) -> bool {
        match expr {
            syn::Expr::Path(path) => {
                path.qself.is_none() && path.path.get_ident().is_some_and(|ident| self.named(ident))
            }
            syn::Expr::Reference(reference) => self.is_operand(&reference.expr),
            syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Deref(_), expr, .. }) => self.is_operand(expr),
            syn::Expr::Paren(paren) => self.is_operand(&paren.expr),
            syn::Expr::Field(field) => self.is_operand(&field.base),
            _ => false,
        }
    }

    fn named(&self, ident: &proc_macro2::Ident) -> bool {
        self.names.contains(&ident.to_string())
    }

    fn tokens_name(&self, tokens: &TokenStream) -> bool {
        tokens.clone().into_iter().any(|token| match token {
            TokenTree::Ident(ident) => self.named(&ident),
            TokenTree::Group(group) => self.tokens_name(&group.stream()),
            _ => false,
        })
    }

    fn has_operand(&self, expr: &syn::Expr) -> bool {
        match expr {
            syn::Expr::Path(_) => self.is_operand(expr),
            syn::Expr::Macro(node) => self.tokens_name(&node.mac.tokens),
            // What they capture.
            syn::Expr::Closure(_) | syn::Expr::Async(_) => {
                let mut mentions = Mentions { walker: self, found: false };
                visit::visit_expr(&mut mentions, expr);
                mentions.found
            }
            _ => {
                let mut children = Children(Vec::new());
                visit::visit_expr(&mut children, expr);
                children.0.into_iter().any(|child| self.is_operand(child))
            }
        }
    }

    fn binds(&self, pat: &syn::Pat) -> bool {
        let mut binds = Binds { walker: self, found: false };
        binds.visit_pat(pat);
        binds.found
    }

    /// A pattern matched against `operand`: its own variant counts when that is in place.
    fn matched(&mut self, pat: &syn::Pat, operand: &syn::Expr) {
        if self.is_operand(operand) {
            self.count(format!("Pat::{}", pat_variant(pat)), true);
        }
    }
}

impl<'ast> Visit<'ast> for Walker<'_> {
    fn visit_expr(&mut self, expr: &'ast syn::Expr) {
        let with_operand = self.has_operand(expr);
        self.count(format!("Expr::{}", expr_variant(expr)), with_operand);
        match expr {
            syn::Expr::Match(node) => {
                for arm in &node.arms {
                    self.matched(&arm.pat, &node.expr);
                }
            }
            syn::Expr::ForLoop(node) => self.matched(&node.pat, &node.expr),
            _ => {}
        }
        visit::visit_expr(self, expr);
    }

    fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
        let (variant, with_operand) = match stmt {
            syn::Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    self.matched(&local.pat, &init.expr);
                }
                let init =
                    local.init.as_ref().is_some_and(|init| self.is_operand(&init.expr) || self.has_operand(&init.expr));
                ("Local", init || self.binds(&local.pat))
            }
            syn::Stmt::Item(_) => ("Item", false),
            syn::Stmt::Expr(expr, _) => ("Expr", self.is_operand(expr) || self.has_operand(expr)),
            syn::Stmt::Macro(node) => ("Macro", self.tokens_name(&node.mac.tokens)),
        };
        self.count(format!("Stmt::{variant}"), with_operand);
        visit::visit_stmt(self, stmt);
    }

    fn visit_pat(&mut self, pat: &'ast syn::Pat) {
        // An arm's guard (syn 3 makes `pat if guard` a pattern) counts as an expression does.
        let guarded = match pat {
            syn::Pat::Guard(guard) => {
                let mut mentions = Mentions { walker: self, found: false };
                mentions.visit_expr(&guard.guard);
                mentions.found
            }
            _ => false,
        };
        let binds = self.binds(pat) || guarded;
        self.count(format!("Pat::{}", pat_variant(pat)), binds);
        visit::visit_pat(self, pat);
    }

    // The items of a body (`fn`, `struct`, ..) name no local.
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let _ = item;
    }
}

/// The expressions directly inside one (a block's: its value), not deeper.
struct Children<'ast>(Vec<&'ast syn::Expr>);

impl<'ast> Visit<'ast> for Children<'ast> {
    fn visit_expr(&mut self, expr: &'ast syn::Expr) {
        self.0.push(expr);
    }
    fn visit_block(&mut self, block: &'ast syn::Block) {
        if let Some(syn::Stmt::Expr(value, None)) = block.stmts.last() {
            self.0.push(value);
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether code names an in-place local anywhere (a closure's or async block's captures).
struct Mentions<'a, 'w> {
    walker: &'a Walker<'w>,
    found: bool,
}

impl<'ast> Visit<'ast> for Mentions<'_, '_> {
    fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
        self.found |= path.qself.is_none() && path.path.get_ident().is_some_and(|ident| self.walker.named(ident));
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.found |= self.walker.tokens_name(&mac.tokens);
    }
}

/// Whether a pattern binds an in-place name.
struct Binds<'a, 'w> {
    walker: &'a Walker<'w>,
    found: bool,
}

impl<'ast> Visit<'ast> for Binds<'_, '_> {
    fn visit_pat_ident(&mut self, ident: &'ast syn::PatIdent) {
        self.found |= self.walker.named(&ident.ident);
        visit::visit_pat_ident(self, ident);
    }
}

fn expr_variant(expr: &syn::Expr) -> &'static str {
    match expr {
        syn::Expr::Array(_) => "Array",
        syn::Expr::Assign(_) => "Assign",
        syn::Expr::Async(_) => "Async",
        syn::Expr::Await(_) => "Await",
        syn::Expr::Binary(_) => "Binary",
        syn::Expr::Block(_) => "Block",
        syn::Expr::Break(_) => "Break",
        syn::Expr::Call(_) => "Call",
        syn::Expr::Cast(_) => "Cast",
        syn::Expr::Closure(_) => "Closure",
        syn::Expr::Const(_) => "Const",
        syn::Expr::Continue(_) => "Continue",
        syn::Expr::Field(_) => "Field",
        syn::Expr::ForLoop(_) => "ForLoop",
        syn::Expr::Group(_) => "Group",
        syn::Expr::If(_) => "If",
        syn::Expr::Index(_) => "Index",
        syn::Expr::Infer(_) => "Infer",
        syn::Expr::Let(_) => "Let",
        syn::Expr::Lit(_) => "Lit",
        syn::Expr::Loop(_) => "Loop",
        syn::Expr::Macro(_) => "Macro",
        syn::Expr::Match(_) => "Match",
        syn::Expr::MethodCall(_) => "MethodCall",
        syn::Expr::Paren(_) => "Paren",
        syn::Expr::Path(_) => "Path",
        syn::Expr::Range(_) => "Range",
        syn::Expr::RawAddr(_) => "RawAddr",
        syn::Expr::Reference(_) => "Reference",
        syn::Expr::Repeat(_) => "Repeat",
        syn::Expr::Return(_) => "Return",
        syn::Expr::Struct(_) => "Struct",
        syn::Expr::Try(_) => "Try",
        syn::Expr::TryBlock(_) => "TryBlock",
        syn::Expr::Tuple(_) => "Tuple",
        syn::Expr::Unary(_) => "Unary",
        syn::Expr::Unsafe(_) => "Unsafe",
        syn::Expr::Verbatim(_) => "Verbatim",
        syn::Expr::While(_) => "While",
        syn::Expr::Yield(_) => "Yield",
        _ => "(a variant this syn version added)",
    }
}

fn pat_variant(pat: &syn::Pat) -> &'static str {
    match pat {
        syn::Pat::Const(_) => "Const",
        syn::Pat::Guard(_) => "Guard",
        syn::Pat::Ident(_) => "Ident",
        syn::Pat::Lit(_) => "Lit",
        syn::Pat::Macro(_) => "Macro",
        syn::Pat::Or(_) => "Or",
        syn::Pat::Paren(_) => "Paren",
        syn::Pat::Path(_) => "Path",
        syn::Pat::Range(_) => "Range",
        syn::Pat::Reference(_) => "Reference",
        syn::Pat::Rest(_) => "Rest",
        syn::Pat::Slice(_) => "Slice",
        syn::Pat::Struct(_) => "Struct",
        syn::Pat::Tuple(_) => "Tuple",
        syn::Pat::TupleStruct(_) => "TupleStruct",
        syn::Pat::Type(_) => "Type",
        syn::Pat::Verbatim(_) => "Verbatim",
        syn::Pat::Wild(_) => "Wild",
        _ => "(a variant this syn version added)",
    }
}

/// The variant names of `pub enum NAME { .. }` in a syn source file (for the test that the
/// lists here are syn's).
pub fn variants_in_source(source: &str, name: &str) -> Vec<String> {
    let Some(start) = source.find(&format!("pub enum {name} {{")) else { return Vec::new() };
    let body = &source[start..];
    let body = &body[body.find('{').expect("a brace") + 1..];
    let mut depth = 0;
    let mut variants = Vec::new();
    for line in body.lines() {
        let trimmed = line.trim();
        if depth == 0 && trimmed.starts_with('}') {
            break;
        }
        if depth == 0 && !trimmed.starts_with("//") && !trimmed.starts_with('#') {
            let word: String = trimmed.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if word.starts_with(|c: char| c.is_uppercase()) {
                variants.push(word);
            }
        }
        depth += line.matches('(').count() as i32 - line.matches(')').count() as i32;
        depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
    }
    variants
}

//! The names a piece of code takes from around it: each identifier it mentions where no
//! binding of its own is in scope. A loop's next round can mention one of those with the
//! same meaning; a name its body binds (`let v = ..` in a branch, an arm's pattern, a
//! closure's parameter) means a new local each round.
//!
//! Macro arguments are opaque: every identifier in them not bound around them counts.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

use crate::classic::syntax::bindings::pattern_bindings;
use crate::classic::syntax::std_macros;

/// The free names of a loop body, with the names its head binds afresh each round (`for`'s
/// pattern) already in scope.
pub(crate) fn of_block(block: &syn::Block, bound: &[&syn::Pat]) -> HashSet<String> {
    let mut walker = Walker { scopes: vec![HashSet::new()], free: HashSet::new() };
    for pat in bound {
        walker.bind(pat);
    }
    walker.visit_block(block);
    walker.free
}

/// The free names of a `while` loop: its condition (whose `let`s bind for the body) and body.
pub(crate) fn of_condition_and_block(cond: &syn::Expr, block: &syn::Block) -> HashSet<String> {
    let mut walker = Walker { scopes: vec![HashSet::new()], free: HashSet::new() };
    walker.condition(cond);
    walker.visit_block(block);
    walker.free
}

struct Walker {
    scopes: Vec<HashSet<String>>,
    free: HashSet<String>,
}

impl Walker {
    fn bind(&mut self, pat: &syn::Pat) {
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        let scope = self.scopes.last_mut().expect("a scope");
        scope.extend(bindings.into_iter().map(|binding| binding.ident.to_string()));
    }

    fn is_bound(&self, name: &str) -> bool {
        self.scopes.iter().any(|scope| scope.contains(name))
    }

    fn mention(&mut self, name: String) {
        if !self.is_bound(&name) {
            self.free.insert(name);
        }
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(HashSet::new());
        f(self);
        self.scopes.pop();
    }

    /// An `if`/`while` condition: each `let` in it binds for what follows it in the chain and
    /// for the block after it (the caller's scope).
    fn condition(&mut self, cond: &syn::Expr) {
        for operand in crate::classic::syntax::chain_operands(cond) {
            match operand {
                syn::Expr::Let(node) => {
                    self.visit_expr(&node.expr);
                    self.bind(&node.pat);
                }
                other => self.visit_expr(other),
            }
        }
    }

    fn tokens(&mut self, tokens: &TokenStream) {
        for token in tokens.clone() {
            match token {
                TokenTree::Ident(ident) => self.mention(ident.to_string()),
                TokenTree::Group(group) => self.tokens(&group.stream()),
                TokenTree::Literal(literal) => {
                    for name in std_macros::token_captures(&literal) {
                        self.mention(name);
                    }
                }
                TokenTree::Punct(_) => {}
            }
        }
    }
}

impl<'ast> Visit<'ast> for Walker {
    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.scoped(|this| {
            for stmt in &block.stmts {
                match stmt {
                    // The initializer and the `else` block do not see the `let`'s bindings.
                    syn::Stmt::Local(local) => {
                        if let Some(init) = &local.init {
                            this.visit_expr(&init.expr);
                            if let Some((_, diverge)) = &init.diverge {
                                this.visit_expr(diverge);
                            }
                        }
                        this.bind(&local.pat);
                    }
                    other => this.visit_stmt(other),
                }
            }
        });
    }

    fn visit_expr_path(&mut self, node: &'ast syn::ExprPath) {
        if node.qself.is_none()
            && let Some(ident) = node.path.get_ident()
        {
            self.mention(ident.to_string());
        }
    }

    fn visit_expr_if(&mut self, node: &'ast syn::ExprIf) {
        self.scoped(|this| {
            this.condition(&node.cond);
            this.visit_block(&node.then_branch);
        });
        if let Some((_, other)) = &node.else_branch {
            self.visit_expr(other);
        }
    }

    fn visit_expr_while(&mut self, node: &'ast syn::ExprWhile) {
        self.scoped(|this| {
            this.condition(&node.cond);
            this.visit_block(&node.body);
        });
    }

    fn visit_expr_for_loop(&mut self, node: &'ast syn::ExprForLoop) {
        self.visit_expr(&node.expr);
        self.scoped(|this| {
            this.bind(&node.pat);
            this.visit_block(&node.body);
        });
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        self.scoped(|this| {
            this.bind(&arm.pat);
            if let syn::Pat::Guard(guard) = &arm.pat {
                this.condition(&guard.guard);
            }
            this.visit_expr(&arm.body);
        });
    }

    fn visit_expr_closure(&mut self, node: &'ast syn::ExprClosure) {
        self.scoped(|this| {
            for input in &node.inputs {
                this.bind(input);
            }
            this.visit_expr(&node.body);
        });
    }

    // A `let` outside a condition's chain (`matches!` is a macro): its bindings end with it.
    fn visit_expr_let(&mut self, node: &'ast syn::ExprLet) {
        self.visit_expr(&node.expr);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(&mac.tokens);
    }

    // Patterns name bindings or constants, not locals taken from around.
    fn visit_pat(&mut self, _: &'ast syn::Pat) {}

    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_expr(&mut self, expr: &'ast syn::Expr) {
        visit::visit_expr(self, expr);
    }
}

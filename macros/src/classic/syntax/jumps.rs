//! Which jumps leave a piece of `syn` code: a `break` or `continue` whose loop or labelled
//! block is not inside it. The lowered tree's own questions (`analyse::jumps`) build on these;
//! `parse::lower` asks them of the user's code, `generate::rewrite` of each jump it meets.

use syn::visit::Visit;

/// Does plain code leave `expr` by `break` or `continue` (to a loop or block outside it)?
pub(crate) fn jumps_out_of(expr: &syn::Expr) -> bool {
    Targets::default().syn_jumps(expr)
}

/// May `block` return from the function it is the body of: a `return`, a `?`, or a macro
/// whose expansion the lowering cannot see (any but the standard macros whose grammar it knows,
/// and those only where their tokens hold a `return` or a `?`)? Closures, `async` blocks and
/// items return from themselves.
pub(crate) fn may_return(block: &syn::Block) -> bool {
    let mut returns = Returns(false);
    returns.visit_block(block);
    returns.0
}

struct Returns(bool);

impl<'ast> Visit<'ast> for Returns {
    fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
        self.0 = true;
    }
    fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
        self.0 = true;
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let known = matches!(super::std_macros::parse(mac), Some(Ok(_)));
        self.0 |= !known || tokens_return(mac.tokens.clone());
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Do these tokens hold a `return` or a `?` (in a closure too: tokens do not say)?
fn tokens_return(tokens: proc_macro2::TokenStream) -> bool {
    tokens.into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(ident) => ident == "return",
        proc_macro2::TokenTree::Punct(punct) => punct.as_char() == '?',
        proc_macro2::TokenTree::Group(group) => tokens_return(group.stream()),
        proc_macro2::TokenTree::Literal(_) => false,
    })
}

/// How a statement that always leaves its block leaves it.
#[derive(Clone, PartialEq)]
pub(crate) enum Leave {
    Return,
    Break(Option<syn::Lifetime>),
    Continue(Option<syn::Lifetime>),
    /// A call of one of the standard macros that panic, or an empty `match` (on a value of an
    /// uninhabited type: `match resume_unwind(p) {}`): nothing after it runs, and unwinding or
    /// exiting leaves the function.
    Panic,
}

/// Does `block` always leave the function, by a statement of its own that returns, panics
/// (`panic!`) or does not complete (`match resume_unwind(p) {}`), with no `break` or
/// `continue` before it that could leave the block first (with a value, say)? Nothing such a
/// block computes outlives it but what it returns, which cannot borrow the function's locals.
pub(crate) fn leaves_the_function(block: &syn::Block) -> bool {
    matches!(block_leaves(block), Some(Leave::Return | Leave::Panic))
}

/// Does `block` always leave, and how: by its first statement that always leaves (a
/// `return`, a `break` or `continue`, a panic, a block of its own that leaves), with no
/// statement before it that may leave by another jump first. (A statement before it may
/// `return` or `?`: either way nothing after the block runs, which is what callers ask.)
pub(crate) fn block_leaves(block: &syn::Block) -> Option<Leave> {
    for stmt in &block.stmts {
        let leaves = match stmt {
            syn::Stmt::Expr(expr, _) => expr_leaves(expr),
            syn::Stmt::Macro(node) => panicking(&node.mac).then_some(Leave::Panic),
            _ => None,
        };
        if leaves.is_some() {
            return leaves;
        }
        let jumps = match stmt {
            syn::Stmt::Expr(expr, _) => jumps_out_of(expr),
            syn::Stmt::Local(local) => local.init.as_ref().is_some_and(|init| {
                jumps_out_of(&init.expr) || init.diverge.as_ref().is_some_and(|(_, diverge)| jumps_out_of(diverge))
            }),
            syn::Stmt::Macro(_) | syn::Stmt::Item(_) => false,
        };
        if jumps {
            return None;
        }
    }
    None
}

/// Does `expr`, as a statement, always leave its block, and how (`block_leaves`)?
pub(crate) fn expr_leaves(expr: &syn::Expr) -> Option<Leave> {
    match super::strip_parens(expr) {
        syn::Expr::Return(_) => Some(Leave::Return),
        syn::Expr::Break(node) => Some(Leave::Break(node.label.clone())),
        syn::Expr::Continue(node) => Some(Leave::Continue(node.label.clone())),
        syn::Expr::Macro(node) => panicking(&node.mac).then_some(Leave::Panic),
        // `match never {}`: its scrutinee has an uninhabited type, rustc checks, so it does
        // not complete (`parse::diverging_calls` writes `resume_unwind(p)` so).
        syn::Expr::Match(node) => node.arms.is_empty().then_some(Leave::Panic),
        // A block of the user's (`{ panic!(..); }`); a labelled one may be left by its own
        // `break`, which the walk would take for a jump out of it: not read.
        syn::Expr::Block(node) if node.label.is_none() => block_leaves(&node.block),
        _ => None,
    }
}

/// Is this a call of one of the standard macros that panic (`panic!`, `unreachable!`,
/// `todo!`, `unimplemented!`)?
pub(crate) fn panicking(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|last| {
        matches!(last.ident.to_string().as_str(), "panic" | "unreachable" | "todo" | "unimplemented")
    })
}

/// The loops and labelled blocks around a jump, inside the code being asked about.
#[derive(Clone, Default)]
pub(crate) struct Targets {
    loops: u32,
    labels: Vec<String>,
}

impl Targets {
    /// Does a jump with this label (or none) leave the code?
    pub(crate) fn escapes(&self, label: Option<&syn::Lifetime>) -> bool {
        match label {
            Some(label) => !self.labels.contains(&label.ident.to_string()),
            None => self.loops == 0,
        }
    }

    /// The targets inside a loop (`is_loop`) or a block with this label.
    pub(crate) fn inside(&self, label: Option<&syn::Label>, is_loop: bool) -> Targets {
        let mut inner = self.clone();
        inner.loops += u32::from(is_loop);
        inner.labels.extend(label.map(|label| label.name.ident.to_string()));
        inner
    }

    /// Does a `Jumps` search from these targets find a jump leaving the code?
    pub(crate) fn visit(&self, search: impl FnOnce(&mut Jumps)) -> bool {
        !self.search(search).is_empty()
    }

    /// The jumps a `Jumps` search from these targets finds leaving the code.
    pub(crate) fn search(&self, search: impl FnOnce(&mut Jumps)) -> Vec<Leave> {
        let mut jumps = Jumps { targets: self.clone(), escaping: Vec::new() };
        search(&mut jumps);
        jumps.escaping
    }

    pub(crate) fn syn_jumps(&self, expr: &syn::Expr) -> bool {
        self.visit(|jumps| jumps.visit_expr(expr))
    }
}

/// Finds the `break`s and `continue`s that leave the code visited.
pub(crate) struct Jumps {
    targets: Targets,
    escaping: Vec<Leave>,
}

impl Jumps {
    fn nested(&mut self, label: Option<&syn::Label>, is_loop: bool, visit: impl FnOnce(&mut Self)) {
        let inner = self.targets.inside(label, is_loop);
        let outer = std::mem::replace(&mut self.targets, inner);
        visit(self);
        self.targets = outer;
    }
}

impl<'ast> Visit<'ast> for Jumps {
    fn visit_expr_break(&mut self, node: &'ast syn::ExprBreak) {
        if self.targets.escapes(node.label.as_ref()) {
            self.escaping.push(Leave::Break(node.label.clone()));
        }
        syn::visit::visit_expr_break(self, node);
    }
    fn visit_expr_continue(&mut self, node: &'ast syn::ExprContinue) {
        if self.targets.escapes(node.label.as_ref()) {
            self.escaping.push(Leave::Continue(node.label.clone()));
        }
    }
    fn visit_expr_loop(&mut self, node: &'ast syn::ExprLoop) {
        self.nested(node.label.as_ref(), true, |this| syn::visit::visit_block(this, &node.body));
    }
    fn visit_expr_while(&mut self, node: &'ast syn::ExprWhile) {
        // The condition is in the loop too: a `break` there ends it.
        self.nested(node.label.as_ref(), true, |this| {
            this.visit_expr(&node.cond);
            syn::visit::visit_block(this, &node.body);
        });
    }
    fn visit_expr_for_loop(&mut self, node: &'ast syn::ExprForLoop) {
        self.visit_expr(&node.expr);
        self.nested(node.label.as_ref(), true, |this| syn::visit::visit_block(this, &node.body));
    }
    fn visit_expr_block(&mut self, node: &'ast syn::ExprBlock) {
        self.nested(node.label.as_ref(), false, |this| syn::visit::visit_block(this, &node.block));
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

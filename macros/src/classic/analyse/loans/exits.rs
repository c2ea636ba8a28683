//! Where the jumps of a statement lead: what code after a `return`, a `break` or a panic
//! mentions, instead of the code after the statement.

use std::collections::HashSet;

use super::Finder;
use crate::classic::syntax::jumps;

/// What code after a jump mentions, for the jumps of the current statement.
#[derive(Default)]
pub(super) struct Exits {
    /// The loops around the statement, innermost last: each one's label and what code after it
    /// mentions (what a `break` out of it leads to).
    pub(super) loops: Vec<(Option<String>, HashSet<String>)>,
    /// After a `return`: nothing in the function's body; in an async block, what follows it.
    pub(super) returned: HashSet<String>,
}

impl Finder<'_> {
    /// Where a block that always leaves at its last statement goes on: `leads_to` of that
    /// statement, when no statement before it may `break` or `continue` out of the block.
    pub(super) fn block_leads_to(&self, stmts: &[syn::Stmt]) -> Option<HashSet<String>> {
        let (last, before) = stmts.split_last()?;
        let after = match last {
            syn::Stmt::Expr(expr, _) => self.leads_to(expr)?,
            syn::Stmt::Macro(node) if jumps::panicking(&node.mac) => HashSet::new(),
            _ => return None,
        };
        let may_jump = before.iter().any(|stmt| {
            let block = syn::Block { brace_token: Default::default(), stmts: vec![stmt.clone()] };
            jumps::jumps_out_of(&syn::Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block }))
        });
        (!may_jump).then_some(after)
    }

    /// What code after `expr` mentions, when it is a jump: nothing after a `return`, what
    /// follows the loop after a `break` out of it.
    pub(super) fn leads_to(&self, expr: &syn::Expr) -> Option<HashSet<String>> {
        match expr {
            syn::Expr::Return(_) => Some(self.exits.returned.clone()),
            syn::Expr::Macro(node) if jumps::panicking(&node.mac) => Some(HashSet::new()),
            syn::Expr::Break(node) => {
                let target = match &node.label {
                    None => self.exits.loops.last(),
                    Some(label) => self
                        .exits
                        .loops
                        .iter()
                        .rev()
                        .find(|(name, _)| name.as_deref() == Some(&label.ident.to_string())),
                };
                target.map(|(_, after)| after.clone())
            }
            _ => None,
        }
    }

    /// Walk a loop's body (`f`), whose `break`s lead to what follows the loop.
    pub(super) fn in_loop(&mut self, label: Option<&syn::Label>, f: impl FnOnce(&mut Self)) {
        self.exits.loops.push((label.map(|label| label.name.ident.to_string()), self.later.clone()));
        f(self);
        self.exits.loops.pop();
    }
}

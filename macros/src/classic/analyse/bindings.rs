//! Every binding the function declares, found in one walk: its parameters, and each `let`,
//! pattern (a `match` arm's, an `if let`'s, a `while let`'s, a `for`'s) and closure parameter
//! of its body, nested closures and async blocks and the standard macros' arguments included,
//! items not (they are not the function's). Another macro's tokens declare nothing here: the
//! lowering cannot see what such a macro binds (`parse::macro_locals` rewrites the ones it
//! can into `let`s first).
//!
//! The questions the analyses ask by name (does more than one `let` bind it, is some binding
//! of it `mut`, is it a local at all) are answered from this table, not by walks of their own.

use std::collections::{HashMap, HashSet};

use proc_macro2::Ident;
use syn::visit::{self, Visit};

use crate::classic::syntax::bindings::pattern_bindings;
use crate::classic::syntax::std_macros;

/// How a binding is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Parameter,
    Let,
    /// A `match` arm's, an `if let`'s or `while let`'s, a `for` loop's.
    Pattern,
    ClosureParameter,
}

struct Declared {
    name: String,
    kind: Kind,
    mutable: bool,
}

/// The function's bindings, in the order the walk meets them.
pub(crate) struct Bindings {
    declared: Vec<Declared>,
}

impl Bindings {
    /// The bindings of the parameters (`params`, each with whether it is `mut`) and of `body`.
    pub(crate) fn of(params: &[(Ident, bool)], body: &syn::Block) -> Bindings {
        let mut walk = Walk {
            declared: params
                .iter()
                .map(|(ident, mutable)| Declared { name: name_of(ident), kind: Kind::Parameter, mutable: *mutable })
                .collect(),
        };
        walk.visit_block(body);
        Bindings { declared: walk.declared }
    }

    /// The names that more than one `let` (or a `let` and a parameter) binds: such a `let` may
    /// hide a live local.
    pub(crate) fn rebound(&self) -> HashSet<String> {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for declared in self.declared.iter().filter(|declared| matches!(declared.kind, Kind::Parameter | Kind::Let)) {
            *counts.entry(&declared.name).or_insert(0) += 1;
        }
        counts.into_iter().filter(|(_, count)| *count > 1).map(|(name, _)| name.to_owned()).collect()
    }

    /// The names some `mut` binding has.
    pub(crate) fn mutable(&self) -> HashSet<String> {
        self.declared.iter().filter(|declared| declared.mutable).map(|declared| declared.name.clone()).collect()
    }

    /// Does some binding of the function have this name (is it a local, or may it be one)?
    pub(crate) fn declares(&self, name: &str) -> bool {
        self.declared.iter().any(|declared| declared.name == name)
    }
}

fn name_of(ident: &Ident) -> String {
    ident.to_string().trim_start_matches("r#").to_owned()
}

struct Walk {
    declared: Vec<Declared>,
}

impl Walk {
    fn pattern(&mut self, pat: &syn::Pat, kind: Kind) {
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        self.declared.extend(bindings.into_iter().map(|binding| Declared {
            name: name_of(&binding.ident),
            kind,
            mutable: binding.mutable,
        }));
    }
}

impl<'ast> Visit<'ast> for Walk {
    fn visit_local(&mut self, node: &'ast syn::Local) {
        self.pattern(&node.pat, Kind::Let);
        visit::visit_local(self, node);
    }
    fn visit_arm(&mut self, node: &'ast syn::Arm) {
        self.pattern(&node.pat, Kind::Pattern);
        visit::visit_arm(self, node);
    }
    fn visit_expr_let(&mut self, node: &'ast syn::ExprLet) {
        self.pattern(&node.pat, Kind::Pattern);
        visit::visit_expr_let(self, node);
    }
    fn visit_expr_for_loop(&mut self, node: &'ast syn::ExprForLoop) {
        self.pattern(&node.pat, Kind::Pattern);
        visit::visit_expr_for_loop(self, node);
    }
    fn visit_expr_closure(&mut self, node: &'ast syn::ExprClosure) {
        for input in &node.inputs {
            self.pattern(input, Kind::ClosureParameter);
        }
        visit::visit_expr_closure(self, node);
    }
    // The patterns above are walked once, as the bindings they declare; an arm's guard is
    // code (`if let` in it binds).
    fn visit_pat(&mut self, node: &'ast syn::Pat) {
        if let syn::Pat::Guard(guarded) = node {
            self.visit_expr(&guarded.guard);
        }
    }
    // A standard macro's arguments are expressions the lowering takes apart: their `let`s
    // are the function's (`panic!("{}", { let n = f(); n })`).
    fn visit_macro(&mut self, node: &'ast syn::Macro) {
        if let Some(Ok(parsed)) = std_macros::parse(node) {
            for expr in parsed.exprs() {
                self.visit_expr(expr);
            }
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(params: &[(&str, bool)], body: &str) -> Bindings {
        let params: Vec<(Ident, bool)> =
            params.iter().map(|(name, mutable)| (Ident::new(name, proc_macro2::Span::call_site()), *mutable)).collect();
        Bindings::of(&params, &syn::parse_str(body).expect("a block"))
    }

    fn sorted(names: HashSet<String>) -> Vec<String> {
        let mut names: Vec<String> = names.into_iter().collect();
        names.sort();
        names
    }

    #[test]
    fn every_kind_of_binding_is_declared_once_walked() {
        let bindings = of(
            &[("conn", false), ("mut_param", true)],
            r#"{
                let mut total = 0;
                let conn = conn.limit(2);
                for (i, mut item) in items { total += i; }
                if let Some(first) = head { drop(first); }
                while let Some(next) = queue.pop() { let r#gen = next; }
                match reply {
                    Ok(body) if let Some(len) = body.len() => len,
                    Err(_) => 0,
                };
                let f = |mut acc: u32, x| acc + x;
                fn helper(hidden: u32) -> u32 { let inner = hidden; inner }
                panic!("{}", { let counted = 1; counted });
                my_macro!({ let unseen = 1; unseen });
            }"#,
        );
        for name in [
            "conn",
            "mut_param",
            "total",
            "i",
            "item",
            "first",
            "next",
            "gen",
            "body",
            "len",
            "acc",
            "x",
            "f",
            "counted",
        ] {
            assert!(bindings.declares(name), "{name} is declared");
        }
        // An item's bindings are not the function's, nor an unknown macro's; a name only used
        // is no binding.
        for name in ["hidden", "inner", "unseen", "items", "head", "queue", "reply", "drop"] {
            assert!(!bindings.declares(name), "{name} is not declared");
        }
        // A `let` and a parameter, or two `let`s, of one name: rebound. Patterns are not `let`s.
        assert_eq!(sorted(bindings.rebound()), ["conn"]);
        assert_eq!(sorted(bindings.mutable()), ["acc", "item", "mut_param", "total"]);
    }
}

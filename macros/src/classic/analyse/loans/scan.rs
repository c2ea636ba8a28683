//! What a piece of code binds, names and borrows, read from its syntax: the questions the
//! search for held borrows asks of each statement.

use super::*;
use crate::classic::syntax::jumps::leaves_the_function;

pub(super) fn lets_of(cond: &syn::Expr) -> Vec<(&syn::Pat, &syn::Expr)> {
    crate::classic::syntax::let_chain(cond).into_iter().map(|node| (&*node.pat, &*node.expr)).collect()
}

/// The locals whose borrows the value of `expr` may hold: the roots of its `&place`s, of
/// receivers of methods that may return a borrow, and what its non-`move` closures and async
/// blocks capture.
pub(super) fn holding_roots(expr: &syn::Expr, out: &mut HashSet<String>) {
    struct Roots<'o>(&'o mut HashSet<String>);
    impl<'ast> Visit<'ast> for Roots<'_> {
        fn visit_expr(&mut self, expr: &'ast syn::Expr) {
            match expr {
                syn::Expr::Reference(node) => place_root_into(&node.expr, self.0),
                syn::Expr::RawAddr(node) => place_root_into(&node.expr, self.0),
                syn::Expr::MethodCall(node) if !returns_owned(&node.method.to_string()) => {
                    place_root_into(&node.receiver, self.0)
                }
                // What an await awaits is a future, whatever the method's name says (an
                // `async fn fill(&mut self, ..)` is not `slice::fill`): it may hold its
                // receiver borrowed until it completes.
                syn::Expr::Await(node) => {
                    if let syn::Expr::MethodCall(call) = strip_parens(&node.base) {
                        place_root_into(&call.receiver, self.0);
                    }
                }
                syn::Expr::Closure(node) if node.capture.is_none() => free_idents(&node.body, self.0),
                syn::Expr::Async(node) if node.capture.is_none() => free_idents_block(&node.block, self.0),
                // A macro's value holds no borrow of a local kept in place: a standard macro's
                // (`format!`, `vec!`) owns what it holds, and any other macro is lent references
                // bounded by the run of `move_next` (`generate::places`), which no value held
                // across an await may keep. Keeping what it names in place would only turn a
                // macro that takes or copies a local (`async move { .. }`) into a refusal.
                _ => {}
            }
            match expr {
                syn::Expr::Closure(_) | syn::Expr::Async(_) => {}
                _ => visit::visit_expr(self, expr),
            }
        }
        // A block that leaves the function (an arm that re-raises a panic: `Err(p) => {
        // guard.finish(); resume_unwind(p); }`) gives the value nothing it borrows.
        fn visit_block(&mut self, block: &'ast syn::Block) {
            if !leaves_the_function(block) {
                visit::visit_block(self, block);
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    Roots(out).visit_expr(expr);
}

/// The locals that the non-`move` closures and async blocks of `expr` name (a part of
/// `holding_roots`).
pub(super) fn closure_captures(expr: &syn::Expr, out: &mut HashSet<String>) {
    struct Captures<'o>(&'o mut HashSet<String>);
    impl<'ast> Visit<'ast> for Captures<'_> {
        fn visit_expr_closure(&mut self, node: &'ast syn::ExprClosure) {
            if node.capture.is_none() {
                free_idents(&node.body, self.0);
            }
        }
        fn visit_expr_async(&mut self, node: &'ast syn::ExprAsync) {
            if node.capture.is_none() {
                free_idents_block(&node.block, self.0);
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    Captures(out).visit_expr(expr);
}

/// The names `let`s bind to async closures (`let f = async |x| ..;`): their calls' futures
/// borrow them.
pub(super) fn async_closures(block: &syn::Block) -> HashSet<String> {
    struct Lets(HashSet<String>);
    impl<'ast> Visit<'ast> for Lets {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            if let Some(init) = &local.init
                && let syn::Expr::Closure(closure) = strip_parens(&init.expr)
                && closure.asyncness.is_some()
            {
                let mut bindings = Vec::new();
                crate::classic::syntax::bindings::pattern_bindings(&local.pat, &mut bindings);
                self.0.extend(bindings.into_iter().map(|binding| binding.ident.to_string()));
            }
            visit::visit_local(self, local);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut lets = Lets(HashSet::new());
    lets.visit_block(block);
    lets.0
}

/// In an awaited operand: a local it calls (`f(1).await` borrows the closure `f`) and `&mut`
/// parameters passed along (`fill(v).await` reborrows `*v`). A local called inside the
/// operand's arguments (`create(path, make())`) is done with before the await, and its value
/// holds no borrow of it (a closure cannot return a borrow of itself), unless it is an async
/// closure (`async_callables`), whose future may borrow it.
pub(super) fn implicit_borrows(
    expr: &syn::Expr,
    exclusive_refs: &HashSet<String>,
    async_callables: &HashSet<String>,
    out: &mut HashSet<String>,
) {
    struct Implicit<'a> {
        exclusive_refs: &'a HashSet<String>,
        async_callables: &'a HashSet<String>,
        out: &'a mut HashSet<String>,
    }
    impl<'ast> Visit<'ast> for Implicit<'_> {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let Some(root) = place_root(&call.func).filter(|root| self.async_callables.contains(root)) {
                self.out.insert(root);
            }
            visit::visit_expr_call(self, call);
        }
        fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
            let name = if path.path.is_ident("self") {
                Some("self".to_owned())
            } else {
                path.path.get_ident().map(|ident| ident.to_string())
            };
            if let Some(name) = name.filter(|name| self.exclusive_refs.contains(name)) {
                self.out.insert(name);
            }
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    if let syn::Expr::Call(call) = strip_parens(expr)
        && let Some(root) = place_root(&call.func)
    {
        out.insert(root);
    }
    Implicit { exclusive_refs, async_callables, out }.visit_expr(expr);
}

/// Does a pattern bind anything by reference, explicitly (`ref x`)?
pub(super) fn binds_by_ref(pat: &syn::Pat) -> bool {
    let mut bindings = Vec::new();
    crate::classic::syntax::bindings::pattern_bindings(pat, &mut bindings);
    bindings.iter().any(|binding| binding.by_ref)
}

pub(super) fn has_bindings(pat: &syn::Pat) -> bool {
    let mut bindings = Vec::new();
    crate::classic::syntax::bindings::pattern_bindings(pat, &mut bindings);
    !bindings.is_empty()
}

/// Every single-identifier path in a closure's or async block's body, `self` included: what it
/// may capture (names bound inside it are over-counted, harmlessly).
pub(super) fn free_idents(expr: &syn::Expr, out: &mut HashSet<String>) {
    let mut paths = Paths(out);
    paths.visit_expr(expr);
}

pub(super) fn free_idents_block(block: &syn::Block, out: &mut HashSet<String>) {
    let mut paths = Paths(out);
    paths.visit_block(block);
}

pub(super) struct Paths<'o>(&'o mut HashSet<String>);

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
        if let Some(ident) = path.path.get_ident() {
            self.0.insert(ident.to_string());
        } else if path.qself.is_none() && path.path.is_ident("self") {
            self.0.insert("self".to_owned());
        }
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.0.extend(idents(&mac.tokens));
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

pub(super) fn idents(tokens: &TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    for token in tokens.clone() {
        match token {
            TokenTree::Ident(ident) => out.push(ident.to_string()),
            TokenTree::Group(group) => out.extend(idents(&group.stream())),
            // Inline format captures: `"{v}"`, `"{v:?}"`.
            TokenTree::Literal(literal) => out.extend(std_macros::token_captures(&literal)),
            TokenTree::Punct(_) => {}
        }
    }
    out
}

/// The names a `let` statement binds.
pub(super) fn let_bound_names(stmt: &syn::Stmt) -> Vec<String> {
    let syn::Stmt::Local(local) = stmt else { return Vec::new() };
    let mut bindings = Vec::new();
    crate::classic::syntax::bindings::pattern_bindings(&local.pat, &mut bindings);
    bindings.into_iter().map(|binding| binding.ident.to_string()).collect()
}

/// The locals a statement names, once per mention, as the statement's code sees them: not
/// the names its own bindings hide (`{ let v = 1; v }` does not name an outer `v`).
pub(super) fn named_in(stmt: &syn::Stmt) -> Vec<String> {
    let mentioned = match stmt {
        syn::Stmt::Local(local) => {
            let mut found = local.init.as_ref().map(|init| mentions::of_expr(&init.expr)).unwrap_or_default();
            if let Some((_, diverge)) = local.init.as_ref().and_then(|init| init.diverge.as_ref()) {
                found.extend(mentions::of_expr(diverge));
            }
            found
        }
        _ => mentions::of_stmt(stmt),
    };
    mentioned.into_iter().map(|mention| mentions::written_name(&mention.name).to_owned()).collect()
}

/// How often each identifier appears in some tokens.
pub(super) fn counts(tokens: &TokenStream) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for ident in idents(tokens) {
        *out.entry(ident).or_insert(0) += 1;
    }
    out
}

/// The locals a `match` arm names, once per mention (its guard and its body), as `named_in`
/// counts a statement's: not the names the arm's pattern or the body's own `let`s bind.
pub(super) fn arm_named(arm: &syn::Arm) -> HashMap<String, usize> {
    let mut bindings = Vec::new();
    crate::classic::syntax::bindings::pattern_bindings(&arm.pat, &mut bindings);
    let bound: HashSet<String> = bindings.into_iter().map(|binding| binding.ident.to_string()).collect();
    let mut found = mentions::of_expr(&arm.body);
    if let syn::Pat::Guard(guard) = &arm.pat {
        found.extend(mentions::of_expr(&guard.guard));
    }
    let mut named = HashMap::new();
    for mention in found {
        let name = mentions::written_name(&mention.name).to_owned();
        if !bound.contains(&name) {
            *named.entry(name).or_insert(0) += 1;
        }
    }
    named
}

//! Blocks, `if`, `match` and loops that the walk splits into states: each path's code, the
//! merge point after them, a loop's head.

use super::*;
use crate::classic::generate::places::matched_whole;

impl<'a> Emitter<'a> {
    pub(super) fn block(&mut self, block: &'a Block, sink: Sink) {
        if block.label.is_some() || self.hides_outer_local(block) {
            return self.block_with_exit(block, sink);
        }
        let head = if block.unsafety.is_some() { quote!(unsafe) } else { quote!() };
        self.push_scope(head, block.unsafety.is_some());
        self.position.block_tail = block.span;
        self.stmts(&block.stmts, sink);
        self.pop_scope();
    }

    /// Does a `let` of this block bind the name of a local declared outside it? `bind_let`
    /// may then move that local to a hidden name inside the block: the code after the block
    /// gets it back under its own name in a state of its own (as after a labelled block).
    pub(super) fn hides_outer_local(&self, block: &Block) -> bool {
        block.stmts.iter().any(|stmt| {
            let Stmt::Let(node) = stmt else { return false };
            let mut bindings = Vec::new();
            pattern_bindings(&node.pat, &mut bindings);
            bindings.iter().any(|binding| self.lookup(&binding.ident.to_string()).is_some())
        })
    }

    /// A block that ends in a state of its own: a labelled one (`break 'label` jumps there),
    /// or one that hides an outer local.
    pub(super) fn block_with_exit(&mut self, block: &'a Block, sink: Sink) {
        let depth = self.scopes.len();
        let exit = self.new_state();
        let label = block.label.as_ref().map(|label| label.name.ident.to_string());
        self.position.targets.push(JumpTarget { label, is_loop: false, sink: sink.clone() });
        let rest_len = self.position.rest.len();
        self.position.target_info.push(TargetInfo { head: None, exit, depth, rest_len });
        let origin = self.states.segment.state;
        let level_depth = self.states.segment.levels.len();
        self.states.pinned.push(origin);
        if let Some(label) = &block.label {
            self.push_rest(Rest::Labelled(label));
        }
        self.push_scope(quote!(), block.unsafety.is_some());
        self.stmts(&block.stmts, sink);
        let scope = self.end_scope();
        if block.label.is_some() {
            self.pop_rest();
        }
        self.jump(exit, None);
        self.unshadow(scope);
        self.back_to_after_scope(origin, level_depth);
        self.states.pinned.pop();
        self.position.targets.pop();
        self.position.target_info.pop();
        self.begin(exit, TokenStream::new(), false);
    }

    /// Like `back_to`, when the branch's scope was already popped from `scopes`.
    pub(super) fn back_to_after_scope(&mut self, origin: StateId, level_depth: usize) {
        self.back_to(origin, level_depth);
    }

    pub(super) fn if_expr(&mut self, node: &'a ir::If, sink: Sink) {
        let merge = self.new_state();
        let origin = self.states.segment.state;
        let level_depth = self.states.segment.levels.len();
        let before = self.init.clone();
        self.states.pinned.push(origin);

        let (cond_expr, rebound) = self.rebinding_in_condition(&node.cond);
        let cond = self.rewrite_expr(&cond_expr);
        let else_path = node.else_branch.as_ref().map_or(Path::Empty, Path::Expr);
        self.push_rest(Rest::Paths(vec![Path::Block(&node.then_branch), else_path]));
        self.apply(&mentions::of_expr(&node.cond));
        self.pop_rest();
        let after_cond = self.init.clone();
        self.push_scope(quote!(if #cond), false);
        if let syn::Expr::Let(_) | syn::Expr::Binary(_) = &cond_expr {
            for pat in let_patterns(&cond_expr) {
                let borrows = let_scrutinee(&cond_expr, pat).and_then(|scrutinee| self.borrowed_local(scrutinee));
                self.declare_pattern(pat, Init::Yes, borrows);
            }
        }
        // What the branch names lives past the `let`s that bind the hidden locals (a jump
        // there saves it).
        self.push_rest(Rest::Paths(vec![Path::Block(&node.then_branch)]));
        self.bind_rebound(rebound);
        self.pop_rest();
        self.stmts(&node.then_branch.stmts, sink.clone());
        let scope = self.end_scope();
        self.jump(merge, None);
        self.unshadow(scope);
        self.back_to(origin, level_depth);

        self.restore_init(&after_cond);
        self.position.reachable = true;
        match &node.else_branch {
            Some(else_branch) => {
                self.push_scope(quote!(else), false);
                self.expr_in_branch(else_branch, sink);
                let scope = self.end_scope();
                self.jump(merge, None);
                self.unshadow(scope);
                self.back_to(origin, level_depth);
                self.position.reachable = false;
            }
            None => {
                // The condition was false: `()` to the sink, then the merge.
                self.deliver(quote!(()), &sink, Span::call_site());
                self.jump(merge, None);
            }
        }
        let _ = before;
        self.states.pinned.pop();
        self.begin(merge, TokenStream::new(), false);
    }

    /// An `else` branch: a block's statements, or an `else if`.
    pub(super) fn expr_in_branch(&mut self, expr: &'a Expr, sink: Sink) {
        match expr {
            Expr::Block(block) if block.label.is_none() && block.unsafety.is_none() => self.stmts(&block.stmts, sink),
            other => self.expr(other, sink),
        }
    }

    pub(super) fn match_expr(&mut self, node: &'a ir::Match, sink: Sink) {
        let merge = self.new_state();
        let origin = self.states.segment.state;
        let level_depth = self.states.segment.levels.len();
        self.states.pinned.push(origin);
        let patterns: Vec<&syn::Pat> = node.arms.iter().map(|arm| &arm.pat).collect();
        // A local that lives in place, taken whole, each arm giving back what it leaves
        // (`places::matched_whole`).
        let whole = self.matched_whole(&node.scrutinee, &patterns);
        let scrutinee = self.rewrite_matched(&node.scrutinee, if whole.is_some() { None } else { Some(&patterns) });
        let borrows = self.borrowed_local(&node.scrutinee);
        // A place matched by arms of which some bind by value and some do not (`Ok(s) => ..,
        // Err(_) => ..`) moves only in the former: its use is each arm's own, so that an arm
        // that leaves it whole saves it whole, to drop where its scope ends.
        let per_arm =
            crate::classic::syntax::place_root(&node.scrutinee, crate::classic::syntax::Through::Fields).is_some() && {
                let binding: Vec<bool> = patterns.iter().map(|pat| mentions::binds_by_value(pat)).collect();
                binding.contains(&true) && binding.contains(&false)
            };
        if !per_arm {
            self.push_rest(Rest::Paths(node.arms.iter().map(Path::Arm).collect()));
            self.apply(&mentions::of_scrutinee(&node.scrutinee, node.arms.iter().map(|arm| &arm.pat)));
            self.pop_rest();
        }
        let after_scrutinee = self.init.clone();
        self.push_level(quote!(match #scrutinee));
        for (index, arm) in node.arms.iter().enumerate() {
            self.restore_init(&after_scrutinee);
            self.position.reachable = true;
            if per_arm {
                self.push_rest(Rest::Paths(vec![Path::Arm(arm)]));
                self.apply(&mentions::of_scrutinee(&node.scrutinee, std::iter::once(&arm.pat)));
                self.pop_rest();
            }
            let attrs = &arm.attrs;
            // What a moving arm leaves of a local taken whole cannot go back: code after its
            // bindings that reads a field of the local (the arm's, or the code after the
            // `match`) asks rustc that they be `Copy` (`matched_whole::by_value`). (Read whole,
            // the local is the twin's E0382 on the paths through such an arm.)
            let read_again = whole.is_some()
                && matched_whole::local_matched(&node.scrutinee).is_some_and(|name| {
                    let name = mentions::counted_name(&name).to_owned();
                    // (A binding of the arm's own of that name hides the local in its body.)
                    let body_sees_it = !crate::classic::analyse::liveness::pattern_binds(&arm.pat, &name);
                    if body_sees_it {
                        self.push_rest(Rest::Paths(vec![Path::Block(&arm.body)]));
                    }
                    let read = self.fields_named_later(&name);
                    if body_sees_it {
                        self.pop_rest();
                    }
                    read
                });
            let (arm_pat, rebound) = self.rebinding(&arm.pat);
            let pat = self.places_in_guard(&arm_pat);
            let pat = self.rewriter().pat(&pat);
            let (pat, prologue) = match &whole {
                Some((place, takes)) => {
                    matched_whole::arm_taking(takes[index], &pat, place, read_again, self.config.krate)
                }
                None => (pat, TokenStream::new()),
            };
            self.push_scope(quote!(#(#attrs)* #pat =>), false);
            self.emit(prologue);
            self.declare_pattern(&arm_pat, Init::Yes, if rebound.is_empty() { borrows } else { None });
            self.push_rest(Rest::Paths(vec![Path::Block(&arm.body)]));
            self.bind_rebound(rebound);
            self.pop_rest();
            self.stmts(&arm.body.stmts, sink.clone());
            let scope = self.end_scope();
            self.jump(merge, None);
            self.unshadow(scope);
            self.back_to(origin, level_depth + 1);
        }
        self.back_to(origin, level_depth);
        self.position.reachable = false;
        self.states.pinned.pop();
        self.begin(merge, TokenStream::new(), false);
    }

    pub(super) fn loop_expr(&mut self, node: &'a ir::Loop, sink: Sink) {
        let depth = self.scopes.len();
        let head = self.new_state();
        let exit = self.new_state();
        let label = node.label.as_ref().map(|label| label.name.ident.to_string());
        self.position.targets.push(JumpTarget { label, is_loop: true, sink: sink.clone() });
        let rest_len = self.position.rest.len();
        self.position.target_info.push(TargetInfo { head: Some(head), exit, depth, rest_len });
        self.push_rest(Rest::LoopBody(&node.body, node.label.as_ref()));
        self.jump(head, None);
        if self.begin(head, TokenStream::new(), true) {
            self.push_scope(quote!(), false);
            self.stmts(&node.body.stmts, Sink::Discard);
            let scope = self.end_scope();
            self.jump(head, None);
            self.unshadow(scope);
            while self.states.segment.levels.len() > depth {
                self.pop_level();
            }
        }
        self.pop_rest();
        self.position.targets.pop();
        self.position.target_info.pop();
        if self.begin(exit, TokenStream::new(), false) && node.unit {
            // Left by `break`s without a value (a `while` or `for` that ends, say): the loop's
            // value is `()`. (A loop with a `break value` delivers it there: a return, or the
            // sink's slot.)
            match &sink {
                Sink::Return => self.deliver(quote!(()), &sink, Span::call_site()),
                Sink::Assign(var, ..) if self.init[*var] == Init::No => {
                    self.deliver(quote!(()), &sink, Span::call_site())
                }
                _ => {}
            }
        }
    }
}

/// A hidden local holding a `let`'s initializer, as a value rather than a place: what the
/// pattern leaves unbound (`_`, `(x, _)`) drops at the end of the `let`, as it would from the
/// initializer itself, not with the hidden local.
/// Does `expr` contain a `return` (outside closures and async blocks)?
pub(super) fn has_return(expr: &syn::Expr) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_expr(&mut finder, expr);
    finder.0
}

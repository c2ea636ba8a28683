//! Which locals hold a value at the current point (`Init`), as code moves, assigns and uses
//! their fields; and the drops an assignment owes a value held only on some paths.

use proc_macro2::{Ident, Span};
use quote::{ToTokens, quote};

use super::{Calls, Emitter, Var, VarId};
use crate::classic::syntax::mentions::{self, Kind, Mention};

/// Whether a local holds a value at a point of the walk.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Init {
    Yes,
    No,
    /// Initialized on some paths to this point only.
    Maybe,
    /// Already stored in its slot (a construct's value on its way to the merge point).
    InSlot,
    /// Initialized, and some of its fields used by value since (`consume(pair.a)`): they were
    /// copied if their types are `Copy`, moved out otherwise. Saved whole like `Yes`, after a
    /// check that those fields are `Copy` (a partly moved value cannot be saved; rustc
    /// reports where the field moved). The mask says which of the variable's fields in
    /// `Emitter::fields_used` (by their order among that variable's; the 32nd stands for
    /// all after it too).
    FieldsUsed(u32),
    /// Initialized, and used by value since where code after it names it again: copied if its
    /// type is `Copy`; moved otherwise, and then the later mention is rustc's error in the
    /// twin (`classic::twin`). Saving it would be a second report of that move, at the
    /// parameter or `let` that declared it: it lives in place in the next walk instead, where
    /// a use by value copies or moves as the plain local does.
    UsedByValue,
}

impl Init {
    pub(super) fn join(self, other: Init) -> Init {
        match (self, other) {
            _ if self == other => self,
            (Init::Yes, Init::FieldsUsed(mask)) | (Init::FieldsUsed(mask), Init::Yes) => Init::FieldsUsed(mask),
            (Init::FieldsUsed(one), Init::FieldsUsed(other)) => Init::FieldsUsed(one | other),
            (Init::Yes | Init::FieldsUsed(_), Init::UsedByValue)
            | (Init::UsedByValue, Init::Yes | Init::FieldsUsed(_)) => Init::UsedByValue,
            _ => Init::Maybe,
        }
    }

    /// Holds a value that can be saved whole.
    pub(super) fn holds_value(self) -> bool {
        matches!(self, Init::Yes | Init::FieldsUsed(_) | Init::UsedByValue)
    }
}

impl Emitter<'_> {
    /// Update initialization states after code with these mentions ran. Returns the
    /// locals that were only maybe initialized and are assigned now: the value they may still
    /// hold (in their hidden `Option`) drops with the assignment (`drop_replaced`).
    pub(super) fn apply(&mut self, mentions: &[Mention]) -> Vec<VarId> {
        let mut replaced = Vec::new();
        for (index, mention) in mentions.iter().enumerate() {
            let Some(id) = self.lookup(&mention.name) else {
                continue;
            };
            match mention.kind {
                // (On a path that leaves: the code after the statement keeps the value.)
                _ if mention.leaves => {}
                Kind::Assign if !mention.conditional => {
                    if self.init[id] == Init::Maybe && !self.vars[id].lives_in_place() {
                        replaced.push(id);
                    }
                    self.init[id] = Init::Yes;
                }
                Kind::Move if mention.called && self.vars[id].calls == Calls::LeaveIt => {}
                // Used again by the same statement after it (`{ m!(&v); weigh(&v); }`): the
                // value did not move (a macro the lowering cannot see into only borrowed it),
                // or rustc would refuse the statement.
                Kind::Move if used_again(&mentions[index + 1..], &mention.name) => {}
                Kind::Move if !self.mentioned_later(&mention.name) => self.init[id] = Init::No,
                // Named again later: a copy, or a move that the twin reports.
                Kind::Move if !self.vars[id].no_drop() && !self.vars[id].lives_in_place() => {
                    if let Init::Yes | Init::FieldsUsed(_) = self.init[id] {
                        self.init[id] = Init::UsedByValue;
                    }
                }
                Kind::MoveField => self.field_used(id, mention),
                _ => {}
            }
        }
        replaced
    }

    /// A field of `id` used by value (`mention.field`). A local of the user's keeps its value
    /// (the field was `Copy`, which `jump_code` checks before saving it) so that its other
    /// fields drop where Rust drops them; a temporary of the lowering's own (its
    /// fields are never read again) counts as moved.
    pub(super) fn field_used(&mut self, id: VarId, mention: &Mention) {
        let var = &self.vars[id];
        if var.no_drop() {
            // A reference: only a `Copy` field can be used by value through it.
            return;
        }
        // A hidden parameter (`(a, _): (D, D)`) keeps what the pattern leaves, as Rust keeps it.
        if var.name.to_string().starts_with("__") && var.name != mentions::SELF_LOCAL && !var.param() {
            if !self.mentioned_later(&mention.name) {
                self.init[id] = Init::No;
            }
            return;
        }
        let Some(field) = &mention.field else { return };
        let owner = self.keys[id].clone();
        let key = (owner.clone(), field.to_token_stream().to_string());
        if !self.found.fields_used.iter().any(|(known, _)| *known == key) {
            self.found.fields_used.push((key.clone(), field.clone()));
        }
        let index = self
            .found
            .fields_used
            .iter()
            .filter(|((of, _), _)| *of == owner)
            .position(|(known, _)| *known == key)
            .expect("recorded above");
        let bit = 1u32 << index.min(31);
        self.init[id] = match self.init[id] {
            Init::Yes => Init::FieldsUsed(bit),
            Init::FieldsUsed(mask) => Init::FieldsUsed(mask | bit),
            other => other,
        };
    }

    /// `x = value` in `expr` where `x` may still hold a value (it is in `replaced`): the old
    /// value drops between computing the new one and the rest of the code around it, as Rust
    /// drops it: `x = match value { new => { old = None; new } }`. Removes the locals so
    /// handled from `replaced`; `drop_replaced` drops the others after the statement.
    pub(super) fn drop_on_assignment(&self, expr: &mut syn::Expr, replaced: &mut Vec<VarId>) {
        struct Assignments<'v> {
            vars: &'v [Var],
            replaced: &'v mut Vec<VarId>,
        }
        impl syn::visit_mut::VisitMut for Assignments<'_> {
            fn visit_expr_assign_mut(&mut self, assign: &mut syn::ExprAssign) {
                syn::visit_mut::visit_expr_assign_mut(self, assign);
                let target = self.replaced.iter().position(
                    |&id| matches!(&*assign.left, syn::Expr::Path(path) if path.path.is_ident(&self.vars[id].name)),
                );
                if let Some(position) = target {
                    let maybe = &self.vars[self.replaced.remove(position)].names.maybe;
                    let value = &assign.right;
                    let new = Ident::new("__new", Span::mixed_site());
                    *assign.right = syn::parse_quote!(match ::core::convert::identity(#value) { #new => { #maybe = ::core::option::Option::None; #new } });
                }
            }
            fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
            fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
            fn visit_item_mut(&mut self, _: &mut syn::Item) {}
        }
        if replaced.is_empty() {
            return;
        }
        syn::visit_mut::VisitMut::visit_expr_mut(&mut Assignments { vars: &self.vars, replaced }, expr);
    }

    /// After a statement that assigned locals that were only maybe initialized: the old
    /// values drop now, as Rust drops them on assignment (right after the new value is
    /// computed; only the write, which nothing observes, comes between).
    pub(super) fn drop_replaced(&mut self, replaced: Vec<VarId>) {
        if !self.position.reachable {
            return;
        }
        for id in replaced {
            let maybe = &self.vars[id].names.maybe;
            self.emit(quote!(#maybe = ::core::option::Option::None;));
        }
    }
}

/// Does one of `after` (the mentions a statement makes after another) use `name`'s value?
fn used_again(after: &[Mention], name: &str) -> bool {
    after.iter().any(|mention| mention.name == name && mention.kind != Kind::Assign)
}

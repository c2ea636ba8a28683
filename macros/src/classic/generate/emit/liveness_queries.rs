//! What the code after the current point does with a local: the liveness queries the walk asks
//! (`analyse::liveness` answers them over the statements still to run, `rest`).

use super::{Emitter, VarId};
use crate::classic::analyse::liveness::{self, Rest};

impl<'a> Emitter<'a> {
    pub(super) fn push_rest(&mut self, rest: Rest<'a>) {
        self.position.rest.push(rest);
        self.position.rest_depth.push(self.scopes.len());
    }

    pub(super) fn pop_rest(&mut self) {
        self.position.rest.pop();
        self.position.rest_depth.pop();
    }

    /// The entries of `rest` inside the scope that declares `id` (the code outside it cannot
    /// name this local: a mention there means another of the same name), with the indices
    /// among them where `name` means a binding of a `let` being initialized.
    pub(super) fn rest_seen_by(&self, id: VarId, name: &str) -> (&[Rest<'a>], Vec<usize>) {
        let depth = self.scopes.iter().position(|scope| scope.vars.contains(&id)).map_or(0, |index| index + 1);
        let start = self.position.rest_depth.iter().position(|&at| at >= depth).unwrap_or(self.position.rest.len());
        let rebound = self.rebound(name).into_iter().filter_map(|index| index.checked_sub(start)).collect();
        (&self.position.rest[start..], rebound)
    }

    /// Is the value `name` holds now read by code that may run after the current statement?
    pub(super) fn mentioned_later(&self, name: &str) -> bool {
        let Some(id) = self.lookup(name) else { return false };
        let (rest, rebound) = self.rest_seen_by(id, name);
        liveness::read_later(rest, name, &rebound)
    }

    /// `mentioned_later`, for a jump that leaves the code after `rest[rest_len..]` (a `break`:
    /// what follows is the code after the loop or block, not the rest of its body).
    pub(super) fn mentioned_after_leaving(&self, name: &str, rest_len: usize) -> bool {
        let Some(id) = self.lookup(name) else { return false };
        let (rest, rebound) = self.rest_seen_by(id, name);
        let skipped = self.position.rest.len() - rest.len();
        let kept = rest_len.saturating_sub(skipped).min(rest.len());
        let rebound: Vec<usize> = rebound.into_iter().filter(|&index| index < kept).collect();
        liveness::read_later(&rest[..kept], name, &rebound)
    }

    /// The entries of `rest` where `name` means a binding of a `let` being initialized.
    pub(super) fn rebound(&self, name: &str) -> Vec<usize> {
        self.position
            .initializing
            .iter()
            .filter(|(_, names)| names.iter().any(|bound| bound == name))
            .map(|(index, _)| *index)
            .collect()
    }

    /// Is this variable read by code that may run later? (Not once another binding of the
    /// same name hides it; but one that a nested scope hides, under a hidden name, may be
    /// read again once that scope ends.)
    pub(super) fn var_mentioned_later(&self, id: VarId) -> bool {
        if self.vars[id].walk.hidden {
            return true;
        }
        let name = self.vars[id].name.to_string();
        self.lookup(&name) == Some(id) && self.mentioned_later(&name)
    }

    /// `var_mentioned_later` for a jump that goes on with `rest[..rest_len]`
    /// (`mentioned_after_leaving`).
    pub(super) fn var_mentioned_after_leaving(&self, id: VarId, rest_len: usize) -> bool {
        if self.vars[id].walk.hidden {
            return true;
        }
        let name = self.vars[id].name.to_string();
        self.lookup(&name) == Some(id) && self.mentioned_after_leaving(&name, rest_len)
    }

    /// Does code that may run later name this variable at all (to assign it, say)?
    pub(super) fn var_named_later(&self, id: VarId) -> bool {
        let name = self.vars[id].name.to_string();
        if self.lookup(&name) != Some(id) {
            return false;
        }
        let (rest, rebound) = self.rest_seen_by(id, &name);
        liveness::named_later(rest, &name, &rebound)
    }

    /// `var_named_later`, from the end of a statement that runs to its end
    /// (`liveness::named_after_statement`).
    pub(super) fn var_named_after_statement(&self, id: VarId) -> bool {
        self.named_after_statement_through(id, None)
    }

    /// `var_named_after_statement` for the field `field` of `id`: mentions through its other
    /// fields do not count.
    pub(super) fn field_named_after_statement(&self, id: VarId, field: &str) -> bool {
        self.named_after_statement_through(id, Some(field))
    }

    fn named_after_statement_through(&self, id: VarId, only_field: Option<&str>) -> bool {
        let name = self.vars[id].name.to_string();
        if self.lookup(&name) != Some(id) {
            return false;
        }
        let (rest, rebound) = self.rest_seen_by(id, &name);
        liveness::named_after_statement(
            rest,
            liveness::Target { name: &name, only_field, through_a_field: false },
            &rebound,
        )
    }

    /// Does code that may run after the current statement name a field of `name`'s local
    /// (`pair.1`)? (What a `match` that moved a part of it out leaves, Rust lets it read.)
    pub(super) fn fields_named_later(&self, name: &str) -> bool {
        let Some(id) = self.lookup(name) else { return false };
        let (rest, rebound) = self.rest_seen_by(id, name);
        liveness::named_after_statement(rest, liveness::Target::fields_of(name), &rebound)
    }
}

//! The fields the function moves out of a local kept in place, one by one: each has a bit in
//! the local's `Slot` (`Slot<T, [u32; N]>` past 32), and the rest of the value drops without
//! the moved ones, as Rust drops a partly moved value.

use super::*;

impl<'a> Places<'a> {
    /// `v.a.b` (fields only) with `v` a visible local: that local and the path (`a.b`).
    pub(super) fn field_path(&self, expr: &syn::Expr) -> Option<(&'a InPlace, Vec<syn::Member>)> {
        let (root, members) = captures::field_chain(expr)?;
        Some((self.lookup(&root)?, members))
    }

    /// The number of a moved field (`path`) of `local` among the fields the function moves out
    /// of it (its bit in the local's `Slot`), recording the field if it is new.
    pub(super) fn part_index(&mut self, local: &InPlace, path: &str, record: bool) -> Option<u32> {
        let known = self.parts.get(&local.field).map(Vec::as_slice).unwrap_or_default();
        let index = match known.iter().position(|known| known == path) {
            Some(index) => index,
            None => {
                let new: Vec<String> = self
                    .found_parts
                    .iter()
                    .filter(|(field, _)| *field == local.field)
                    .map(|(_, path)| path.clone())
                    .collect();
                match new.iter().position(|known| known == path) {
                    Some(index) => known.len() + index,
                    None if record => {
                        self.found_parts.push((local.field.clone(), path.to_owned()));
                        known.len() + new.len()
                    }
                    None => return None,
                }
            }
        };
        Some(u32::try_from(index).expect("fewer than 2^32 fields"))
    }

    /// What drops the rest of `local` when fields were moved out of it: every field but
    /// the moved ones, as Rust drops a partly moved value.
    pub(super) fn rest_dropper(&self, local: &InPlace) -> TokenStream {
        let mut paths: Vec<&String> =
            self.parts.get(&local.field).map(|known| known.iter().collect()).unwrap_or_default();
        paths.extend(self.found_parts.iter().filter(|(field, _)| *field == local.field).map(|(_, path)| path));
        let whole = Ident::new("__whole", Span::mixed_site());
        let moved = Ident::new("__moved", Span::mixed_site());
        let krate = self.krate;
        let forgets = paths.iter().enumerate().map(|(index, path)| {
            let index = u32::try_from(index).expect("fewer than 2^32 fields");
            let members = path.split('.').map(|member| syn::parse_str::<syn::Member>(member).expect("a field name"));
            quote! {
                if #krate::__private::MovedFields::contains(&#moved, #index) {
                    ::core::mem::forget(#whole #(.#members)*);
                }
            }
        });
        quote! {
            |#whole, #moved| {
                #[allow(unused_unsafe)]
                let #whole = unsafe { ::core::ptr::read(#whole) };
                #(#forgets)*
            }
        }
    }
}

impl Places<'_> {
    /// `S { a: x, ..v }` moves out of `v` the fields the literal does not list, which the
    /// macro cannot name: it takes `v` whole (README, "Where the lowerings differ"). A local
    /// kept in place whose fields this function also moves one by one may have lost one by
    /// then, and taking it whole would be the lowering's own panic: refused at the user's
    /// `..v` instead, with what to write.
    pub(super) fn refuse_update_from_a_moved_part(&self, expr: &mut syn::Expr) {
        if let syn::Expr::Struct(node) = expr
            && let Some(base) = node.rest.as_deref()
            && let Some(name) = Self::path_name(base)
            && let Some(local) = self.lookup(&name)
            && self.parts.get(&local.field).is_some_and(|parts| !parts.is_empty())
        {
            let span = base.span();
            let message = format!(
                "classic lowering: a struct update from `{name}`, whose fields this function also moves one by one, \
                 cannot leave them in `{name}` (the state machine keeps `{name}` in its place and would take it whole): \
                 write the fields out instead (`.., field: {name}.field`)"
            );
            node.rest = Some(Box::new(syn::parse_quote_spanned!(span=> ::core::compile_error!(#message))));
        }
    }
}

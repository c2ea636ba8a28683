//! Which annotated function a compiled symbol (an LLVM IR function, an object symbol)
//! belongs to, and what it is.
//!
//! The inspected build uses v0 symbol names, which demangle to the full path of the item
//! and of every generic argument: `<lowering::task::Task<u64,
//! lowering::task::witness::BodyWitness<krate::classic::f::{closure#0}>> as
//! core::future::future::Future>::poll`. A symbol belongs to the record `module::function`
//!
//! - when its own item is the function or lies below it (the stub; the `move_next` closure
//!   and its `FnOnce` shims; the coroutine body): its role is the MIR body's role at the
//!   same path, which the MIR signature decided;
//! - or when it is runtime or standard-library code (`lowering`, `core`, `alloc`, `std`)
//!   whose first generic argument from the inspected crate is one of the function's types
//!   (its state machine, its coroutine): `poll` of its task, or machinery.
//!
//! Everything else (host code such as checks or executors, instantiated with the
//! function's types or not) belongs to no function.
//!
//! A method's record is `module::method` (`module_path!()` does not name the impl), while its
//! symbols say `<module::Type>::method` or `<module::Type as Trait>::method` and DWARF says
//! `module::{impl#0}::method`: both are read as the record's path ([`without_impls`]).

use std::collections::HashMap;

use crate::mir::{Body, Role};
use crate::records::{RUNTIME_CRATE, Record};

/// Crates whose generic code, instantiated for a function's types, counts as that
/// function's machinery.
const MACHINERY_CRATES: [&str; 4] = [RUNTIME_CRATE, "core", "alloc", "std"];

pub struct Attributor {
    /// `module::function` to record index.
    paths: HashMap<String, usize>,
    /// (record, path below the function) to the role MIR gave that body.
    roles: HashMap<(usize, String), Role>,
    crate_prefix: String,
}

impl Attributor {
    pub fn new(crate_name: &str, records: &[Record], bodies: &[Body]) -> Self {
        Attributor {
            paths: records.iter().enumerate().map(|(index, record)| (record.path(), index)).collect(),
            roles: bodies.iter().map(|body| ((body.record, body.inner.clone()), body.role)).collect(),
            crate_prefix: format!("{crate_name}::"),
        }
    }

    /// The record and role of the symbol whose demangled (v0, without hashes) name is `name`.
    pub fn attribute(&self, name: &str) -> Option<(usize, Role)> {
        let own = own_item(name);
        if let Some(found) = self.own_role(own) {
            return Some(found);
        }
        // A method's own items: its impl's header read away, innermost first (the state
        // machine of `<m::S>::f` is `<<m::S>::f::FStateMachine as ..>`'s own item).
        let mut flattened = name.to_owned();
        while let Some(next) = self.flatten_impl(&flattened) {
            flattened = next;
            if let Some(found) = self.own_role(own_item(&flattened)) {
                return Some(found);
            }
        }
        let owner_crate = own.split("::").next().unwrap_or(own);
        if !MACHINERY_CRATES.contains(&owner_crate) {
            return None;
        }
        let record = self.first_mentioned(name)?;
        let is_poll = name.ends_with(" as core::future::future::Future>::poll") && own.starts_with(RUNTIME_CRATE);
        Some((record, if is_poll { Role::Poll } else { Role::Machinery }))
    }

    /// The record an item of the inspected crate lies in, and its role there.
    fn own_role(&self, own: &str) -> Option<(usize, Role)> {
        let (record, inner) = self.record_prefix(own)?;
        let role = if inner.is_empty() {
            Role::Stub
        } else if inner.starts_with("__LOWERING_RECORD") {
            Role::Record
        } else {
            let closure = inner.split("::").next().unwrap_or(inner);
            self.roles
                .get(&(record, inner.to_owned()))
                .or_else(|| self.roles.get(&(record, closure.to_owned())))
                .copied()
                .unwrap_or(Role::Closure)
        };
        Some((record, role))
    }

    /// `name` with its innermost impl header of the inspected crate read as its module:
    /// `<k::m::S<T> as Tr>::f` (or `<k::m::S>::f`) becomes `k::m::f`; `None` when it has none.
    fn flatten_impl(&self, name: &str) -> Option<String> {
        let bytes = name.as_bytes();
        let opens: Vec<usize> = name.match_indices('<').map(|(at, _)| at).collect();
        for &open in opens.iter().rev() {
            let mut depth = 0i32;
            let mut close = None;
            for (index, &byte) in bytes.iter().enumerate().skip(open + 1) {
                match byte {
                    b'<' => depth += 1,
                    b'>' if depth == 0 => {
                        close = Some(index);
                        break;
                    }
                    b'>' => depth -= 1,
                    _ => {}
                }
            }
            let Some(close) = close else { continue };
            if !name[close + 1..].starts_with("::") {
                continue;
            }
            let inside = &name[open + 1..close];
            let self_type = strip_generics(inside.split(" as ").next().unwrap_or(inside));
            let Some((module, _)) = self_type.rsplit_once("::") else { continue };
            if !self_type.starts_with(&self.crate_prefix) || self_type.contains('<') {
                continue;
            }
            return Some(format!("{}{module}{}", &name[..open], &name[close + 1..]));
        }
        None
    }

    /// The record whose path is the longest `::`-prefix of `path`, and the rest of `path`.
    fn record_prefix<'a>(&self, path: &'a str) -> Option<(usize, &'a str)> {
        if !path.starts_with(&self.crate_prefix) {
            return None;
        }
        let mut end = path.len();
        loop {
            if let Some(&record) = self.paths.get(&path[..end]) {
                let rest = path[end..].strip_prefix("::").unwrap_or("");
                return Some((record, rest));
            }
            end = path[..end].rfind("::")?;
        }
    }

    /// The first record whose items appear in `name` (the outermost generic argument).
    pub fn first_mentioned(&self, name: &str) -> Option<usize> {
        if let Some(record) = self.first_mentioned_as_written(&without_impls(name)) {
            return Some(record);
        }
        let mut flattened = name.to_owned();
        while let Some(next) = self.flatten_impl(&flattened) {
            flattened = next;
            if let Some(record) = self.first_mentioned_as_written(&flattened) {
                return Some(record);
            }
        }
        None
    }

    fn first_mentioned_as_written(&self, name: &str) -> Option<usize> {
        let mut from = 0;
        while let Some(found) = name[from..].find(&self.crate_prefix) {
            let start = from + found;
            let boundary = start == 0
                || !name.as_bytes()[start - 1].is_ascii_alphanumeric()
                    && name.as_bytes()[start - 1] != b'_'
                    && name.as_bytes()[start - 1] != b':';
            let end = name[start..]
                .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | ':' | '{' | '}' | '#')))
                .map_or(name.len(), |length| start + length);
            if boundary && let Some((record, _)) = self.record_prefix(name[start..end].trim_end_matches(':')) {
                return Some(record);
            }
            from = end.max(start + 1);
        }
        None
    }
}

/// DWARF's names with their impl segments taken out: `k::m::{impl#2}::f::{async_fn_env#0}`
/// is `k::m::f::{async_fn_env#0}`, as the record of the method `f` names it.
pub fn without_impls(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find("::{impl#") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "::{impl#".len()..];
        match after.find('}') {
            Some(close) if after[..close].bytes().all(|b| b.is_ascii_digit()) => rest = &after[close + 1..],
            _ => {
                out.push_str("::{impl#");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The path of the item a symbol is: `a::b::<T>` is `a::b`; `<S<T> as Trait>::m` and
/// `<S<T>>::m` are `S`'s path (the code of an impl belongs to its self type).
pub fn own_item(name: &str) -> &str {
    if let Some(inner) = name.strip_prefix('<') {
        let mut depth = 0i32;
        for (index, character) in inner.char_indices() {
            match character {
                '<' => depth += 1,
                '>' if depth == 0 => return strip_generics(&inner[..index]),
                '>' => depth -= 1,
                ' ' if depth == 0 && inner[index..].starts_with(" as ") => {
                    return strip_generics(&inner[..index]);
                }
                _ => {}
            }
        }
        return strip_generics(inner);
    }
    strip_generics(name)
}

fn strip_generics(path: &str) -> &str {
    let end = path.find('<').unwrap_or(path.len());
    path[..end].trim_end_matches("::")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::Counts;

    #[test]
    fn symbols_belong_to_the_function_whose_types_they_carry() {
        let record = |module: &str, function: &str| Record {
            lowering: "classic".to_owned(),
            module: module.to_owned(),
            function: function.to_owned(),
            generated_type: Some("FStateMachine".to_owned()),
            value_task: false,
            file: String::new(),
            line: 0,
        };
        let records = [record("k::classic", "f"), record("k::classic", "g")];
        let bodies = [Body {
            record: 0,
            inner: "{closure#0}".to_owned(),
            role: Role::MoveNext,
            counts: Counts::default(),
            signature: String::new(),
            lines: (0, 0),
        }];
        let attributor = Attributor::new("k", &records, &bodies);
        let sm = "k::classic::f::FStateMachine<lowering::awaiter::TaskAwaiter<u64>>";
        let witness = "lowering::task::witness::BodyWitness<k::classic::f::{closure#0}>";
        assert_eq!(attributor.attribute("k::classic::f"), Some((0, Role::Stub)));
        assert_eq!(
            attributor.attribute(&format!(
                "<k::classic::f::{{closure#0}} as core::ops::function::FnOnce<(&mut {sm},)>>::call_once"
            )),
            Some((0, Role::MoveNext))
        );
        assert_eq!(
            attributor
                .attribute(&format!("<lowering::task::Task<u64, {witness}> as core::future::future::Future>::poll")),
            Some((0, Role::Poll))
        );
        assert_eq!(
            attributor.attribute(&format!("lowering::task::core::spawn::<u64, {sm}, k::classic::f::{{closure#1}}>")),
            Some((0, Role::Machinery))
        );
        // Code generic over the result type only serves every function: nobody's.
        assert_eq!(attributor.attribute("<lowering::task::handle::Handle<u64>>::poll_as_future"), None);
        assert_eq!(attributor.attribute(&format!("core::ptr::drop_in_place::<{sm}>")), Some((0, Role::Machinery)));
        assert_eq!(attributor.attribute(&format!("futures_executor::local_pool::block_on::<{sm}>")), None);
        assert_eq!(attributor.attribute("k::classic::f::__LOWERING_RECORD"), Some((0, Role::Record)));
        assert_eq!(attributor.attribute("k::classic::fg"), None);
    }

    #[test]
    fn a_methods_symbols_and_types_belong_to_its_record() {
        let record = |function: &str| Record {
            lowering: "classic".to_owned(),
            module: "k::m".to_owned(),
            function: function.to_owned(),
            generated_type: Some("GetStateMachine".to_owned()),
            value_task: false,
            file: String::new(),
            line: 0,
        };
        let records = [record("get"), record("put")];
        let attributor = Attributor::new("k", &records, &[]);
        assert_eq!(attributor.attribute("<k::m::S>::get"), Some((0, Role::Stub)));
        assert_eq!(attributor.attribute("<k::m::S<u8> as k::Tr>::put"), Some((1, Role::Stub)));
        assert_eq!(attributor.attribute("<k::m::S>::get::{closure#0}"), Some((0, Role::Closure)));
        assert_eq!(
            attributor.attribute("<<k::m::S>::get::GetStateMachine as lowering::MoveNext>::move_next"),
            Some((0, Role::Closure))
        );
        assert_eq!(
            attributor.attribute("core::ptr::drop_in_place::<<k::m::S>::put::GetStateMachine>"),
            Some((1, Role::Machinery))
        );
        assert_eq!(
            attributor.first_mentioned("lowering::task::core::Core<u32, k::m::{impl#3}::get::GetStateMachine>"),
            Some(0)
        );
        assert_eq!(attributor.attribute("<k::m::S>::other"), None);
        assert_eq!(attributor.attribute("<alloc::sync::Arc<k::m::S>>::get"), None);
        assert_eq!(without_impls("k::m::{impl#12}::f::{async_fn_env#0}"), "k::m::f::{async_fn_env#0}");
        assert_eq!(without_impls("k::{impl#x}::f"), "k::{impl#x}::f");
    }
}

//! MIR (I3): rustc's `--emit=mir` text, split into bodies, counted, and attributed to the
//! annotated function each body belongs to, by its path and its signature.
//!
//! Each body starts at column 0 (`fn NAME(ARGS) -> RET {`, `static NAME: T = {`, `const`,
//! `allocN`) and ends with `}` at column 0. Paths in MIR are printed relative to the crate
//! and trimmed where unambiguous (`classic::chain3::{closure#0}`, or `chain3` when the name
//! is unique), so a body belongs to the record `module::function` when its path is
//! `<a suffix of module>::function[::inner]`. Its signature then says what it is: the
//! classic `move_next` takes `&mut <GeneratedType><..>`, a coroutine body (the runtime
//! lowering's state machine) takes `Pin<&mut {async fn body of ..}>`.

use serde::{Deserialize, Serialize};

use crate::records::Record;

/// What a compiled piece of a function is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The function itself: classic, the stub that starts the state machine and returns the
    /// task; runtime, the function that returns the future.
    Stub,
    /// The classic `move_next` closure (and its call shims).
    MoveNext,
    /// A coroutine body rustc generated (the runtime lowering's state machine).
    Coroutine,
    /// Another closure inside the function.
    Closure,
    /// `Future::poll` of the function's task, instantiated for its state machine.
    Poll,
    /// Other runtime or standard-library code instantiated for the function's types (drop
    /// glue, the task core, `Arc`).
    Machinery,
    /// The lowering record and linkme's type check of it: equal in both lowerings, so
    /// left out of every count.
    Record,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Stub => "stub",
            Role::MoveNext => "move_next",
            Role::Coroutine => "coroutine",
            Role::Closure => "closure",
            Role::Poll => "poll",
            Role::Machinery => "machinery",
            Role::Record => "record",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub basic_blocks: u64,
    pub statements: u64,
    pub locals: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, other: Counts) {
        self.basic_blocks += other.basic_blocks;
        self.statements += other.statements;
        self.locals += other.locals;
    }
}

/// One `fn` body of the MIR that belongs to an annotated function.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Body {
    /// Index into the records.
    pub record: usize,
    /// The path below the function (`{closure#0}`), empty for the function itself.
    pub inner: String,
    pub role: Role,
    pub counts: Counts,
    /// The header line (`fn ...(..) -> .. {`), as rustc printed it.
    pub signature: String,
    /// Line range in the `.mir` file, for dumps.
    pub lines: (usize, usize),
}

/// Split `text` into bodies and keep those of annotated functions.
pub fn bodies(text: &str, records: &[Record]) -> Vec<Body> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        let header = lines[start];
        // rustc opens the file with `//` comment lines: taken for a header, they would swallow
        // the first body (up to its `}`), which on a one-function crate is the stub itself.
        if header.is_empty() || header.starts_with(' ') || header.starts_with("//") || header == "}" {
            start += 1;
            continue;
        }
        let end = (start..lines.len()).find(|&index| lines[index] == "}").unwrap_or(lines.len() - 1);
        if let Some(body) = header.strip_prefix("fn ").and_then(|rest| parse_fn(rest, &lines[start..=end], records)) {
            found.push(Body { lines: (start, end), ..body });
        }
        start = end + 1;
    }
    found
}

fn parse_fn(header: &str, body: &[&str], records: &[Record]) -> Option<Body> {
    let (path, rest) = split_path(header)?;
    let (record, inner) = owner(path, records)?;
    let arguments = top_level_split(inside_parentheses(rest)?);
    let role = role_of(&records[record], &inner, &arguments);
    Some(Body {
        record,
        inner,
        role,
        counts: count(body, arguments.len()),
        signature: header.to_owned(),
        lines: (0, 0),
    })
}

/// What a body is, from its place below the function and its signature.
fn role_of(record: &Record, inner: &str, arguments: &[&str]) -> Role {
    let argument_types = || arguments.iter().filter_map(|argument| argument.split_once(": ").map(|(_, ty)| ty));
    if inner.contains("__LOWERING_RECORD") {
        Role::Record
    } else if inner.is_empty() {
        Role::Stub
    } else if argument_types().next().is_some_and(is_coroutine_self) {
        Role::Coroutine
    } else if record.generated_type.as_deref().is_some_and(|generated| {
        argument_types().any(|ty| names_type(ty.strip_prefix("&mut ").unwrap_or(""), generated))
    }) {
        Role::MoveNext
    } else {
        Role::Closure
    }
}

/// `Pin<&mut {async fn body of ..}>` and the like: the `self` of a coroutine's resume.
/// The body of an `async fn` (or a coroutine), not of an `async` block: the classic stub's
/// borrow-check twin is an `async` block that rustc checks but never runs.
fn is_coroutine_self(ty: &str) -> bool {
    ty.strip_prefix("Pin<&mut ").or_else(|| ty.strip_prefix("std::pin::Pin<&mut ")).is_some_and(|inner| {
        inner.starts_with("{async fn body") || inner.starts_with("{coroutine") || inner.starts_with("{gen")
    })
}

/// Whether the type `ty` is `name` or `name<..>`, possibly path-qualified.
fn names_type(ty: &str, name: &str) -> bool {
    let bare = ty.split('<').next().unwrap_or(ty);
    bare == name || bare.ends_with(&format!("::{name}"))
}

/// Whether a body (or its header's return type) is the classic stub's: it returns a task
/// (`Task<T, W>` or `ValueTask<T, W>`, whose witness `W` names the body, not the state
/// machine, which the `move_next` body's signature names instead).
pub fn returns_task(signature: &str) -> bool {
    signature.rsplit_once(") -> ").is_some_and(|(_, ret)| {
        ret.starts_with("Task<")
            || ret.starts_with("ValueTask<")
            || ret.starts_with("lowering::Task<")
            || ret.starts_with("lowering::ValueTask<")
            || ret.starts_with("lowering::task::Task<")
            || ret.starts_with("lowering::value_task::ValueTask<")
    })
}

/// Whether a stub returns an `async fn` body (the runtime lowering).
pub fn returns_async_body(signature: &str) -> bool {
    signature.rsplit_once(") -> ").is_some_and(|(_, ret)| ret.starts_with("{async fn body of "))
}

/// The record whose function this MIR path is in, and the path below the function.
fn owner(path: &str, records: &[Record]) -> Option<(usize, String)> {
    let segments = top_level_segments(path);
    records.iter().enumerate().find_map(|(index, record)| {
        let at = segments.iter().position(|segment| *segment == record.function)?;
        let module: Vec<&str> = record.module.split("::").collect();
        // A method's path goes through its impl (`<impl at src/lib.rs:3:1: 3:9>::f`) or its
        // trait (`Source::f`, a default method); its record names the module only.
        let prefix: Vec<&str> =
            segments[..at].iter().copied().filter(|segment| !segment.starts_with("<impl at ")).collect();
        let in_module = |prefix: &[&str]| prefix.len() <= module.len() && module.ends_with(prefix);
        let through_trait = prefix
            .split_last()
            .is_some_and(|(last, rest)| last.starts_with(|c: char| c.is_ascii_uppercase()) && in_module(rest));
        (in_module(&prefix) || through_trait).then(|| (index, segments[at + 1..].join("::")))
    })
}

/// `NAME(ARGS) -> RET {` into `NAME` and `(ARGS) -> RET {`: the first `(` outside `<>`,
/// `{}` and `[]` (closure names carry braces, impl paths angle brackets).
fn split_path(header: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let mut previous = ' ';
    for (index, character) in header.char_indices() {
        match character {
            '<' | '{' | '[' => depth += 1,
            '>' if previous != '-' => depth -= 1,
            '}' | ']' => depth -= 1,
            '(' if depth == 0 => return Some((&header[..index], &header[index..])),
            _ => {}
        }
        previous = character;
    }
    None
}

/// `a::b<c::d>::{closure#0}` into `["a", "b<c::d>", "{closure#0}"]`.
fn top_level_segments(path: &str) -> Vec<&str> {
    let mut segments = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let bytes = path.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'<' | b'{' | b'[' | b'(' => depth += 1,
            b'>' | b'}' | b']' | b')' => depth -= 1,
            b':' if depth == 0 && bytes.get(index + 1) == Some(&b':') => {
                segments.push(&path[start..index]);
                start = index + 2;
                index += 1;
            }
            _ => {}
        }
        index += 1;
    }
    segments.push(&path[start..]);
    segments
}

/// The text between the `(` that starts `text` and its matching `)`.
fn inside_parentheses(text: &str) -> Option<&str> {
    let mut depth = 0i32;
    for (index, character) in text.char_indices() {
        match character {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[1..index]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Split an argument list on top-level commas.
fn top_level_split(list: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let mut previous = ' ';
    for (index, character) in list.char_indices() {
        match character {
            '<' | '{' | '[' | '(' => depth += 1,
            '>' if previous != '-' => depth -= 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(list[start..index].trim());
                start = index + 1;
            }
            _ => {}
        }
        previous = character;
    }
    let last = list[start..].trim();
    if !last.is_empty() {
        parts.push(last);
    }
    parts
}

/// Basic blocks (`bbN: {` and `bbN (cleanup): {`), statements (every line of a block but
/// its terminator) and locals (the `let` declarations, `_0` included, plus the arguments).
fn count(body: &[&str], arguments: usize) -> Counts {
    let mut counts = Counts { locals: arguments as u64, ..Counts::default() };
    let mut in_block = 0u64;
    for line in body {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if indent == 4 && trimmed.starts_with("bb") && trimmed.ends_with(": {") {
            counts.basic_blocks += 1;
            in_block = 0;
        } else if indent == 4 && trimmed == "}" {
            // The last line of a block is its terminator.
            counts.statements += in_block.saturating_sub(1);
            in_block = 0;
        } else if indent == 8 && counts.basic_blocks > 0 {
            in_block += 1;
        } else if indent >= 4 && (trimmed.starts_with("let _") || trimmed.starts_with("let mut _")) {
            counts.locals += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(module: &str, function: &str, generated: Option<&str>) -> Record {
        Record {
            lowering: if generated.is_some() { "classic" } else { "runtime" }.to_owned(),
            module: module.to_owned(),
            function: function.to_owned(),
            generated_type: generated.map(str::to_owned),
            value_task: false,
            file: "src/lib.rs".to_owned(),
            line: 1,
        }
    }

    const MIR: &str = "\
fn classic::f(_1: u64) -> Task<u64, BodyWitness<{async block@src/lib.rs:1:1: 1:2}>> {
    let mut _0: Task<u64, BodyWitness<{async block@src/lib.rs:1:1: 1:2}>>;
    let mut _2: u64;

    bb0: {
        _2 = copy _1;
        _0 = start(move _2) -> [return: bb1, unwind continue];
    }

    bb1: {
        return;
    }
}

fn classic::f::{closure#0}(_1: Pin<&mut {async block@src/lib.rs:1:1: 1:2}>, _2: &mut Context<'_>) -> Poll<u64> {
    let mut _0: Poll<u64>;

    bb0: {
        return;
    }
}

fn classic::f::{closure#1}(_1: &{closure@src/lib.rs:1:1: 1:2}, _2: &mut FStateMachine<Ready<u64>, u64>, _3: &mut Ctx<'_>) -> Poll<u64> {
    let mut _0: Poll<u64>;

    bb0: {
        return;
    }
}

fn runtime::f::{closure#0}(_1: Pin<&mut {async fn body of runtime::f()}>, _2: &mut Context<'_>) -> Poll<u64> {
    let mut _0: Poll<u64>;

    bb0: {
        return;
    }
}

fn other(_1: u64) -> u64 {
    let mut _0: u64;

    bb0: {
        return;
    }
}
";

    #[test]
    fn bodies_are_attributed_by_path_and_signature() {
        let records = [record("krate::classic", "f", Some("FStateMachine")), record("krate::runtime", "f", None)];
        let found = bodies(MIR, &records);
        let summary: Vec<_> =
            found.iter().map(|body| (body.record, body.inner.as_str(), body.role, body.counts)).collect();
        assert_eq!(
            summary,
            [
                (0, "", Role::Stub, Counts { basic_blocks: 2, statements: 1, locals: 3 }),
                // The twin: an `async` block, which rustc checks and no code calls.
                (0, "{closure#0}", Role::Closure, Counts { basic_blocks: 1, statements: 0, locals: 3 }),
                (0, "{closure#1}", Role::MoveNext, Counts { basic_blocks: 1, statements: 0, locals: 4 }),
                (1, "{closure#0}", Role::Coroutine, Counts { basic_blocks: 1, statements: 0, locals: 3 }),
            ]
        );
        assert!(returns_task(&found[0].signature));
        assert!(!returns_task(&found[3].signature));
    }

    #[test]
    fn methods_bodies_belong_to_their_records_through_the_impl_or_the_trait() {
        let text = "fn <impl at src/lib.rs:3:1: 3:9>::get(_1: &S) -> u32 {\n}\n\
                    fn store::Store::load(_1: &Self) -> u32 {\n}\n\
                    fn other::load(_1: u32) -> u32 {\n}\n";
        let records = [record("krate", "get", None), record("krate::store", "load", None)];
        let found: Vec<_> = bodies(text, &records).iter().map(|body| (body.record, body.role)).collect();
        assert_eq!(found, [(0, Role::Stub), (1, Role::Stub)]);
    }

    #[test]
    fn the_leading_comment_does_not_swallow_the_first_body() {
        let text = "// WARNING: rustc's banner\n// HINT: more\nfn f(_1: u32) -> u32 {\n    bb0: {\n        return;\n    }\n}\n";
        let records = [record("krate", "f", None)];
        let found = bodies(text, &records);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].role, found[0].lines), (Role::Stub, (2, 6)));
    }
}

//! Body shapes that published crates are written in and that the classic lowering once
//! refused or got wrong, lowered both ways and compared (result, event log, drop order, the
//! future dropped at every suspension): fields read through a `&` parameter, an `Arc<Self>` and
//! a `&self` while the value is borrowed across awaits; temporaries whose life a `let`
//! extends (`let sig = &CONST.to_le_bytes();`) held across awaits; tracing's field shorthands
//! (`?value`, `%id`, a bare `value`, `target:`) on locals that live in place; macros the
//! lowering does not know whose awaits are their own; `#[async_trait]` methods that borrow
//! and change `self` across awaits; `let .. else` with awaits in the
//! initializer and in the `else`; a `mut` local moved into an `async move` block or a `move`
//! closure that changes it; a statement whose value is discarded.

use std::sync::Arc;

use lowering_tests::fuzz::call_method;
use lowering_tests::*;

differential! {
    use std::sync::Arc;

    pub const MAGIC: u32 = 0x0403_0201;

    pub struct Node { pub v: u32, pub kids: Vec<u32>, pub name: String }

    async fn leaf(kid: &u32) -> u32 {
        later("leaf", *kid).await
    }

    async fn written(bytes: &[u8]) -> usize {
        later("write", bytes.len()).await
    }

    pub async fn fields_of_a_borrowed_node(node: &Node) -> u32 {
        let mut total = node.v;
        for kid in &node.kids {
            total += leaf(kid).await;
        }
        total + node.v + node.name.len() as u32
    }

    pub struct Service { pub n: u32, pub label: String, pub seen: std::sync::Mutex<Vec<u32>> }

    impl Service {
        pub async fn step(&self) -> u32 {
            later("step", self.n).await
        }

        pub async fn run(self: Arc<Self>) -> u32 {
            let a = self.step().await;
            let b = self.step().await;
            self.seen.lock().unwrap().push(a + b);
            a + b + self.n + self.label.len() as u32
        }

        pub async fn twice(&self) -> String {
            let a = self.step().await;
            let label = self.label.clone();
            let b = self.step().await;
            format!("{label}{}", a + b + self.n)
        }
    }

    fn fill(buf: &mut Vec<u8>, byte: u8) -> usize {
        buf.push(byte);
        buf.len()
    }

    pub struct Writer<'a> { pub out: &'a mut Vec<u8>, pub count: u32 }

    pub async fn reborrowed_field(writer: Writer<'_>) -> usize {
        let first = fill(writer.out, 1);
        let n = written(writer.out).await;
        first + n + fill(writer.out, 2) + writer.count as usize
    }

    pub async fn extended_temporary() -> usize {
        let sig = &MAGIC.to_le_bytes();
        let a = written(sig).await;
        let b = written(&sig[1..]).await;
        a + b + sig[0] as usize
    }

    pub async fn extended_temporary_drops_at_the_block_end(n: u32) -> String {
        let first = Loud::new("first");
        let held = &Loud::new("held");
        let wait = later("wait", n).await;
        let last = Loud::new("last");
        let out = format!("{}{}{}{wait}", first.name(), held.name(), last.name());
        later("end", ()).await;
        out
    }

    pub async fn extended_mut_temporary(n: u32) -> usize {
        let items = &mut Vec::new();
        items.push(later("a", n).await);
        items.push(later("b", n + 1).await);
        items.len() + items.iter().sum::<u32>() as usize
    }

    pub async fn traced(id: u32, name: String) -> u32 {
        let value = later("value", id).await;
        let held = &name;
        tracing::info!(target: "lab", ?value, %id, held, "first {}", value);
        let more = later("more", value + 1).await;
        tracing::event!(target: "lab", tracing::Level::WARN, more, total = more + value, ?name, "second");
        tracing::debug!(target: "lab", %held, "third {held}");
        tracing::trace!(target: "lab", "fourth {name:?} {value}", value = value + 1);
        more + held.len() as u32
    }

    macro_rules! own_async_block {
        ($($body:tt)*) => { async move { $($body)* } };
    }

    pub async fn macro_with_its_own_await(x: u32) -> u32 {
        let first = own_async_block! { later("inner", x).await * 2 };
        let outer = later("outer", x).await;
        let second = own_async_block! { later("inner2", outer).await + 1 };
        first.await + second.await
    }

    pub async fn let_else(input: Option<u32>, fallback: u32) -> u32 {
        let Some(v) = later("input", input).await else {
            let f = later("fallback", fallback).await;
            return f * 10;
        };
        let Ok(w) = later("check", if v > 2 { Ok(v) } else { Err(v) }).await else {
            return later("small", v).await;
        };
        w + 1
    }

    pub async fn mut_moved_into_async_move(n: u32) -> u32 {
        let mut counter = later("start", n).await;
        let job = async move {
            counter += 1;
            counter += later("job", 1).await;
            counter
        };
        let mut seen = n;
        let mut bump = move |by: u32| {
            seen += by;
            seen
        };
        job.await + bump(2) + bump(3)
    }

    #[async_trait::async_trait(?Send)]
    pub trait Handler {
        async fn handle(&mut self, n: u32) -> usize;
        async fn finish(self, n: u32) -> String;
    }

    pub struct Session { pub label: String, pub count: u32 }

    // `#[async_trait]` names the receiver `__self` in the body it boxes: the lowering sees
    // `self` again, borrowed across awaits, mutated, and (by value) changed as `mut self`.
    #[async_trait::async_trait(?Send)]
    impl Handler for Session {
        async fn handle(&mut self, n: u32) -> usize {
            let first = written(self.label.as_bytes()).await;
            self.count += n;
            self.label.push('!');
            first + written(self.label.as_bytes()).await + self.count as usize
        }

        async fn finish(mut self, n: u32) -> String {
            self.count += later("finish", n).await;
            let label = &self.label;
            let more = written(label.as_bytes()).await;
            format!("{}{}{more}", self.label, self.count)
        }
    }

    // A tail's temporaries drop after the block's locals before edition 2024 and before them
    // from 2024: each edition crate compares its own. (A tail that awaits is taken apart, and
    // its temporaries drop before the block's locals in every edition: see the README.)
    pub async fn tail_temporaries(n: u32) -> usize {
        let local = Loud::new("local");
        let waited = later("wait", n).await;
        let inner = {
            let scoped = Loud::new("scoped");
            later("inner", ()).await;
            Loud::new("inner tail").name().len() + scoped.name().len()
        };
        Loud::new("tail").name().len() + local.name().len() + inner + waited as usize
    }

    // A parameter that only a tracing message names after an await (`"{id}"`): the message's
    // inline capture is a use of it (once the move_next closure captured the stub's `id`).
    // A field keyed by a local's own name (`id = ..`) is no argument of the message, which
    // still captures the local.
    pub async fn named_only_in_a_message(id: u32, name: String) -> u32 {
        let held = &name;
        let first = later("first", id).await;
        tracing::info!(target: "lab", "started {id}");
        tracing::info!(target: "lab", id = first + 1, "keyed {id} {held}");
        later("second", ()).await;
        tracing::warn!(target: "lab", name = %held, "done {name}");
        first
    }

    // `let .. else` whose `else` awaits: the initializer's temporaries, and the value that did
    // not match, drop before the `else` block runs.
    pub async fn let_else_drops_before_else(n: u32) -> Result<u32, String> {
        let Ok(v) = later("check", (Loud::new("temporary").name().len() as u32 + n, Loud::new("value")).0.checked_sub(10).ok_or(Loud::new("err"))).await else {
            let fallback = later("fallback", n).await;
            return Err(format!("fallback {fallback}"));
        };
        Ok(v)
    }

    // A block whose last statement diverges has type `!`, whatever the block's place wants.
    pub async fn value_block_ending_in_panic(n: u32) -> u32 {
        let checked = match n {
            0..=3 => later("small", n).await,
            _ => {
                let seen = later("large", n).await;
                panic!("too large: {}", seen + later("again", 1).await);
            }
        };
        checked * 2
    }

    pub struct Conn(pub Loud);

    impl Conn {
        pub async fn send(self, n: u32) -> u32 {
            later("send", n).await + self.0.name().len() as u32
        }
    }

    // A consuming method whose argument awaits: Rust moves the receiver into the call before
    // the argument runs; the lowering cannot tell `send(self)` from `send(&self)`, and moves
    // it at the call (the README's "What it rejects"). The function form is exact.
    pub async fn consumed_after_an_awaiting_argument(conn: Conn, other: Loud) -> u32 {
        conn.send(later("argument", 1).await).await + other.name().len() as u32
    }

    pub async fn consumed_as_a_function(conn: Conn, other: Loud) -> u32 {
        Conn::send(conn, later("argument", 1).await).await + other.name().len() as u32
    }

    macro_rules! spelled {
        ($path:path, $value:expr) => { format!("{} {}", stringify!($path), $value) };
    }

    // A macro the lowering does not know that names a local living in place (borrowed
    // across an await) gets the local replaced by its place, and its tokens rebuilt one by
    // one: rustc's spacing of them is not kept, so `stringify!` of them reads differently
    // (the README says so).
    pub async fn spelled_after_an_await(n: u32) -> String {
        let waited = later("a", n).await;
        let held = &waited;
        later("b", ()).await;
        format!("{held} {}", spelled!(std::cmp::max, waited))
    }

    macro_rules! len_of {
        ($value:expr) => {
            $value.len()
        };
    }

    // What the README says to write for a macro that took an in-place local as an `ident`:
    // an `expr` fragment takes its place as well as its name.
    pub async fn expression_macro_on_a_kept_local(name: String) -> usize {
        let held = &name;
        later("a", ()).await;
        held.len() + len_of!(name)
    }

    pub struct Server { pub conn: Loud, pub limit: u32 }

    impl Server {
        pub fn new(conn: Loud) -> Server {
            Server { conn, limit: 0 }
        }

        pub fn with_limit(mut self, limit: u32) -> Server {
            self.limit = limit;
            self
        }

        pub async fn accept(&mut self) -> u32 {
            self.limit = later("accept", self.limit).await + 1;
            self.limit + self.conn.name().len() as u32
        }
    }

    // What the README says to write for a builder chain whose last method an await borrows
    // (`Server::new(c).with_limit(n).accept().await`): the built value bound to a local first.
    pub async fn builder_bound_before_its_await(conn: Loud, limit: u32) -> u32 {
        let mut server = Server::new(conn).with_limit(limit);
        server.accept().await
    }

    // What the README says to write for a macro of the user's that returns from the function
    // (`ensure!`): its condition in the function's own `if`, or a macro that only tests.
    pub async fn early_return_written_out(n: u32) -> Result<u32, String> {
        let got = later("n", n).await;
        if got < 2 {
            return Err(format!("{got} < 2"));
        }
        Ok(got)
    }

    pub struct Pool { pub internals: futures::lock::Mutex<Vec<u32>>, pub open: u32 }

    // A `&` parameter hidden by a `let` of its name bound from it (mobc's `clean_connection`):
    // the new local, an `Arc`, is borrowed across awaits by the guard, so it lives in place,
    // though the parameter it hides needs no place.
    pub async fn upgraded_and_locked(pool: &std::sync::Weak<Pool>) -> u32 {
        let pool = match pool.upgrade() {
            Some(pool) => pool,
            None => return 0,
        };
        let mut internals = pool.internals.lock().await;
        if pool.open == 0 {
            return 1;
        }
        internals.push(later("push", pool.open).await);
        internals.len() as u32 + pool.open
    }

    pub struct Lines { pub read: u32 }

    impl Lines {
        pub async fn read_line(&mut self) -> u32 {
            self.read += later("line", 1).await;
            self.read
        }
    }

    // async-h1's `decode`: an `if let` binding hidden by a `let` of its name (`let len =
    // len.len();`), then a `let` hiding a local that lives in place, which begins a state of
    // its own: the hidden binding still holds its value there, and is saved with it.
    pub async fn a_hidden_binding_saved_by_a_later_hiding(content: Option<Loud>, chunked: bool) -> u32 {
        let mut lines = Lines { read: 0 };
        let got = lines.read_line().await;
        if chunked {
            let lines = (lines.read, 1);
            lines.0 + lines.1 + got
        } else if let Some(len) = content {
            let len = len.name().len() as u32;
            let lines = (&lines, Loud::new("wrapped"), len);
            lines.0.read + lines.2 + got
        } else {
            got
        }
    }

    // async-process's `Reaper::reap`: an `async fn` that never returns (`-> !`), whose
    // task's result type stable Rust cannot spell as `!`.
    pub async fn never_returns(n: u32) -> ! {
        let got = later("n", n).await;
        panic!("never returns: {}", got)
    }

    pub async fn awaits_one_that_never_returns(n: u32) -> u32 {
        if n > 1 {
            never_returns(n).await
        }
        n
    }

    macro_rules! pasted {
        ($($code:tt)*) => { $($code)* };
    }

    // A macro the lowering does not know whose own code binds the name of a local that lives
    // in place (async-process's `cfg_wait!`/`cfg_signal!` around `if let Lock::Signal(lock) =
    // lock`): the pattern is the macro's, and so is the name where its binding is seen.
    pub async fn a_macros_bindings_hide_a_kept_local(lock: Option<u32>, n: u32) -> u32 {
        let held = &lock;
        let waited = later("a", n).await;
        let seen = held.unwrap_or(0);
        pasted! {
            let mut total = waited + seen;
            if let Some(lock) = lock { total += lock * 10; }
            for lock in [1u32, 2] { total += lock * 100; }
            total += match lock { Some(lock) if lock > 1 => lock * 1000, Some(_) => 7000, None => lock.map_or(9000, |l| l) };
            let lock = total;
            total = lock + 1;
        }
        later("b", total).await + held.unwrap_or(0)
    }

    // async-process's `into_stdio`: the body ends with a macro the lowering does not know,
    // without `;`, whose expansion ends with the function's value (`cfg_if! { .. Ok(x) }`).
    pub async fn valued_by_a_trailing_macro(n: u32) -> Result<u32, String> {
        let got = later("n", n).await;
        pasted! {
            let doubled = got * 2;
            Ok(doubled.into())
        }
    }

    // An `async` block without `move` that moves a local, on a path that may not run, while
    // another local lives in place: Rust moves the local into the block when the block is
    // made, and drops it with the block. (A field of a local is captured as edition 2021
    // captures it in every edition: `edition2018/tests/captures_differ.rs`.)
    pub async fn moved_into_a_block_on_a_path(flag: bool) -> u32 {
        let (a, b) = (Loud::new("a"), Loud::new("b"));
        let kept = &b;
        later("x", ()).await;
        let n = kept.name().len() as u32;
        let got = async {
            if flag {
                let a = a;
                a.name().len() as u32
            } else {
                0
            }
        }
        .await;
        let tail = Loud::new("tail");
        n + got + tail.name().len() as u32
    }

    pub async fn discarded_value(c: bool) -> u32 {
        let x = later("x", 3u32).await;
        if c { Some(x) } else { None };
        match x { 3 => "three", _ => "other" };
        later("y", x).await + 1
    }
}

/// Records every tracing event's fields in the test's event log, so that the two lowerings'
/// events are compared with the rest.
struct FieldsToLog;

struct Fields(Vec<String>);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push(format!("{}={value:?}", field.name()));
    }
}

impl tracing::Subscriber for FieldsToLog {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(Vec::new());
        event.record(&mut fields);
        log(format!("event {} {}: {}", event.metadata().target(), event.metadata().level(), fields.0.join(" ")));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn fields_read_through_references_and_arcs() {
    let node = || Node { v: 2, kids: vec![1, 2, 3], name: "root".into() };
    let (classic_node, runtime_node) = (classic::Node::from(node()), runtime::Node::from(node()));
    let outcome = same_at_every_suspension(
        || classic::fields_of_a_borrowed_node(&classic_node),
        || runtime::fields_of_a_borrowed_node(&runtime_node),
    );
    assert_eq!(outcome, Outcome::Value(14));

    let service = |n| Service { n, label: "ab".into(), seen: Default::default() };
    let outcome = same_at_every_suspension(
        || Arc::new(classic::Service::from(service(3))).run(),
        || Arc::new(runtime::Service::from(service(3))).run(),
    );
    assert_eq!(outcome, Outcome::Value(11));
    let outcome = same_at_every_suspension(
        || call_method(classic::Service::from(service(4)), |s| s.twice()),
        || call_method(runtime::Service::from(service(4)), |s| s.twice()),
    );
    assert_eq!(outcome, Outcome::Value("ab12".to_owned()));

    let outcome = same_at_every_suspension(
        || {
            let out = Box::leak(Box::new(vec![9]));
            classic::reborrowed_field(classic::Writer { out, count: 5 })
        },
        || {
            let out = Box::leak(Box::new(vec![9]));
            runtime::reborrowed_field(runtime::Writer { out, count: 5 })
        },
    );
    assert_eq!(outcome, Outcome::Value(2 + 2 + 3 + 5));
}

#[test]
fn temporaries_a_let_extends_live_to_the_block_end() {
    assert_eq!(same_at_every_suspension(classic::extended_temporary, runtime::extended_temporary), Outcome::Value(8));
    let outcome = same_at_every_suspension(
        || classic::extended_temporary_drops_at_the_block_end(2),
        || runtime::extended_temporary_drops_at_the_block_end(2),
    );
    assert_eq!(outcome, Outcome::Value("firstheldlast2".to_owned()));
    let (_, log) = run(Stop::AtEnd, || classic::extended_temporary_drops_at_the_block_end(2));
    let drops: Vec<&String> = log.iter().filter(|event| event.starts_with("drop")).collect();
    assert_eq!(drops, ["drop last", "drop held", "drop first"], "{log:?}");
    let outcome =
        same_at_every_suspension(|| classic::extended_mut_temporary(4), || runtime::extended_mut_temporary(4));
    assert_eq!(outcome, Outcome::Value(2 + 9));
}

#[test]
fn tracing_fields_name_locals_that_live_in_place() {
    let _subscriber = tracing::subscriber::set_default(FieldsToLog);
    let outcome = same_at_every_suspension(|| classic::traced(3, "abc".into()), || runtime::traced(3, "abc".into()));
    assert_eq!(outcome, Outcome::Value(7));
    let (_, log) = run(Stop::AtEnd, || classic::traced(3, "abc".into()));
    let events: Vec<&String> = log.iter().filter(|event| event.starts_with("event")).collect();
    assert_eq!(
        events,
        [
            "event lab INFO: message=first 3 value=3 id=3 held=\"abc\"",
            "event lab WARN: message=second more=4 total=7 name=\"abc\"",
            "event lab DEBUG: message=third abc held=abc",
            "event lab TRACE: message=fourth \"abc\" 4",
        ],
        "{log:?}"
    );
}

#[test]
fn macros_the_lowering_does_not_know_keep_their_own_awaits() {
    for x in 0..3 {
        let outcome =
            same_at_every_suspension(|| classic::macro_with_its_own_await(x), || runtime::macro_with_its_own_await(x));
        assert_eq!(outcome, Outcome::Value(x * 2 + x + 1));
    }
}

#[test]
fn let_else_discarded_values_and_moved_mut_locals() {
    for (input, expected) in [(None, 50), (Some(1), 1), (Some(4), 5)] {
        let outcome = same_at_every_suspension(|| classic::let_else(input, 5), || runtime::let_else(input, 5));
        assert_eq!(outcome, Outcome::Value(expected));
    }
    let outcome =
        same_at_every_suspension(|| classic::mut_moved_into_async_move(1), || runtime::mut_moved_into_async_move(1));
    assert_eq!(outcome, Outcome::Value(3 + 3 + 6));
    for c in [false, true] {
        assert_eq!(
            same_at_every_suspension(|| classic::discarded_value(c), || runtime::discarded_value(c)),
            Outcome::Value(4)
        );
    }
}

#[test]
fn tracing_messages_name_parameters_and_keys_name_no_local() {
    let _subscriber = tracing::subscriber::set_default(FieldsToLog);
    let outcome = same_at_every_suspension(
        || classic::named_only_in_a_message(4, "n".into()),
        || runtime::named_only_in_a_message(4, "n".into()),
    );
    assert_eq!(outcome, Outcome::Value(4));
    let (_, log) = run(Stop::AtEnd, || classic::named_only_in_a_message(4, "n".into()));
    let events: Vec<&String> = log.iter().filter(|event| event.starts_with("event")).collect();
    assert_eq!(
        events,
        [
            "event lab INFO: message=started 4",
            "event lab INFO: message=keyed 4 n id=5",
            "event lab WARN: message=done n name=n"
        ],
        "{log:?}"
    );
}

#[test]
fn let_else_drops_its_temporaries_before_else_and_diverging_blocks() {
    for n in [0, 5] {
        same_at_every_suspension(|| classic::let_else_drops_before_else(n), || runtime::let_else_drops_before_else(n));
    }
    let (_, log) = run(Stop::AtEnd, || classic::let_else_drops_before_else(0));
    let fallback = log.iter().position(|event| event == "suspend fallback").expect("the else block ran");
    let drops = log.iter().position(|event| event == "drop err").expect("the unmatched value dropped");
    assert!(drops < fallback, "{:?}", log);
    assert_eq!(
        same_at_every_suspension(
            || classic::value_block_ending_in_panic(2),
            || runtime::value_block_ending_in_panic(2)
        ),
        Outcome::Value(4)
    );
    let outcome = same_at_every_suspension(
        || classic::value_block_ending_in_panic(7),
        || runtime::value_block_ending_in_panic(7),
    );
    assert_eq!(outcome, Outcome::Panic("too large: 8".into()));
}

#[test]
fn a_consuming_method_whose_argument_awaits_moves_its_receiver_late() {
    let outcome = same_at_every_suspension(
        || classic::consumed_as_a_function(classic::Conn(Loud::new("conn")), Loud::new("other")),
        || runtime::consumed_as_a_function(runtime::Conn(Loud::new("conn")), Loud::new("other")),
    );
    assert_eq!(outcome, Outcome::Value(1 + 4 + 5));
    // Run to the end, the method form gives what the function form gives; dropped while its
    // argument is suspended, the receiver drops with the locals rather than first.
    let method = |stop| {
        let classic = run(stop, || {
            classic::consumed_after_an_awaiting_argument(classic::Conn(Loud::new("conn")), Loud::new("other"))
        });
        let runtime = run(stop, || {
            runtime::consumed_after_an_awaiting_argument(runtime::Conn(Loud::new("conn")), Loud::new("other"))
        });
        (classic, runtime)
    };
    let (classic, runtime) = method(Stop::AtEnd);
    assert_eq!(classic, runtime);
    let (classic, runtime) = method(Stop::AfterSuspensions(1));
    let drops = |log: &[String]| log.iter().filter(|event| event.starts_with("drop")).cloned().collect::<Vec<_>>();
    assert_eq!(drops(&runtime.1), ["drop conn", "drop other"], "{runtime:?}");
    assert_eq!(drops(&classic.1), ["drop other", "drop conn"], "{classic:?}");
}

#[test]
fn a_built_value_bound_before_its_await_and_a_return_written_out() {
    let outcome = same_at_every_suspension(
        || classic::builder_bound_before_its_await(Loud::new("conn"), 4),
        || runtime::builder_bound_before_its_await(Loud::new("conn"), 4),
    );
    assert_eq!(outcome, Outcome::Value(5 + 4));
    for n in [1, 2] {
        let outcome =
            same_at_every_suspension(|| classic::early_return_written_out(n), || runtime::early_return_written_out(n));
        let expected = if n < 2 { Err("1 < 2".to_owned()) } else { Ok(2) };
        assert_eq!(outcome, Outcome::Value(expected));
    }
}

#[test]
fn a_reference_parameter_hidden_by_an_arc_borrowed_across_awaits() {
    for open in [0, 3] {
        let classic_pool = Arc::new(classic::Pool { internals: futures::lock::Mutex::new(vec![7]), open });
        let runtime_pool = Arc::new(runtime::Pool { internals: futures::lock::Mutex::new(vec![7]), open });
        let (classic_weak, runtime_weak) = (Arc::downgrade(&classic_pool), Arc::downgrade(&runtime_pool));
        let outcome = same_at_every_suspension(
            || classic::upgraded_and_locked(&classic_weak),
            || runtime::upgraded_and_locked(&runtime_weak),
        );
        assert_eq!(outcome, Outcome::Value(if open == 0 { 1 } else { 2 + open }), "{open}");
    }
    let (classic_gone, runtime_gone) = (std::sync::Weak::new(), std::sync::Weak::new());
    let outcome = same_at_every_suspension(
        || classic::upgraded_and_locked(&classic_gone),
        || runtime::upgraded_and_locked(&runtime_gone),
    );
    assert_eq!(outcome, Outcome::Value(0));
}

#[test]
fn a_hidden_binding_is_saved_where_a_later_let_begins_a_state() {
    for chunked in [false, true] {
        let outcome = same_at_every_suspension(
            || classic::a_hidden_binding_saved_by_a_later_hiding(Some(Loud::new("content")), chunked),
            || runtime::a_hidden_binding_saved_by_a_later_hiding(Some(Loud::new("content")), chunked),
        );
        assert_eq!(outcome, Outcome::Value(if chunked { 1 + 1 + 1 } else { 1 + 7 + 1 }), "{chunked}");
    }
    let (classic, runtime) = (
        run(Stop::AtEnd, || classic::a_hidden_binding_saved_by_a_later_hiding(Some(Loud::new("content")), false)),
        run(Stop::AtEnd, || runtime::a_hidden_binding_saved_by_a_later_hiding(Some(Loud::new("content")), false)),
    );
    assert_eq!(classic, runtime);
    let drops: Vec<&String> = runtime.1.iter().filter(|event| event.starts_with("drop")).collect();
    assert_eq!(drops, ["drop wrapped", "drop content"], "{runtime:?}");
}

#[test]
fn a_trailing_macro_gives_the_functions_value() {
    let outcome =
        same_at_every_suspension(|| classic::valued_by_a_trailing_macro(4), || runtime::valued_by_a_trailing_macro(4));
    assert_eq!(outcome, Outcome::Value(Ok(8)));
}

#[test]
fn a_block_without_move_takes_a_local_when_it_is_made() {
    for flag in [true, false] {
        let outcome = same_at_every_suspension(
            || classic::moved_into_a_block_on_a_path(flag),
            || runtime::moved_into_a_block_on_a_path(flag),
        );
        assert_eq!(outcome, Outcome::Value(if flag { 1 + 1 + 4 } else { 1 + 4 }));
    }
    let (_, log) = run(Stop::AtEnd, || classic::moved_into_a_block_on_a_path(false));
    let drops: Vec<&String> = log.iter().filter(|event| event.starts_with("drop")).collect();
    assert_eq!(drops, ["drop a", "drop tail", "drop b"]);
}

#[test]
fn an_async_fn_that_never_returns() {
    let outcome = same_at_every_suspension(|| classic::never_returns(3), || runtime::never_returns(3));
    assert_eq!(outcome, Outcome::Panic("never returns: 3".into()));
    for n in [1, 2] {
        let outcome = same_at_every_suspension(
            || classic::awaits_one_that_never_returns(n),
            || runtime::awaits_one_that_never_returns(n),
        );
        let expected = if n > 1 { Outcome::Panic("never returns: 2".into()) } else { Outcome::Value(1) };
        assert_eq!(outcome, expected);
    }
}

#[test]
fn a_macros_own_bindings_hide_a_local_that_lives_in_place() {
    for lock in [None, Some(1), Some(3)] {
        let outcome = same_at_every_suspension(
            || classic::a_macros_bindings_hide_a_kept_local(lock, 5),
            || runtime::a_macros_bindings_hide_a_kept_local(lock, 5),
        );
        let seen = lock.unwrap_or(0);
        let arm = match lock {
            Some(l) if l > 1 => l * 1000,
            Some(_) => 7000,
            None => 9000,
        };
        assert_eq!(outcome, Outcome::Value(5 + seen + seen * 10 + 300 + arm + 1 + seen), "{lock:?}");
    }
}

#[test]
fn an_expression_fragment_takes_a_kept_local() {
    let outcome = same_at_every_suspension(
        || classic::expression_macro_on_a_kept_local("abc".into()),
        || runtime::expression_macro_on_a_kept_local("abc".into()),
    );
    assert_eq!(outcome, Outcome::Value(6));
}

#[test]
fn tokens_of_an_unknown_macro_are_respaced() {
    let (classic, _) = run(Stop::AtEnd, || classic::spelled_after_an_await(2));
    let (runtime, _) = run(Stop::AtEnd, || runtime::spelled_after_an_await(2));
    assert_eq!(runtime, Outcome::Value("2 std::cmp::max 2".to_owned()));
    assert_eq!(classic, Outcome::Value("2 std :: cmp :: max 2".to_owned()));
}

#[test]
fn tail_temporaries_drop_where_the_edition_drops_them() {
    let outcome = same_at_every_suspension(|| classic::tail_temporaries(1), || runtime::tail_temporaries(1));
    assert_eq!(outcome, Outcome::Value(4 + 5 + 10 + 6 + 1));
}

#[test]
fn async_trait_methods_that_borrow_and_change_self() {
    let outcome = same_at_every_suspension(
        || call_method(classic::Session { label: "ab".into(), count: 1 }, |s| classic::Handler::handle(s, 2)),
        || call_method(runtime::Session { label: "ab".into(), count: 1 }, |s| runtime::Handler::handle(s, 2)),
    );
    assert_eq!(outcome, Outcome::Value(2 + 3 + 3));
    let outcome = same_at_every_suspension(
        || classic::Handler::finish(classic::Session { label: "ab".into(), count: 1 }, 4),
        || runtime::Handler::finish(runtime::Session { label: "ab".into(), count: 1 }, 4),
    );
    assert_eq!(outcome, Outcome::Value("ab52".to_owned()));
}

/// The test's values, built once and converted into each lowering's own types.
pub struct Node {
    v: u32,
    kids: Vec<u32>,
    name: String,
}

pub struct Service {
    n: u32,
    label: String,
    seen: std::sync::Mutex<Vec<u32>>,
}

macro_rules! conversions {
    ($($module:ident),*) => {$(
        impl From<Node> for $module::Node {
            fn from(node: Node) -> Self {
                $module::Node { v: node.v, kids: node.kids, name: node.name }
            }
        }
        impl From<Service> for $module::Service {
            fn from(service: Service) -> Self {
                $module::Service { n: service.n, label: service.label, seen: service.seen }
            }
        }
    )*};
}
conversions!(classic, runtime);

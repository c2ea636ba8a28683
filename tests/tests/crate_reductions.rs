//! Reductions of what published crates showed the classic lowering getting wrong, each the
//! exact program of the issue that reported it (the crates' shapes, our own code), run under
//! both lowerings, with neighbours of the same shape.

#![allow(clippy::needless_return, unused_mut, dead_code, mismatched_lifetime_syntaxes)]

use std::borrow::Cow;
use std::future::Future;
use std::marker::PhantomData;
use std::ops::Range;
use std::pin::Pin;
use std::rc::Rc;

use lowering_tests::*;

/// Completes at once.
pub async fn tick() {}

pub struct Entry(pub Loud);

pub async fn write(entry: &mut Entry) -> usize {
    later("write", entry.0.name().len()).await
}

pub struct Out<'a> {
    pub entry: Entry,
    pub n: &'a mut usize,
}

#[derive(Debug)]
pub struct Upload(pub u32);

pub async fn next_len(buf: &mut Vec<u8>) -> Option<usize> {
    later("next_len", Some(buf.len())).await
}

pub struct Handler {
    pub n: u32,
}

impl Handler {
    pub async fn run(&mut self) -> u32 {
        self.n += later("run", 10).await;
        self.n
    }
}

pub struct Allocator(pub std::cell::Cell<u32>);

pub struct Ptr(pub u32);

impl Drop for Ptr {
    fn drop(&mut self) {
        log(format!("drop ptr {}", self.0));
    }
}

impl Allocator {
    pub async fn alloc(&self) -> Ptr {
        let n = self.0.get();
        self.0.set(n + 1);
        later("alloc", Ptr(n)).await
    }
}

pub async fn push(out: &mut String, s: &str) {
    later("push", ()).await;
    out.push_str(s);
}

pub async fn read() -> Result<(), String> {
    later("read", Ok(())).await
}

pub async fn load(n: u32) -> String {
    later("load", n.to_string()).await
}

pub struct Conn(pub Loud);

pub struct Limited(pub Loud, pub usize);

impl Conn {
    pub fn limit(self, n: usize) -> Limited {
        Limited(self.0, n)
    }
}

impl Limited {
    pub async fn read_into(&mut self, out: &mut Vec<u8>) {
        out.extend(std::iter::repeat_n(7, self.1));
        later("read_into", ()).await
    }
}

pub async fn next() -> Option<Result<u8, String>> {
    later("next", Some(Ok(3))).await
}

pub async fn total(items: impl Iterator<Item = u32>) -> u32 {
    let sum = items.sum();
    later("total", sum).await
}

pub async fn log_line(s: &str) {
    later(s, ()).await
}

differential! {
    // 1. A struct literal's field shorthand naming a kept local.
    pub async fn from_raw(n: &mut usize, mut entry: Entry) -> Out<'_> {
        *n += write(&mut entry).await;      // `entry` borrowed across an await: kept in place
        Out { entry, n }
    }

    // 2. A result coerced to the declared trait object.
    pub async fn start(n: u32) -> Result<Box<dyn std::fmt::Debug>, String> {
        tick().await;
        Ok(Box::new(Upload(n)))
    }

    pub struct Reader<S>(pub S);
    pub struct Ready<R>(pub R);
    pub struct Reading<'a, R>(pub R, pub PhantomData<&'a ()>);

    // 3. An impl's lifetime that appears only in a bound and in the result.
    impl<'a, R> Reader<Ready<R>> where R: AsRef<[u8]> + 'a {
        pub async fn next(mut self) -> Option<(usize, Reader<Reading<'a, R>>)> {
            let n = next_len(&mut vec![1, 2]).await?;
            Some((n, Reader(Reading(self.0 .0, PhantomData))))
        }
    }

    // 4. An `async move` block that calls a `&mut self` method on a `mut` local it takes.
    pub async fn listen(out: &mut Vec<Pin<Box<dyn Future<Output = u32>>>>) {
        for i in 0..2 {
            tick().await;
            let mut handler = Handler { n: i };          // `async fn run(&mut self) -> u32`
            out.push(Box::pin(async move { handler.run().await }));
        }
    }

    // 5. A statement whose value is discarded, after an await.
    pub async fn dynamic_drop(a: Rc<Allocator>, c: bool) {
        let x = a.alloc().await;
        if c { Some(x) } else { None };
    }

    // 6. A temporary later in a method chain, borrowed by an awaited call.
    pub async fn push_upper(out: &mut String, name: &str) {
        push(out, &name.trim().to_uppercase()).await;       // async fn push(out: &mut String, s: &str)
    }

    // 7. A `match` on a kept local, with a `ref` binding, and with a by-value binding beside `Err(_)`.
    pub async fn check(r: Result<String, String>) -> Result<(), String> {
        match r {
            Ok(ref s) => match s.as_str() { "" => return Err("empty".into()), _ => {} },
            Err(e) => return Err(e),
        }
        read().await?;
        Ok(())
    }

    pub async fn len(r: Result<String, String>) -> usize {
        match r {
            Ok(s) => { tick().await; s.len() }
            Err(_) => 0,
        }
    }

    pub struct Cache {
        pub text: Cow<'static, str>,
    }

    // 8. A free function with the method's name, called inside the method.
    impl Cache {
        pub async fn load(&mut self) {
            let text = load(7).await;
            self.text = Cow::Owned(text);
        }
    }

    // 9. A consuming method whose result a later await uses, in a `let`.
    pub async fn read_let(conn: Conn, out: &mut Vec<u8>) {        // fn limit(self, n: usize) -> Limited
        let mut limited = conn.limit(2);
        limited.read_into(out).await;
    }

    // 10. Standard consuming adapters.
    pub async fn first() -> Result<Option<u8>, String> {
        match next().await.transpose() {                        // next() -> Option<Result<u8, String>>
            x => { tick().await; x }
        }
    }

    pub async fn sum_all(v: Vec<u32>) -> u32 {
        total(v.iter().cloned()).await
    }

    pub struct Got {
        pub name: String,
        pub range: Range<u64>,
    }

    // 11. `self` inside a `move` closure of a method whose `self` is kept in place.
    impl Got {
        pub async fn range(self) -> Range<u64> {
            log_line(&self.name).await;
            let f = move || self.range;
            f()
        }
    }
}

#[test]
fn a_struct_literal_shorthand_names_a_kept_local() {
    let (mut a, mut b) = (1, 1);
    let (classic_out, classic_log) =
        run(Stop::AtEnd, || async { classic::from_raw(&mut a, Entry(Loud::new("e"))).await.entry.0.name().len() });
    let (runtime_out, runtime_log) =
        run(Stop::AtEnd, || async { runtime::from_raw(&mut b, Entry(Loud::new("e"))).await.entry.0.name().len() });
    assert_eq!((classic_out, classic_log, a), (runtime_out, runtime_log, b));
}

#[test]
fn a_result_coerced_to_a_trait_object() {
    let (classic_out, classic_log) = run(Stop::AtEnd, || async { format!("{:?}", classic::start(4).await) });
    let (runtime_out, runtime_log) = run(Stop::AtEnd, || async { format!("{:?}", runtime::start(4).await) });
    assert_eq!((classic_out, classic_log), (runtime_out, runtime_log));
}

#[test]
fn an_impl_lifetime_only_in_a_bound_and_the_result() {
    let (classic_out, classic_log) = run(Stop::AtEnd, || async {
        classic::Reader(classic::Ready(vec![1u8])).next().await.map(|(n, reader)| (n, reader.0.0))
    });
    let (runtime_out, runtime_log) = run(Stop::AtEnd, || async {
        runtime::Reader(runtime::Ready(vec![1u8])).next().await.map(|(n, reader)| (n, reader.0.0))
    });
    assert_eq!((classic_out, classic_log), (runtime_out, runtime_log));
}

#[test]
fn an_async_move_block_calls_a_mut_method_on_a_local_it_takes() {
    let mut classic_out = Vec::new();
    let mut runtime_out = Vec::new();
    same(|| classic::listen(&mut classic_out), || runtime::listen(&mut runtime_out));
    let classic_values: Vec<_> = classic_out.into_iter().map(|f| run(Stop::AtEnd, || f)).collect();
    let runtime_values: Vec<_> = runtime_out.into_iter().map(|f| run(Stop::AtEnd, || f)).collect();
    assert_eq!(classic_values, runtime_values);
}

#[test]
fn a_discarded_statement_value_after_an_await() {
    for c in [true, false] {
        same_at_every_suspension(
            || classic::dynamic_drop(Rc::new(Allocator(std::cell::Cell::new(0))), c),
            || runtime::dynamic_drop(Rc::new(Allocator(std::cell::Cell::new(0))), c),
        );
    }
}

#[test]
fn a_temporary_later_in_a_chain_borrowed_by_an_awaited_call() {
    let (mut a, mut b) = (String::new(), String::new());
    same(|| classic::push_upper(&mut a, " ab "), || runtime::push_upper(&mut b, " ab "));
    assert_eq!((a.as_str(), b.as_str()), ("AB", "AB"));
}

#[test]
fn a_match_on_a_kept_local() {
    for r in [Ok(String::new()), Ok("x".to_string()), Err("e".to_string())] {
        same_at_every_suspension(|| classic::check(r.clone()), || runtime::check(r.clone()));
        same_at_every_suspension(|| classic::len(r.clone()), || runtime::len(r.clone()));
    }
}

#[test]
fn a_free_function_with_the_methods_name() {
    let mut classic_cache = classic::Cache { text: Cow::Borrowed("") };
    let mut runtime_cache = runtime::Cache { text: Cow::Borrowed("") };
    same(|| classic_cache.load(), || runtime_cache.load());
    assert_eq!((classic_cache.text, runtime_cache.text), (Cow::Borrowed("7"), Cow::Borrowed("7")));
}

#[test]
fn a_consuming_method_in_a_let_before_an_await() {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    same(|| classic::read_let(Conn(Loud::new("c")), &mut a), || runtime::read_let(Conn(Loud::new("c")), &mut b));
    assert_eq!(a, b);
}

#[test]
fn standard_consuming_adapters() {
    same_at_every_suspension(classic::first, runtime::first);
    same_at_every_suspension(|| classic::sum_all(vec![1, 2, 3]), || runtime::sum_all(vec![1, 2, 3]));
}

#[test]
fn self_in_a_move_closure_of_a_method_keeping_self() {
    same_at_every_suspension(
        || classic::Got { name: "g".into(), range: 1..4 }.range(),
        || runtime::Got { name: "g".into(), range: 1..4 }.range(),
    );
}

mod assigned {
    use lowering_tests::*;

    differential! {
        /// A borrow assigned by an expression statement, held across a later await.
        pub async fn borrow_assigned_then_held(n: usize) -> usize {
            let v = vec![1u8; n];
            let r;
            r = &v;
            later("between", ()).await;
            r.len()
        }
    }

    #[test]
    fn a_borrow_assigned_by_a_statement_is_held() {
        same_at_every_suspension(|| classic::borrow_assigned_then_held(2), || runtime::borrow_assigned_then_held(2));
    }
}

/// A struct update from a local (`Pair { a: x, ..v }`) moves the fields the literal does not
/// list out of `v`; the macro sees no types, so it cannot name them, and moves all of `v`: the
/// fields the literal lists stay in the plain function's `v`, to drop where its scope ends,
/// and drop where the statement ends under classic (README, "Where the lowerings differ").
/// With those fields moved out first, nothing stays, and both agree.
mod struct_update {
    use lowering_tests::fuzz::{Pair, consume};
    use lowering_tests::*;

    differential! {
        pub async fn update_from_a_whole_local() -> u32 {
            let v = Pair { a: Loud::new("kept"), b: Loud::new("taken") };
            let n = consume(Pair { a: Loud::new("new"), ..v }.b);
            later("after", n).await
        }

        pub async fn update_from_a_local_whose_listed_field_moved() -> u32 {
            let v = Pair { a: Loud::new("kept"), b: Loud::new("taken") };
            let first = consume(v.a);
            let n = consume(Pair { a: Loud::new("new"), ..v }.b);
            later("after", n + first).await
        }
    }

    #[test]
    fn the_listed_fields_of_the_base_drop_where_the_statement_ends() {
        let (classic, classic_log) = run(Stop::AtEnd, classic::update_from_a_whole_local);
        let (plain, plain_log) = run(Stop::AtEnd, runtime::update_from_a_whole_local);
        assert_eq!(classic, plain);
        let common = ["new kept", "new taken", "new new", "consume taken", "drop taken", "drop new"];
        assert_eq!(plain_log[..6], common);
        assert_eq!(plain_log[6..], ["suspend after", "resume after", "drop kept"]);
        assert_eq!(classic_log[..6], common);
        assert_eq!(classic_log[6..], ["drop kept", "suspend after", "resume after"]);
    }

    #[test]
    fn with_the_listed_fields_moved_out_first_both_agree() {
        same_at_every_suspension(
            classic::update_from_a_local_whose_listed_field_moved,
            runtime::update_from_a_local_whose_listed_field_moved,
        );
    }
}

/// The same `use` in two blocks of one body (an IMAP client's `parse_mailbox`, async-imap 0.12:
/// `use imap_proto::Status;` in two arms of a `match` in a loop that awaits). The classic
/// lowering declared every block's items where its stub begins, so that every state sees them:
/// the two imports became one scope's two (E0252 "the name `Status` is defined multiple
/// times"), and an import hid the function's own `Status` outside its block. A block that does
/// not await now keeps its items; identical imports of blocks that await are declared once.
mod the_same_use_in_two_blocks {
    use super::*;

    pub mod proto {
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum Status {
            Ok,
            Bad,
        }
    }

    /// Another `Status` where the function is: the blocks' imports hide it inside them only.
    #[derive(Debug, PartialEq)]
    pub enum Status {
        Other,
    }

    pub enum Response {
        Done(proto::Status),
        Data(proto::Status, u32),
    }

    differential! {
        // The crate's shape: the arms' blocks do not await.
        pub async fn parse(responses: Vec<Response>) -> Result<u32, String> {
            let mut seen = 0;
            let mut responses = responses.into_iter();
            while let Some(response) = later("next", responses.next()).await {
                match response {
                    Response::Done(status) => {
                        use proto::Status;
                        match status {
                            Status::Ok => break,
                            Status::Bad => return Err("bad".to_string()),
                        }
                    }
                    Response::Data(status, n) => {
                        use proto::Status;
                        if status == Status::Ok {
                            seen += n;
                        }
                    }
                }
            }
            assert_eq!(Status::Other, Status::Other);
            Ok(seen)
        }

        // Blocks that await: their identical imports are declared once, for the function.
        pub async fn parse_awaiting(responses: Vec<Response>) -> Result<u32, String> {
            let mut seen = 0;
            for response in responses {
                match response {
                    Response::Done(status) => {
                        use proto::Status;
                        later("done", ()).await;
                        if status == Status::Bad {
                            return Err("bad".to_string());
                        }
                    }
                    Response::Data(status, n) => {
                        use proto::Status;
                        if later("data", status).await == Status::Ok {
                            seen += n;
                        }
                    }
                }
            }
            Ok(seen)
        }
    }

    fn responses(last: proto::Status) -> Vec<Response> {
        vec![Response::Data(proto::Status::Ok, 2), Response::Data(proto::Status::Bad, 5), Response::Done(last)]
    }

    #[test]
    fn each_block_imports_the_same_name() {
        for last in [proto::Status::Ok, proto::Status::Bad] {
            same_at_every_suspension(|| classic::parse(responses(last)), || runtime::parse(responses(last)));
            same_at_every_suspension(
                || classic::parse_awaiting(responses(last)),
                || runtime::parse_awaiting(responses(last)),
            );
        }
    }
}

/// moka's `BaseCache::get_with_hash` (E0425 "cannot find value `__self`"): an `if let` whose
/// pattern hides a local still live in the `else` branch (`now`) begins a state of its own to
/// bind the hidden local; the jump into it saved only the pattern's bindings, not what the
/// branch goes on to use (`self`, a parameter), because the branch was not yet the code left
/// to run. The same in a `match` arm, and behind a plain reference parameter.
mod a_pattern_hiding_a_live_local {
    use lowering_tests::*;

    differential! {
        pub struct Cache { pub v: Vec<u32> }
        impl Cache {
            pub async fn record(&self, n: u32) -> u32 { later("record", n).await }

            pub async fn get(&self) -> Option<u32> {
                later("first", ()).await;
                let now = 1;
                let found = self.v.first().map(|v| (*v, now + 1));
                if let Some((x, now)) = found {
                    let r = self.record(x + now).await;
                    Some(r)
                } else {
                    self.record(now).await;
                    None
                }
            }

            pub async fn get_matched(&self, label: String) -> String {
                let now = label.len() as u32;
                later("first", ()).await;
                match self.v.first().map(|v| (*v, label.clone())) {
                    Some((x, label)) => {
                        let r = self.record(x + now).await;
                        format!("{label}{r}")
                    }
                    None => format!("{label}{now}"),
                }
            }
        }
        pub async fn get_from(cache: &Cache, n: u32) -> u32 {
            let now = n;
            later("first", ()).await;
            if let Some(now) = cache.v.get(now as usize).copied() {
                cache.record(now + cache.v.len() as u32).await
            } else {
                now
            }
        }
    }

    #[test]
    fn the_branch_keeps_what_it_uses() {
        for v in [vec![], vec![3, 4]] {
            same_at_every_suspension(
                || async { classic::Cache { v: v.clone() }.get().await },
                || async { runtime::Cache { v: v.clone() }.get().await },
            );
            same_at_every_suspension(
                || async { classic::Cache { v: v.clone() }.get_matched("l".into()).await },
                || async { runtime::Cache { v: v.clone() }.get_matched("l".into()).await },
            );
            for n in [0, 1, 5] {
                same_at_every_suspension(
                    || async { classic::get_from(&classic::Cache { v: v.clone() }, n).await },
                    || async { runtime::get_from(&runtime::Cache { v: v.clone() }, n).await },
                );
            }
        }
    }
}

/// moka's `ValueInitializer::try_compute` (E0308 "expected type parameter `O`, found `()`"):
/// a `match` on an awaited value whose arm is a block ending in a call that returns `!`
/// (`Err(payload) => { ..; resume_unwind(payload); }`). The arm's value went to the
/// construct's slot as `()`; the plain block's type is `!` there. Neighbours: an `if`'s branch,
/// a unit construct whose branch ends in an ordinary call, a method call that diverges.
mod a_branch_ending_in_a_diverging_call {
    use lowering_tests::*;

    pub fn fail(reason: String) -> ! {
        panic!("failed: {}", reason)
    }

    pub struct Guard;
    impl Guard {
        pub fn abort(&self, reason: &str) -> ! {
            panic!("aborted: {}", reason)
        }
    }

    differential! {
        pub async fn output<O>(f: impl std::future::Future<Output = Result<O, String>>) -> O {
            let output = match f.await {
                Ok(output) => output,
                Err(reason) => {
                    log("failing");
                    super::fail(reason);
                }
            };
            later("after", ()).await;
            output
        }

        pub async fn chosen(ok: bool, n: u32) -> u32 {
            let guard = super::Guard;
            let n = if ok { later("ok", n).await } else { log("not ok"); guard.abort("chosen"); };
            later("after", ()).await;
            n + 1
        }

        pub async fn unit_branches(ok: bool, mut v: Vec<u32>) -> Vec<u32> {
            let done = if ok { later("push", ()).await; v.push(1); } else { v.push(2); };
            later("after", done).await;
            v
        }
    }

    #[test]
    fn the_branch_has_the_plain_blocks_type() {
        for value in [Ok(3u32), Err("no".to_string())] {
            let made = value.clone();
            let again = value.clone();
            same_at_every_suspension(
                move || classic::output(std::future::ready(made.clone())),
                move || runtime::output(std::future::ready(again.clone())),
            );
        }
        for ok in [true, false] {
            same_at_every_suspension(|| classic::chosen(ok, 4), || runtime::chosen(ok, 4));
            same_at_every_suspension(|| classic::unit_branches(ok, vec![0]), || runtime::unit_branches(ok, vec![0]));
        }
    }
}

/// futures-lite's `io::copy` (E0425 "cannot find type `CopyFuture`"): a struct declared by a
/// macro statement (`pin_project! { struct CopyFuture<R, W> { .. } }`), an `impl` item for it
/// beside it, and an await. The body's items are declared where the stub's are, so that every
/// state sees them; the macro statement stayed in the state machine's code, out of the
/// `impl`'s sight.
mod items_declared_by_a_macro {
    use lowering_tests::*;

    macro_rules! declare {
        ($($item:tt)*) => { $($item)* };
    }

    differential! {
        pub async fn counted(n: u32) -> u32 {
            declare! {
                struct Counter<T> {
                    n: T,
                }
                fn doubled(n: u32) -> u32 { n * 2 }
            }

            impl Counter<u32> {
                fn get(&self) -> u32 {
                    doubled(self.n)
                }
            }

            let counter = Counter { n: later("n", n).await };
            later("after", ()).await;
            counter.get()
        }
    }

    #[test]
    fn the_items_are_declared_for_every_state() {
        assert_eq!(same_at_every_suspension(|| classic::counted(4), || runtime::counted(4)), Outcome::Value(8));
    }
}

/// A process library's reaper (`cfg_wait! { if let (Self::Wait(this), ..) = .. { .. } }`, then
/// `cfg_signal! { if let (Self::Signal(this), ..) = .. { .. } }`): the name each macro's own
/// `if let` binds was taken for a local the first macro declares, and bound again after it
/// (`let mut this = this;`: E0425). A macro's `if let`, `for` and `match` patterns bind for its
/// own code only.
mod names_a_macro_binds_for_itself {
    use super::*;

    macro_rules! pasted { ($($t:tt)*) => { $($t)* }; }

    differential! {
        pub async fn two_if_lets(v: Option<u32>, w: Option<u32>) -> u32 {
            let mut total = 0;
            pasted! { if let Some(x) = v { total += x; } }
            later("a", ()).await;
            pasted! { if let Some(x) = w { total += x; } }
            pasted! { for x in [1u32, 2] { total += x; } }
            later("b", ()).await;
            pasted! { match v { Some(x) => total += x, None => {} } }
            total
        }

        // A `let` statement at the macro's top level still declares its local for the code
        // after the macro (read before the await: after it, the lowering refuses such a local).
        pub async fn a_pasted_let(v: u32) -> u32 {
            pasted! { let x = v + 1; }
            let y = x * 2;
            later("a", ()).await;
            y
        }
    }

    #[test]
    fn each_macro_binds_its_own_x() {
        for (v, w) in [(None, None), (Some(1), None), (Some(2), Some(5))] {
            same_at_every_suspension(|| classic::two_if_lets(v, w), || runtime::two_if_lets(v, w));
        }
        assert_eq!(
            same_at_every_suspension(|| classic::a_pasted_let(3), || runtime::a_pasted_let(3)),
            Outcome::Value(8)
        );
    }
}

/// A field of a reference used by value (tokio-postgres 0.7.18, `Transaction::_savepoint`:
/// `Transaction { client: self.client, .. }` in a `&mut self` method, `client: &'a mut
/// Client`). Rust reborrows the field there (a `&mut` where a `&mut` is expected); the
/// lowering took it as a field moved out of the receiver's place (E0507 "cannot move out of a
/// mutable reference" at the attribute). A field reached through a reference is now read
/// through it as Rust reads it: copied, reborrowed, never moved. The same through a
/// reference parameter and a shared reference.
mod a_field_read_through_a_reference {
    use super::*;

    pub struct Client {
        pub log: Vec<String>,
    }

    impl Client {
        pub async fn execute(&mut self, query: &str) -> Result<(), String> {
            later("execute", ()).await;
            self.log.push(query.to_owned());
            if query.ends_with("fail") { Err(query.to_owned()) } else { Ok(()) }
        }
    }

    pub struct Savepoint {
        pub name: String,
        pub depth: u32,
    }

    pub struct Transaction<'a> {
        pub client: &'a mut Client,
        pub savepoint: Option<Savepoint>,
        pub done: bool,
    }

    /// The crate's method, written twice.
    macro_rules! savepoint {
        ($name:ident, $lowering:ident) => {
            #[lowering::lowering($lowering)]
            pub async fn $name(&mut self, name: Option<String>) -> Result<Transaction<'_>, String> {
                let depth = self.savepoint.as_ref().map_or(0, |sp| sp.depth) + 1;
                let name = name.unwrap_or_else(|| format!("sp_{depth}"));
                let query = format!("SAVEPOINT {name}");
                self.client.execute(&query).await?;

                Ok(Transaction { client: self.client, savepoint: Some(Savepoint { name, depth }), done: false })
            }
        };
    }

    impl<'a> Transaction<'a> {
        savepoint!(savepoint_classic, classic);
        savepoint!(savepoint_runtime, runtime);
    }

    /// Through a reference parameter, a shared field copied beside the reborrowed one.
    macro_rules! nested {
        ($name:ident, $lowering:ident) => {
            #[lowering::lowering($lowering)]
            pub async fn $name<'t>(outer: &'t mut Transaction<'_>, seen: &Savepoint) -> Transaction<'t> {
                let depth = later("depth", seen.depth).await + 1;
                let name = format!("{}-{depth}", later("name", &seen.name).await);
                Transaction { client: outer.client, savepoint: Some(Savepoint { name, depth }), done: outer.done }
            }
        };
    }

    nested!(nested_classic, classic);
    nested!(nested_runtime, runtime);

    async fn drive(classic: bool, name: Option<String>) -> Result<Vec<String>, String> {
        let mut client = Client { log: Vec::new() };
        let mut outer = Transaction { client: &mut client, savepoint: None, done: false };
        let inner = if classic { outer.savepoint_classic(name).await? } else { outer.savepoint_runtime(name).await? };
        let savepoint = inner.savepoint.expect("a savepoint");
        let mut deeper = if classic {
            nested_classic(&mut outer, &savepoint).await
        } else {
            nested_runtime(&mut outer, &savepoint).await
        };
        let deepest = deeper.savepoint.take().expect("a savepoint");
        deeper.client.execute(&deepest.name).await?;
        Ok(client.log.clone().into_iter().chain([format!("{} {}", deepest.name, deepest.depth)]).collect())
    }

    #[test]
    fn the_receivers_field_is_reborrowed() {
        for name in [None, Some(String::from("named")), Some(String::from("fail"))] {
            let outcome = same_at_every_suspension(|| drive(true, name.clone()), || drive(false, name.clone()));
            if name.is_none() {
                let log = vec![String::from("SAVEPOINT sp_1"), String::from("sp_1-2"), String::from("sp_1-2 2")];
                assert_eq!(outcome, Outcome::Value(Ok(log)));
            }
        }
    }
}

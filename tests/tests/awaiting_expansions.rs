//! Macros whose expansion awaits in the function's own context, named by the `awaits` hint
//! (`#[lowering(classic, awaits(read_pair))]`): a `macro_rules!` with `.await` in its body (or
//! handed the keyword, `read_pair!(source, await)`), and one that pastes tokens holding an
//! `.await`. Without the hint each is E0728 under classic (`move_next` is no async context);
//! with it each invocation runs in an `async` block the state machine awaits. The shapes are
//! those of published crates: an XML reader's `read_event_impl!` as a function's value, a
//! cache's `try_or_disable!` as a unit function's last statement, a process reaper's
//! `cfg_signal! { if let Self::Signal(this) = self { return .. .await } }`, a SOCKS server's
//! `read_exact!` in a loop. Each runs under both lowerings, to the end and dropped at every
//! suspension; the ui tests `hint_awaits_*` show the mistakes.

use std::cell::Cell;

use lowering_tests::fuzz::weigh;
use lowering_tests::*;

/// One async fn written twice: `classic` under `#[lowering(classic, <hint>)]`, `runtime` under
/// `#[lowering(runtime)]`, in a module named after it.
macro_rules! hinted {
    ([$($hint:tt)*] pub async fn $name:ident $($rest:tt)*) => {
        pub mod $name {
            use super::*;
            #[lowering::lowering(classic, $($hint)*)]
            pub async fn classic $($rest)*
            #[lowering::lowering(runtime)]
            pub async fn runtime $($rest)*
        }
    };
}

/// Values read one await at a time; `0` ends them.
pub struct Source(pub Vec<u32>, pub Loud);

impl Source {
    pub fn new(values: &[u32]) -> Source {
        Source(values.to_vec(), Loud::new("source"))
    }

    pub async fn next_value(&mut self) -> Result<u32, String> {
        let value = if self.0.is_empty() { None } else { Some(self.0.remove(0)) };
        later("next", value.ok_or_else(|| String::from("empty"))).await
    }

    pub async fn fill(&mut self, buf: &mut [u8]) -> usize {
        for byte in buf.iter_mut() {
            *byte = self.0.first().copied().unwrap_or(0) as u8;
        }
        later("fill", buf.len()).await
    }
}

/// Awaits with `?` and returns early, in its own body; handed the keyword, as the XML reader's
/// macro is to share one body between its blocking and async readers.
macro_rules! read_pair {
    ($source:expr, $await:ident) => {{
        let first = $source.next_value().$await?;
        if first == 0 {
            return Err(String::from("zero"));
        }
        let second = $source.next_value().$await?;
        Ok::<u32, String>(first + second)
    }};
}

/// Awaits in its own body; no `return`, no `?`.
macro_rules! read_exact {
    ($source:expr, $n:expr) => {{
        let mut buf = vec![0u8; $n];
        $source.fill(&mut buf).await;
        buf
    }};
}

/// Pastes its tokens, as a `cfg_*!` macro does where its condition holds.
macro_rules! pasted {
    ($($tokens:tt)*) => {
        $($tokens)*
    };
}

hinted! {
    [awaits(read_pair)]
    // The function's value: a `return` or `?` of the expansion returns from the function.
    pub async fn pair_as_the_value(mut source: Source) -> Result<u32, String> {
        read_pair!(source, await)
    }
}

hinted! {
    [awaits(read_pair)]
    // In `if` and `match` arms whose values are the function's, after awaits of its own.
    pub async fn pair_in_arms(mut source: Source, first: bool) -> Result<u32, String> {
        let skipped = source.next_value().await?;
        if first {
            read_pair!(source, await)
        } else {
            match skipped {
                1 => return read_pair!(source, await),
                _ => { let kept = Loud::new("kept"); later("arm", weigh(&kept)).await; read_pair!(source, await) }
            }
        }
    }
}

/// Gives the value of a result, or clears the flag and returns from the function.
macro_rules! or_disable {
    ($flag:expr, $e:expr) => {
        match $e {
            Ok(v) => v,
            Err(_) => {
                $flag.set(false);
                return;
            }
        }
    };
}

hinted! {
    [awaits(or_disable)]
    // A unit function's last statement, and a `let` before it whose invocation has no await
    // but returns from the function.
    pub async fn disabled_on_error(flag: &Cell<bool>, first: Result<u32, String>, fail: bool) {
        let value = or_disable!(flag, first);
        or_disable!(flag, later("second", if fail { Err(value) } else { Ok(value) }).await);
    }
}

/// A reaper of two kinds, each locked its own way.
pub enum Reaper {
    Wait(Loud),
    Signal(Loud),
}

pub mod reaper_classic {
    use super::*;

    impl Reaper {
        // Pasted statements that return from the function with an await inside, before more
        // code: `return` leaves the awaited block, and the function with its value.
        #[lowering::lowering(classic, awaits(pasted))]
        pub async fn lock_classic(&self, extra: u32) -> u32 {
            pasted! {
                if let Self::Wait(_) = self {
                    return extra;
                }
            }
            pasted! {
                if let Self::Signal(this) = self {
                    return later("lock", weigh(this)).await + extra;
                }
            }
            unreachable!()
        }

        #[lowering::lowering(runtime)]
        pub async fn lock_runtime(&self, extra: u32) -> u32 {
            pasted! {
                if let Self::Wait(_) = self {
                    return extra;
                }
            }
            pasted! {
                if let Self::Signal(this) = self {
                    return later("lock", weigh(this)).await + extra;
                }
            }
            unreachable!()
        }
    }
}

/// Shares one body between a blocking and an async reader, taking the reader and the buffer
/// by identifier and the keyword too, as the XML reader's `read_event_impl!` does.
macro_rules! read_event {
    ($self:ident, $buf:ident, $await:ident) => {{
        let value = $self.source.next_value().$await?;
        $buf.push(value);
        $self.events += 1;
        if value == 0 {
            return Err(String::from("zero"));
        }
        Ok::<usize, String>($buf.len())
    }};
}

/// A reader whose methods hand themselves to `read_event!`.
pub struct EventReader {
    pub source: Source,
    pub events: u32,
}

pub mod event_reader_classic {
    use super::*;

    impl EventReader {
        // `&mut self` and a `&mut` buffer handed to the macro by identifier, in the block the
        // state machine awaits.
        #[lowering::lowering(classic, awaits(read_event))]
        pub async fn read_event_classic(&mut self, buf: &mut Vec<u32>) -> Result<usize, String> {
            read_event!(self, buf, await)
        }

        #[lowering::lowering(runtime)]
        pub async fn read_event_runtime(&mut self, buf: &mut Vec<u32>) -> Result<usize, String> {
            read_event!(self, buf, await)
        }
    }
}

hinted! {
    [awaits(read_exact)]
    // The macro's value read in a loop, beside the function's own `?`, and in an assertion.
    pub async fn frames(mut source: Source, count: u32) -> Result<usize, String> {
        let mut total = 0;
        for round in 0..count {
            let header = read_exact!(source, 2);
            total += header.len() + (if round < 3 { Ok(round as usize) } else { Err(round.to_string()) })?;
            assert_eq!(read_exact!(source, 1).len(), 1);
        }
        Ok(total)
    }
}

hinted! {
    [awaits(pasted)]
    // Pasted statements with a `?` and a `let`, not the function's value: the `?` leaves the
    // awaited block and the function, converting its error as the function's own would.
    pub async fn pasted_question_mark(mut source: Source) -> Result<u32, Box<dyn std::error::Error>> {
        let mut total = 0;
        pasted! {
            let value = source.next_value().await?;
            total += value;
        }
        let after = Loud::new("after");
        total += later("after", weigh(&after)).await;
        Ok(total)
    }
}

/// Makes values that log their drops, awaits between them, and may panic or return.
macro_rules! weighed {
    ($name:expr, $fail:expr) => {{
        let kept = Loud::new(concat!($name, " kept"));
        let weight = later($name, weigh(&Loud::new(concat!($name, " temporary")))).await;
        if $fail == 1 {
            panic!("expansion {} failed", $name);
        }
        if $fail == 2 {
            return Loud::new(concat!($name, " returned"));
        }
        weight + weigh(&kept)
    }};
}

hinted! {
    [returns(weighed)]
    // Locals and temporaries of the expansion, between the function's own: they drop where
    // the plain function drops them, the expansion's panic and return too.
    pub async fn expansion_drops(fail: u32) -> Loud {
        let before = Loud::new("before");
        let first = weighed!("first", fail);
        let after = Loud::new("after");
        let second = weighed!("second", 0);
        Loud::new(format!("{} {} {}", weigh(&before) + first, weigh(&after), second))
    }
}

macro_rules! plain {
    ($($tokens:tt)*) => {
        $($tokens)*
    };
}

hinted! {
    [awaits(plain)]
    // A hinted macro that does not await after all: the same (its block completes at once).
    pub async fn hinted_but_not_awaiting(n: u32) -> u32 {
        let first = plain!(n + 1);
        later("a", first).await + plain!(n * 2)
    }
}

#[test]
fn a_macro_as_the_functions_value() {
    for values in [&[2, 3][..], &[0, 3], &[2], &[]] {
        same_at_every_suspension(
            || pair_as_the_value::classic(Source::new(values)),
            || pair_as_the_value::runtime(Source::new(values)),
        );
        for first in [false, true] {
            same_at_every_suspension(
                || pair_in_arms::classic(Source::new(values), first),
                || pair_in_arms::runtime(Source::new(values), first),
            );
        }
    }
    for values in [&[1, 2, 3][..], &[4, 0, 1], &[1, 5]] {
        same_at_every_suspension(
            || pair_in_arms::classic(Source::new(values), false),
            || pair_in_arms::runtime(Source::new(values), false),
        );
    }
}

#[test]
fn a_macro_as_a_unit_functions_last_statement() {
    for (first, fail) in [(Ok(1), false), (Ok(1), true), (Err(String::from("e")), false)] {
        let (classic_flag, runtime_flag) = (Cell::new(true), Cell::new(true));
        same_at_every_suspension(
            || disabled_on_error::classic(&classic_flag, first.clone(), fail),
            || disabled_on_error::runtime(&runtime_flag, first.clone(), fail),
        );
        assert_eq!(classic_flag.get(), runtime_flag.get());
    }
}

#[test]
fn pasted_statements_that_return_with_an_await() {
    for make in [|| Reaper::Wait(Loud::new("wait")), || Reaper::Signal(Loud::new("signal"))] {
        let (classic_reaper, runtime_reaper) = (make(), make());
        same_at_every_suspension(|| classic_reaper.lock_classic(2), || runtime_reaper.lock_runtime(2));
    }
}

#[test]
fn a_reader_handed_to_the_macro_by_identifier() {
    for values in [&[3, 4][..], &[0], &[]] {
        let drive = |classic: bool| {
            take_log();
            let mut reader = EventReader { source: Source::new(values), events: 0 };
            let mut buf = vec![1];
            let results: Vec<Result<usize, String>> = (0..2)
                .map(|_| {
                    let future = if classic {
                        futures::future::Either::Left(reader.read_event_classic(&mut buf))
                    } else {
                        futures::future::Either::Right(reader.read_event_runtime(&mut buf))
                    };
                    futures::executor::block_on(future)
                })
                .collect();
            (results, reader.events, buf, take_log())
        };
        assert_eq!(drive(true), drive(false));
    }
}

#[test]
fn a_macro_value_in_a_loop_and_an_assertion() {
    for count in [0, 2, 4] {
        same_at_every_suspension(
            || frames::classic(Source::new(&[7, 8]), count),
            || frames::runtime(Source::new(&[7, 8]), count),
        );
    }
}

#[test]
fn a_question_mark_among_pasted_tokens() {
    for values in [&[5][..], &[]] {
        same_at_every_suspension(
            || async { pasted_question_mark::classic(Source::new(values)).await.map_err(|error| error.to_string()) },
            || async { pasted_question_mark::runtime(Source::new(values)).await.map_err(|error| error.to_string()) },
        );
    }
}

#[test]
fn a_hinted_macro_that_does_not_await() {
    same_at_every_suspension(|| hinted_but_not_awaiting::classic(3), || hinted_but_not_awaiting::runtime(3));
}

#[test]
fn what_an_expansion_drops_and_how_it_leaves() {
    for fail in [0, 1, 2] {
        same_at_every_suspension(|| expansion_drops::classic(fail), || expansion_drops::runtime(fail));
    }
    let (outcome, _) = same(|| expansion_drops::classic(1), || expansion_drops::runtime(1));
    assert_eq!(outcome, Outcome::Panic("expansion first failed".to_owned()));
}

/// The module form: the hint is the module's, and a function that does not invoke the macro
/// (`helper`) is lowered as it would be without it.
macro_rules! in_a_module {
    ($($items:tt)*) => {
        #[lowering::lowering(classic, awaits(read_exact))]
        pub mod module_classic {
            use super::*;
            $($items)*
        }
        #[lowering::lowering(runtime)]
        pub mod module_runtime {
            use super::*;
            $($items)*
        }
    };
}

/// An async trait whose method invokes the hinted macro.
#[async_trait::async_trait(?Send)]
pub trait Frames {
    async fn frames(&self, source: Source) -> u32;
}

in_a_module! {
    pub struct Framer;

    pub async fn helper(n: u32) -> u32 {
        later("helper", n).await
    }

    // Under `#[async_trait]`, whose methods the module form hands the attribute with the
    // hints their bodies need (found by the fuzzer: the hint was dropped, E0728); and inside a
    // standard macro's arguments, where the module's check must see it too.
    #[async_trait::async_trait(?Send)]
    impl Frames for Framer {
        async fn frames(&self, mut source: Source) -> u32 {
            let header = read_exact!(source, 2);
            assert!(header.len() == 2, "{}", read_exact!(source, 1).len());
            header.len() as u32
        }
    }

    pub async fn frames_in_a_module(mut source: Source) -> u32 {
        let header = read_exact!(source, 2);
        helper(header.len() as u32).await + helper(1).await
    }
}

#[test]
fn a_hint_on_a_module_reaches_an_async_trait_method() {
    same_at_every_suspension(
        || async { module_classic::Framer.frames(Source::new(&[3])).await },
        || async { module_runtime::Framer.frames(Source::new(&[3])).await },
    );
}

#[test]
fn a_hint_on_a_module() {
    same_at_every_suspension(
        || module_classic::frames_in_a_module(Source::new(&[3])),
        || module_runtime::frames_in_a_module(Source::new(&[3])),
    );
}

/// What the process reaper's lock is: nothing to hold, or a guard to move into the reaping.
pub enum Lock {
    Wait,
    Signal(Loud),
}

hinted! {
    [awaits(pasted)]
    // The reaper's `reap(&self, lock: Lock)`: the first invocation borrows `lock` across its
    // await (so the state machine keeps it in place), the second moves it at its last use,
    // inside the tokens of an invocation that runs in an awaited block. That block runs once,
    // where it is made: the macro is lent `lock`'s value there, as anywhere in the statement
    // (it was lent the place, and the move out of it was E0507).
    pub async fn reap_with(lock: Lock, extra: u32) -> u32 {
        pasted! {
            if let (true, Lock::Wait) = (extra > 0, &lock) {
                later("wait", extra).await;
            }
        }
        pasted! {
            if let (true, Lock::Signal(guard)) = (extra > 1, lock) {
                return later("reap", guard).await.spend_later(extra).await;
            }
        }
        extra
    }
}

#[test]
fn a_macro_awaiting_at_a_locals_last_use_is_lent_its_value() {
    for extra in [0, 1, 2] {
        for lock in [|| Lock::Wait, || Lock::Signal(Loud::new("guard"))] {
            same_at_every_suspension(|| reap_with::classic(lock(), extra), || reap_with::runtime(lock(), extra));
        }
    }
}

/// A format string among a macro's tokens names a local kept in place (`"{user}"`, in a
/// `format!` inside the tokens, or handed to a macro of the user's that formats): the capture
/// reads the value, as in the plain function (it named the place, E0277 "`Place<String>`
/// doesn't implement `Display`", an IMAP client's `login`).
macro_rules! or_return {
    ($result:expr, $value:expr) => {
        match $result {
            Ok(o) => o,
            Err(e) => return Err(format!("{e}: {}", $value)),
        }
    };
}

macro_rules! formatted {
    ($($format:tt)*) => {
        format!($($format)*)
    };
}

async fn command(text: &str) -> Result<u32, String> {
    later("command", if text.len() > 10 { Ok(text.len() as u32) } else { Err(text.to_owned()) }).await
}

hinted! {
    [returns(or_return)]
    pub async fn login(user: String, tag: u32) -> Result<u32, String> {
        let held = &user;
        let id = or_return!(command(&format!("LOGIN {user} {tag}")).await, tag);
        let echoed = formatted!("{user}/{held}/{id}");
        later("done", Ok(id + echoed.len() as u32 + user.len() as u32)).await
    }
}

#[test]
fn a_format_string_among_a_macros_tokens_reads_a_kept_local() {
    for user in ["me", "somebody else"] {
        let outcome =
            same_at_every_suspension(|| login::classic(user.to_owned(), 7), || login::runtime(user.to_owned(), 7));
        let expected = if user == "me" { Err(String::from("LOGIN me 7: 7")) } else { Ok(64) };
        assert_eq!(outcome, Outcome::Value(expected));
    }
}

/// Gives a result's value, or returns its error with the value it is handed (an IMAP client's
/// `ok_or_unauth_client_err!(r, self)`, async-imap 0.12.0: the client goes back to the caller
/// on an error, and stays the function's otherwise).
macro_rules! or_give_back {
    ($result:expr, $owner:expr) => {
        match $result {
            Ok(o) => o,
            Err(e) => return Err((e, $owner)),
        }
    };
}

pub struct Conn {
    pub label: Loud,
    pub sent: u32,
}

impl Conn {
    pub async fn run(&mut self, command: &str) -> Result<u32, String> {
        self.sent += 1;
        later("run", if command.ends_with('!') { Err(command.to_owned()) } else { Ok(command.len() as u32) }).await
    }
}

/// The client's `login(mut self, ..)`, twice: a kept local handed to a macro that returns
/// from the function moves it there only on that path; it was lent the place, and the move
/// out of it was E0507. It is now taken out for the macro and given back after it.
macro_rules! login {
    ($name:ident, $($lowering:tt)*) => {
        impl Conn {
            #[lowering::lowering($($lowering)*)]
            pub async fn $name(mut self, user: &str) -> Result<(u32, Conn), (String, Conn)> {
                let first = or_give_back!(self.run(user).await, self);
                let second = or_give_back!(self.run(&format!("{user}{first}")).await, self);
                Ok((first + second + self.sent, self))
            }
        }
    };
}

login!(login_classic, classic, returns(or_give_back));
login!(login_runtime, runtime);

hinted! {
    [returns(or_give_back)]
    // A local of the function's, beside another kept local, and named again after the macro.
    pub async fn handed_back(user: &'static str) -> Result<u32, (String, Conn)> {
        let mut conn = Conn { label: Loud::new("conn"), sent: 0 };
        let other = Loud::new("other");
        let held = &other;
        let n = or_give_back!(conn.run(user).await, conn);
        let m = or_give_back!(conn.run(held.name()).await, conn);
        Ok(n + m + conn.sent + weigh(held))
    }
}

fn login_summary(result: Result<(u32, Conn), (String, Conn)>) -> String {
    match result {
        Ok((n, conn)) => format!("ok {n} {}", conn.sent),
        Err((e, conn)) => format!("err {e} {}", conn.sent),
    }
}

fn handed_summary(result: Result<u32, (String, Conn)>) -> String {
    match result {
        Ok(n) => format!("ok {n}"),
        Err((e, conn)) => format!("err {e} {}", conn.sent),
    }
}

#[test]
fn a_kept_local_a_returning_macro_moves_on_its_return_path() {
    for user in ["me", "you!"] {
        let conn = || Conn { label: Loud::new("client"), sent: 0 };
        let outcome = same_at_every_suspension(
            || async move { login_summary(conn().login_classic(user).await) },
            || async move { login_summary(conn().login_runtime(user).await) },
        );
        let expected = if user == "me" { "ok 7 2" } else { "err you! 1" };
        assert_eq!(outcome, Outcome::Value(expected.to_owned()));
        let classic = run(Stop::AtEnd, || async move { handed_summary(handed_back::classic(user).await) });
        let runtime = run(Stop::AtEnd, || async move { handed_summary(handed_back::runtime(user).await) });
        assert_eq!(classic, runtime);
        let expected = if user == "me" { "ok 14" } else { "err you! 1" };
        assert_eq!(classic.0, Outcome::Value(expected.to_owned()));
    }
}

/// Dropped while the macro it was handed to waits, a local given back drops with the macro's
/// block, before the locals declared after it, where the plain function drops it after them
/// (the README's "Where the lowerings differ"); run to the end, both agree (above).
#[test]
fn a_local_handed_to_a_returning_macro_drops_with_it_when_cancelled_there() {
    let (classic, classic_log) = run(Stop::AfterSuspensions(1), || handed_back::classic("me"));
    let (runtime, runtime_log) = run(Stop::AfterSuspensions(1), || handed_back::runtime("me"));
    assert!(matches!((&classic, &runtime), (Outcome::Dropped, Outcome::Dropped)));
    assert_eq!(runtime_log, ["new conn", "new other", "suspend run", "drop other", "drop conn"]);
    assert_eq!(classic_log, ["new conn", "new other", "suspend run", "drop conn", "drop other"]);
}

/// Reads a value into the buffer and gives a view of it, borrowed for the buffer's lifetime (an
/// XML reader's `read_until_close!(self, buf, .., await)` whose `Event<'b>` borrows `buf`,
/// quick-xml 0.42.0). Handed `buf` as a reborrow bounded by the run, the view could not be the
/// function's value (E0515 "cannot return value referencing temporary value"); a reference
/// parameter at its last use is now handed the reference itself, `mut` or not, as Rust hands
/// it.
macro_rules! read_view {
    ($self:ident, $buf:ident, $await:ident) => {{
        let value = $self.source.next_value().$await?;
        $buf.push(value);
        $self.events += 1;
        Ok::<&[u32], String>(&$buf[..])
    }};
}

macro_rules! view_methods {
    ($view:ident, $view_mut:ident, $($lowering:tt)*) => {
        impl EventReader {
            #[lowering::lowering($($lowering)*)]
            pub async fn $view<'b>(&mut self, buf: &'b mut Vec<u32>) -> Result<&'b [u32], String> {
                read_view!(self, buf, await)
            }

            #[lowering::lowering($($lowering)*)]
            pub async fn $view_mut<'b>(&mut self, mut buf: &'b mut Vec<u32>) -> Result<&'b [u32], String> {
                later("first", ()).await;
                read_view!(self, buf, await)
            }
        }
    };
}

view_methods!(view_classic, view_mut_classic, classic, awaits(read_view));
view_methods!(view_runtime, view_mut_runtime, runtime);

#[test]
fn a_view_of_a_reference_parameter_is_the_functions_value() {
    for values in [&[3, 4][..], &[]] {
        for second in [false, true] {
            let drive = |classic: bool| {
                take_log();
                let mut reader = EventReader { source: Source::new(values), events: 0 };
                let mut buf = vec![9];
                let view = futures::executor::block_on(async {
                    match (classic, second) {
                        (true, false) => reader.view_classic(&mut buf).await.map(<[u32]>::to_vec),
                        (true, true) => reader.view_mut_classic(&mut buf).await.map(<[u32]>::to_vec),
                        (false, false) => reader.view_runtime(&mut buf).await.map(<[u32]>::to_vec),
                        (false, true) => reader.view_mut_runtime(&mut buf).await.map(<[u32]>::to_vec),
                    }
                });
                (view, reader.events, buf, take_log())
            };
            assert_eq!(drive(true), drive(false));
        }
    }
}

/// A hinted macro invoked only in code under one `#[cfg]` (a Redis client's `fail!` in an arm
/// under `#[cfg(not(any(feature = "tls-native-tls", ..)))]`): the function is lowered once per
/// combination, and the copy without that code does not invoke the macro, yet the hint is the
/// function's, checked against the function as written (before, that copy refused it: "`or_return!`
/// is no macro `connect` invokes").
hinted! {
    [returns(or_return)]
    pub async fn connect(text: String, tls: bool) -> Result<u32, String> {
        let sent = later("sent", text.len() as u32).await;
        if tls {
            #[cfg(test)]
            let id = or_return!(command(&text).await, "tls");
            #[cfg(not(test))]
            let id = 0;
            return Ok(id + sent);
        }
        Ok(sent)
    }
}

#[test]
fn a_hint_naming_a_macro_only_one_cfg_copy_invokes() {
    for text in ["short", "long enough to pass"] {
        for tls in [false, true] {
            same_at_every_suspension(
                || connect::classic(text.to_owned(), tls),
                || connect::runtime(text.to_owned(), tls),
            );
        }
    }
}

/// Returns the error it is given (a Redis client's `fail!`).
macro_rules! fail {
    ($error:expr) => {
        return Err(String::from($error))
    };
}

pub enum Addr {
    Tcp(String, u16),
    Tls(String),
    Unix(Loud),
}

async fn resolve(host: &str, port: u16) -> Result<u16, String> {
    later("resolve", if host.is_empty() { Err(String::from("no host")) } else { Ok(port + host.len() as u16) }).await
}

/// A hinted macro statement that ends a block whose value the function uses (the client's
/// `connect_simple`: `Ok(match addr { .. TcpTls { .. } => { fail!(..); } .. })`): the block is
/// `!` in Rust, as the expansion always returns, and the arm's value slot has the other arms'
/// type (before: `()` was given for it, E0308 "expected `u16`, found `()`"). With the same
/// statement ending a block whose value is `()` (an `if` without `else`).
hinted! {
    [returns(fail)]
    pub async fn connect_simple(addr: Addr, strict: bool) -> Result<u16, String> {
        if strict {
            fail!("strict");
        }
        Ok(match addr {
            Addr::Tcp(ref host, port) => {
                let resolved = resolve(host, port).await?;
                resolved + 1
            }
            Addr::Tls(host) => {
                log(format!("tls {host}"));
                fail!("no tls");
            }
            Addr::Unix(loud) => later("unix", loud.name().len() as u16).await,
        })
    }
}

#[test]
fn a_hinted_statement_ends_a_block_whose_value_is_used() {
    let addrs = || {
        vec![
            Addr::Tcp(String::from("h"), 5),
            Addr::Tcp(String::new(), 5),
            Addr::Tls(String::from("t")),
            Addr::Unix(Loud::new("u")),
        ]
    };
    for strict in [false, true] {
        for (classic_addr, runtime_addr) in addrs().into_iter().zip(addrs()) {
            let (classic_addr, runtime_addr) =
                (std::cell::Cell::new(Some(classic_addr)), std::cell::Cell::new(Some(runtime_addr)));
            same(
                || connect_simple::classic(classic_addr.take().unwrap(), strict),
                || connect_simple::runtime(runtime_addr.take().unwrap(), strict),
            );
        }
    }
}

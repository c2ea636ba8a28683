//! What the differential fuzzer's generated programs call, and how it compares the two
//! variants without panicking. The fuzzer's regression tests (`tests/fuzz_regressions.rs`)
//! use the same names, so that a minimal case pastes in as it was printed.
//!
//! Every helper logs, so that the event log shows the evaluation order of operands; every
//! result stays small, so that arithmetic on it rarely overflows.

use std::fmt::{Debug, Write as _};
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::{Loud, MAX_POLLS, Outcome, Stop, later, log, quiet, run, take_log};

/// The programs write `futures::join!(..)`: the generated crate depends on this one only.
pub use futures;

/// Two operands combined, logged.
pub fn mix(a: u32, b: u32) -> u32 {
    log(format!("mix {a} {b}"));
    a.wrapping_mul(31).wrapping_add(b) % 100
}

/// Three operands combined, logged.
pub fn add3(a: u32, b: u32, c: u32) -> u32 {
    log(format!("add3 {a} {b} {c}"));
    a.wrapping_add(b).wrapping_add(c) % 100
}

/// `Err` for one value in four, so that `?` takes both ways.
pub fn check(name: &str, value: u32) -> Result<u32, String> {
    log(format!("check {name} {value}"));
    if value % 4 == 3 { Err(format!("bad {name} {value}")) } else { Ok(value) }
}

/// Takes a `Loud` by value: it drops here.
pub fn consume(loud: Loud) -> u32 {
    log(format!("consume {}", loud.name()));
    loud.name().len() as u32
}

/// Borrows a `Loud` for the call only.
pub fn weigh(loud: &Loud) -> u32 {
    log(format!("weigh {}", loud.name()));
    loud.name().len() as u32
}

/// Borrows a `Loud` across a suspension: the borrowed value must still be there after it.
pub async fn weigh_later(loud: &Loud) -> u32 {
    later(&format!("weigh {}", loud.name()), ()).await;
    loud.name().len() as u32
}

/// Borrows a string across a suspension (`len_later("u", &v.name().to_uppercase()).await`:
/// the owned temporary at the end of the chain must live until the call completes).
pub async fn len_later(label: &str, text: &str) -> u32 {
    later(&format!("len {label} {text}"), ()).await;
    text.len() as u32
}

/// What `weigh_all_later` weighs: a `Loud` by its name, a number by itself.
pub trait Weighed {
    fn weight(&self) -> u32;
}

impl Weighed for Loud {
    fn weight(&self) -> u32 {
        self.name().len() as u32
    }
}

impl Weighed for u32 {
    fn weight(&self) -> u32 {
        *self
    }
}

/// Borrows an array of trait objects across a suspension (`weigh_all_later("w", &[&a,
/// &Loud::new("w.1"), &2u32]).await`: the array is coerced to `&[&dyn Weighed]` where it is
/// made, and must live until the call completes).
pub async fn weigh_all_later(label: &str, items: &[&dyn Weighed]) -> u32 {
    later(&format!("weigh all {label}"), ()).await;
    items.iter().map(|item| item.weight()).sum()
}

/// Methods that take a `Loud` by value (it drops inside), called on locals and parameters:
/// the macro cannot tell them from methods that borrow (the README's "consuming methods").
impl Loud {
    /// Consumes the value: it drops here.
    pub fn into_len(self) -> u32 {
        log(format!("into_len {}", self.name()));
        self.name().len() as u32
    }

    /// Consumes the value across a suspension: it drops when the call completes.
    pub async fn spend_later(self, extra: u32) -> u32 {
        later(&format!("spend {}", self.name()), ()).await;
        (self.name().len() as u32).wrapping_add(extra) % 100
    }
}

/// A stand-in for tracing's event macros, with their grammar: an optional `target: ".."`,
/// then fields, then an optional message whose format string may capture locals inline
/// (`"{x}"`) and take arguments. A field is `name = value`, `name = ?value` (`Debug`),
/// `name = %value` (`Display`), or a shorthand naming a local: `?x`, `%x`, a bare `x` (`Debug`),
/// each also with a dotted name (`?pair.a`, `pair.a = ?value`). Each field and the message are
/// logged, so that the log shows what each lowering passed; fields are borrowed, as tracing
/// borrows them.
#[macro_export]
macro_rules! info {
    (target: $target:literal, $($rest:tt)*) => { $crate::__event_fields!(concat!("info ", $target); $($rest)*) };
    ($($rest:tt)*) => { $crate::__event_fields!("info"; $($rest)*) };
}

/// The stand-in for tracing's `event!(target: "..", LEVEL, fields.., "message")`.
#[macro_export]
macro_rules! event {
    (target: $target:literal, $level:path, $($rest:tt)*) => {
        $crate::__event_fields!(format!("event {} {}", $level, $target); $($rest)*)
    };
    ($level:path, $($rest:tt)*) => { $crate::__event_fields!(format!("event {}", $level); $($rest)*) };
}

/// The levels `event!` names, written as tracing's `Level::INFO` is.
pub struct Level(&'static str);

impl Level {
    pub const INFO: Level = Level("INFO");
    pub const DEBUG: Level = Level("DEBUG");
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// The fields of [`info!`] and [`event!`], one at a time; then the message.
#[doc(hidden)]
#[macro_export]
macro_rules! __event_fields {
    ($what:expr;) => {};
    ($what:expr; $message:literal $(, $($args:tt)*)?) => {
        $crate::log(format!("{} {}", $what, format!($message $(, $($args)*)?)))
    };
    ($what:expr; ? $name:ident . $part:ident $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, concat!(stringify!($name), ".", stringify!($part)), "{:?}", $name.$part);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
    ($what:expr; % $name:ident . $part:ident $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, concat!(stringify!($name), ".", stringify!($part)), "{}", $name.$part);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
    ($what:expr; ? $name:ident $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, stringify!($name), "{:?}", $name);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
    ($what:expr; % $name:ident $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, stringify!($name), "{}", $name);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
    ($what:expr; $name:ident . $part:ident = ? $value:expr $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, concat!(stringify!($name), ".", stringify!($part)), "{:?}", $value);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
    ($what:expr; $name:ident . $part:ident = % $value:expr $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, concat!(stringify!($name), ".", stringify!($part)), "{}", $value);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
    ($what:expr; $name:ident . $part:ident = $value:expr $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, concat!(stringify!($name), ".", stringify!($part)), "{:?}", $value);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
    ($what:expr; $name:ident = ? $value:expr $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, stringify!($name), "{:?}", $value);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
    ($what:expr; $name:ident = % $value:expr $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, stringify!($name), "{}", $value);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
    ($what:expr; $name:ident = $value:expr $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, stringify!($name), "{:?}", $value);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
    ($what:expr; $name:ident . $part:ident $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, concat!(stringify!($name), ".", stringify!($part)), "{:?}", $name.$part);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
    ($what:expr; $name:ident $(, $($rest:tt)*)?) => {
        $crate::__event_field!($what, stringify!($name), "{:?}", $name);
        $crate::__event_fields!($what; $($($rest)*)?)
    };
}

/// One field logged, its value borrowed.
#[doc(hidden)]
#[macro_export]
macro_rules! __event_field {
    ($what:expr, $key:expr, $format:literal, $value:expr) => {
        $crate::log(format!(concat!("{} {}=", $format), $what, $key, &$value))
    };
}

/// A buffer that logs its creation, its drop and what it holds: filled through `&mut`
/// (an awaited call or its async `&mut self` method), read through `&`.
#[derive(Debug)]
pub struct Buf {
    name: String,
    items: Vec<u32>,
}

impl Buf {
    pub fn new(name: &str) -> Self {
        log(format!("new {name}"));
        Buf { name: name.to_owned(), items: Vec::new() }
    }

    /// The sum of the items, small.
    pub fn total(&self) -> u32 {
        let total = self.items.iter().fold(0u32, |sum, item| sum.wrapping_add(*item)) % 100;
        log(format!("total {} {total}", self.name));
        total
    }

    /// Appends `item` at once (a `&mut self` method that does not await); the new length.
    pub fn put(&mut self, item: u32) -> u32 {
        log(format!("put {} {item}", self.name));
        self.items.push(item % 100);
        self.items.len() as u32
    }

    /// Suspends once, then appends `item`; the new length.
    pub async fn push_later(&mut self, item: u32) -> u32 {
        later(&format!("push {} {item}", self.name), ()).await;
        self.items.push(item % 100);
        self.items.len() as u32
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        log(format!("drop {} {:?}", self.name, self.items));
    }
}

impl<'a> IntoIterator for &'a Buf {
    type Item = &'a u32;
    type IntoIter = std::slice::Iter<'a, u32>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// Appends `n % 4` items to `buf`, suspending before each: the caller's buffer is borrowed
/// mutably across the suspensions. Its new length.
pub async fn fill(buf: &mut Buf, n: u32) -> u32 {
    for item in 0..n % 4 {
        later(&format!("fill {} {item}", buf.name), ()).await;
        buf.items.push(n.wrapping_add(item) % 100);
    }
    buf.items.len() as u32
}

/// A call of an async method on `&mut receiver`, made now (so that a classic call starts
/// eagerly here, as a free function's does when the driver calls it), with the receiver kept
/// beside the future that borrows it and dropped (logged) after it, as a caller's local would be.
/// The output is a generated program's (`Result<u32, String>` or `()`), which cannot hold
/// the borrow.
pub fn call_method<M, F>(receiver: M, call: impl FnOnce(&'static mut M) -> F) -> MethodCall<M, F::IntoFuture>
where
    M: 'static,
    F: IntoFuture<Output: ProgramOutput>,
{
    let receiver = Box::into_raw(Box::new(receiver));
    // SAFETY: the receiver lives in its own heap block until `MethodCall` drops, which drops
    // the future (the only holder of this borrow) first; nothing else reaches the block, and
    // the output (`ProgramOutput`: owns what it holds) cannot keep the borrow past the future.
    let future = Box::pin(call(unsafe { &mut *receiver }).into_future());
    MethodCall { future: Some(future), receiver }
}

/// The outputs of generated programs and of hand-written methods: values that borrow
/// nothing. Listed one by one: a blanket `T: 'static` would admit a `&'static mut M`, the very
/// borrow [`call_method`] hands out.
pub trait ProgramOutput {}

macro_rules! owned_outputs {
    ($($ty:ty),* $(,)?) => { $(impl ProgramOutput for $ty {})* };
}

owned_outputs!((), bool, u8, u32, u64, usize, i32, i64, String, Vec<u8>, Vec<u32>, Vec<String>);
impl<T: ProgramOutput> ProgramOutput for Option<T> {}
impl<T: ProgramOutput, E: ProgramOutput> ProgramOutput for Result<T, E> {}

/// What [`call_method`] returns: the method's future, then its receiver.
pub struct MethodCall<M, F> {
    future: Option<Pin<Box<F>>>,
    receiver: *mut M,
}

impl<M, F: Future> Future for MethodCall<M, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // `MethodCall` is `Unpin` (a box and a raw pointer): nothing here is pinned in place.
        let this = self.get_mut();
        this.future.as_mut().expect("polled after it was dropped").as_mut().poll(cx)
    }
}

impl<M, F> Drop for MethodCall<M, F> {
    fn drop(&mut self) {
        // The future first: it borrows the receiver.
        self.future = None;
        // SAFETY: made by `Box::into_raw` in `call_method`, and no borrow of it is left.
        drop(unsafe { Box::from_raw(self.receiver) });
    }
}

/// Calls a closure the program hands it twice (a `Fn`: it may be called again), logged.
pub fn apply(f: impl Fn() -> u32) -> u32 {
    let (first, second) = (f(), f());
    log(format!("apply {first} {second}"));
    first.wrapping_add(second) % 100
}

/// Calls a `FnMut` closure twice, logged: the second call sees what the first changed.
pub fn apply_mut(mut f: impl FnMut() -> u32) -> u32 {
    let (first, second) = (f(), f());
    log(format!("apply_mut {first} {second}"));
    first.wrapping_add(second) % 100
}

/// What a program stores past its call, in vectors the caller holds (its parameters `out`
/// and `pending`): closures a macro of the user's or the program made, and futures (`async
/// move` blocks). The driver calls and awaits them after the call completed or was dropped
/// ([`run_with_sinks`]).
#[derive(Default)]
pub struct Sinks {
    pub kept: Vec<Box<dyn Fn() -> u32>>,
    pub pending: Vec<Pin<Box<dyn Future<Output = u32>>>>,
}

/// The event that separates a run's events from those of what it stored (after it).
pub const AFTER_THE_CALL: &str = "-- after the call";

/// A program that stores, called with the caller's vectors: the future it returns borrows them.
pub type StoringCall<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// [`run`] for a program that stores past its call: after the call completed or was dropped
/// (at `stop`), each stored closure is called, each stored future run to its end (or for
/// [`MAX_POLLS`] polls), then all of them dropped, every step logged after [`AFTER_THE_CALL`].
pub fn run_with_sinks<T>(stop: Stop, call: impl FnOnce(&mut Sinks) -> StoringCall<'_, T>) -> (Outcome<T>, Vec<String>) {
    let mut sinks = Sinks::default();
    let (outcome, mut events) = run(stop, || call(&mut sinks));
    log(AFTER_THE_CALL);
    quiet(|| {
        let drained = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for (index, kept) in sinks.kept.iter().enumerate() {
                let value = kept();
                log(format!("kept {index} gave {value}"));
            }
            for (index, pending) in sinks.pending.iter_mut().enumerate() {
                let mut cx = Context::from_waker(std::task::Waker::noop());
                let mut value = None;
                for _ in 0..MAX_POLLS {
                    if let Poll::Ready(ready) = pending.as_mut().poll(&mut cx) {
                        value = Some(ready);
                        break;
                    }
                }
                log(format!("pending {index} gave {value:?}"));
            }
            // Dropped in order, closures first, logged by what they own.
            sinks.kept.clear();
            log("kept dropped");
            sinks.pending.clear();
            log("pending dropped");
        }));
        if let Err(payload) = drained {
            log(format!("stored code panicked: {}", crate::panic_message(&*payload)));
        }
    });
    events.extend(take_log());
    (outcome, events)
}

/// The suspensions of the call itself (not those of what it stored).
fn call_suspensions(events: &[String]) -> usize {
    events
        .iter()
        .take_while(|event| *event != AFTER_THE_CALL)
        .filter(|event| event.starts_with("suspend ") || event.starts_with("block "))
        .count()
}

/// [`compare_at_every_suspension`] for programs that store past the call ([`run_with_sinks`]):
/// what they stored is called and awaited after each run, and its events compared too.
pub fn compare_with_sinks_at_every_suspension<T: PartialEq>(
    classic: impl Fn(&mut Sinks) -> StoringCall<'_, T>,
    runtime: impl Fn(&mut Sinks) -> StoringCall<'_, T>,
) -> Result<(Outcome<T>, usize), Mismatch<T>> {
    let compare = |stop: Stop| {
        let classic = run_with_sinks(stop, &classic);
        let runtime = run_with_sinks(stop, &runtime);
        if classic == runtime { Ok(classic) } else { Err(Mismatch { stop, classic, runtime }) }
    };
    let (outcome, events) = compare(Stop::AtEnd)?;
    let suspensions = call_suspensions(&events);
    for limit in 1..=suspensions {
        compare(Stop::AfterSuspensions(limit))?;
    }
    Ok((outcome, suspensions))
}

/// [`crate::same_at_every_suspension`] for programs that store past the call (what a minimal
/// case of such a program calls in `tests/fuzz_regressions.rs`).
#[track_caller]
pub fn same_with_sinks_at_every_suspension<T: PartialEq + Debug>(
    classic: impl Fn(&mut Sinks) -> StoringCall<'_, T>,
    runtime: impl Fn(&mut Sinks) -> StoringCall<'_, T>,
) -> Outcome<T> {
    match compare_with_sinks_at_every_suspension(classic, runtime) {
        Ok((outcome, _)) => outcome,
        Err(mismatch) => panic!("classic and runtime differ: {mismatch:?}"),
    }
}

/// One variant alone, run to the end and dropped at every suspension (for memcheck: the
/// classic lowering's `unsafe` under valgrind); the number of suspensions.
pub fn exercise<T, F: IntoFuture<Output = T>>(call: impl Fn() -> F) -> usize {
    let (_, events) = run(Stop::AtEnd, &call);
    let suspensions = call_suspensions(&events);
    for limit in 1..=suspensions {
        run(Stop::AfterSuspensions(limit), &call);
    }
    suspensions
}

/// [`exercise`] for a program that stores past the call (what it stored runs after each run).
pub fn exercise_with_sinks<T>(call: impl Fn(&mut Sinks) -> StoringCall<'_, T>) -> usize {
    let (_, events) = run_with_sinks(Stop::AtEnd, &call);
    let suspensions = call_suspensions(&events);
    for limit in 1..=suspensions {
        run_with_sinks(Stop::AfterSuspensions(limit), &call);
    }
    suspensions
}

/// Makes a computed value visible in the log.
pub fn note(name: &str, value: u32) {
    log(format!("note {name} {value}"));
}

/// A struct literal whose fields can await; a projection of it is a temporary.
#[derive(Debug)]
pub struct Pair<A, B> {
    pub a: A,
    pub b: B,
}

/// Where the variants first differed: the stop, and each variant's outcome and events.
#[derive(Debug)]
pub struct Mismatch<T> {
    pub stop: Stop,
    pub classic: (Outcome<T>, Vec<String>),
    pub runtime: (Outcome<T>, Vec<String>),
}

/// [`crate::same_at_every_suspension`] without the assertion: both variants run to the end,
/// then dropped at each suspension they reach; the first difference, or the common outcome
/// and the number of suspensions.
pub fn compare_at_every_suspension<T: PartialEq, F1, F2>(
    classic: impl Fn() -> F1,
    runtime: impl Fn() -> F2,
) -> Result<(Outcome<T>, usize), Mismatch<T>>
where
    F1: IntoFuture<Output = T>,
    F2: IntoFuture<Output = T>,
{
    let compare = |stop: Stop| {
        let classic = run(stop, &classic);
        let runtime = run(stop, &runtime);
        if classic == runtime { Ok(classic) } else { Err(Mismatch { stop, classic, runtime }) }
    };
    let (outcome, log) = compare(Stop::AtEnd)?;
    let suspensions = log.iter().filter(|event| event.starts_with("suspend ") || event.starts_with("block ")).count();
    for limit in 1..=suspensions {
        compare(Stop::AfterSuspensions(limit))?;
    }
    Ok((outcome, suspensions))
}

/// One JSON line for program `index`: `ok`, or `mismatch` with both sides.
pub fn report<T: Debug>(index: usize, result: Result<(Outcome<T>, usize), Mismatch<T>>) -> String {
    match result {
        Ok((outcome, suspensions)) => format!(
            "{{\"program\":{index},\"status\":\"ok\",\"outcome\":{},\"suspensions\":{suspensions}}}",
            json_string(&format!("{outcome:?}"))
        ),
        Err(mismatch) => format!(
            "{{\"program\":{index},\"status\":\"mismatch\",\"stop\":{},\"classic\":{},\"runtime\":{}}}",
            json_string(&format!("{:?}", mismatch.stop)),
            json_string(&format!("{:?}", mismatch.classic)),
            json_string(&format!("{:?}", mismatch.runtime)),
        ),
    }
}

fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32).expect("writing to a String"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

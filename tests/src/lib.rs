//! Test support: one source compiled under both lowerings, values that log their evaluation
//! and their drops, and drivers that run, cancel and compare the two variants.
//!
//! [`differential!`] writes a source text into a `classic` and a `runtime` module through the
//! attribute's module form ([`lowering::both!`]), so that both variants come from the same tokens.

use std::any::Any;
use std::cell::RefCell;
use std::fmt::Debug;
use std::future::{Future, IntoFuture};
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

pub use lowering;

pub mod fuzz;

/// `differential! { items }`: the items twice, in `mod classic` and `mod runtime`, each under
/// its lowering ([`lowering::both!`]). The items can refer to the enclosing module's names.
#[macro_export]
macro_rules! differential {
    ($($items:tt)*) => {
        $crate::lowering::both! { $($items)* }
    };
}

thread_local! {
    static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Record an event.
pub fn log(event: impl Into<String>) {
    LOG.with(|log| log.borrow_mut().push(event.into()));
}

/// The events recorded on this thread since the last call.
pub fn take_log() -> Vec<String> {
    LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
}

/// Log `name` and return `value`: shows when an operand is evaluated.
pub fn ev<T>(name: &str, value: T) -> T {
    log(format!("eval {name}"));
    value
}

/// A value that logs its drop.
#[derive(Debug, PartialEq, Eq)]
pub struct Loud(pub String);

impl Loud {
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        log(format!("new {name}"));
        Loud(name)
    }

    pub fn name(&self) -> &str {
        &self.0
    }
}

impl Drop for Loud {
    fn drop(&mut self) {
        log(format!("drop {}", self.0));
    }
}

/// An awaitable that completes at once with `value`, logging the await.
pub fn now<T>(name: &str, value: T) -> lowering::leaf::Ready<T> {
    log(format!("await {name}"));
    lowering::leaf::ready(value)
}

/// An awaitable that really suspends once (through the executor), then gives `value`.
pub async fn later<T>(name: &str, value: T) -> T {
    log(format!("suspend {name}"));
    lowering::leaf::yield_now().await;
    log(format!("resume {name}"));
    value
}

/// An awaitable that never completes (logs when it is first polled).
pub fn forever<T>(name: &str) -> impl Future<Output = T> {
    log(format!("block {name}"));
    std::future::pending()
}

/// How a run ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome<T> {
    Value(T),
    /// The panic's message.
    Panic(String),
    /// Still pending after the driver gave up; dropped.
    Dropped,
}

/// The message of a panic payload.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "<non-string panic payload>".to_owned()
    }
}

/// When a driver gives up on a future and drops it.
#[derive(Clone, Copy, Debug)]
pub enum Stop {
    /// Never: poll until the future completes (at most [`MAX_POLLS`] times).
    AtEnd,
    /// As soon as the events show this many suspensions (`suspend` or `block` events, logged
    /// by [`later`] and [`forever`]). A classic call may reach the first one before it
    /// returns (eager start); the plain future reaches it in its first poll: counting events
    /// rather than polls compares the same point of both.
    AfterSuspensions(usize),
}

/// The most polls a driver makes before dropping a future.
pub const MAX_POLLS: usize = 1000;

fn suspensions(log: &[String]) -> usize {
    log.iter().filter(|event| event.starts_with("suspend ") || event.starts_with("block ")).count()
}

/// Run `call` (which makes the future: a classic call already runs part of it) on this
/// thread, until it completes or `stop` says to drop it. Returns the outcome and the events,
/// from the call on.
pub fn run<F, T>(stop: Stop, call: impl FnOnce() -> F) -> (Outcome<T>, Vec<String>)
where
    F: IntoFuture<Output = T>,
{
    take_log();
    let outcome = quiet(|| {
        panic::catch_unwind(AssertUnwindSafe(|| {
            let future = pin!(call().into_future());
            let mut future = future;
            let mut cx = Context::from_waker(Waker::noop());
            for _ in 0..MAX_POLLS {
                if let Stop::AfterSuspensions(limit) = stop {
                    if LOG.with(|log| suspensions(&log.borrow())) >= limit {
                        return Outcome::Dropped;
                    }
                }
                if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
                    return Outcome::Value(value);
                }
            }
            Outcome::Dropped
        }))
    });
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(payload) => Outcome::Panic(panic_message(&*payload)),
    };
    (outcome, take_log())
}

/// Run both variants to the end and require the same outcome and the same events.
#[track_caller]
pub fn same<T: Debug + PartialEq, F1, F2>(
    classic: impl FnOnce() -> F1,
    runtime: impl FnOnce() -> F2,
) -> (Outcome<T>, Vec<String>)
where
    F1: IntoFuture<Output = T>,
    F2: IntoFuture<Output = T>,
{
    same_until(Stop::AtEnd, classic, runtime)
}

/// Run both variants, dropping them at `stop`, and require the same outcome and events.
#[track_caller]
pub fn same_until<T: Debug + PartialEq, F1, F2>(
    stop: Stop,
    classic: impl FnOnce() -> F1,
    runtime: impl FnOnce() -> F2,
) -> (Outcome<T>, Vec<String>)
where
    F1: IntoFuture<Output = T>,
    F2: IntoFuture<Output = T>,
{
    let (classic_outcome, classic_log) = run(stop, classic);
    let (runtime_outcome, runtime_log) = run(stop, runtime);
    assert_eq!(
        (&classic_outcome, &classic_log),
        (&runtime_outcome, &runtime_log),
        "classic (left) and runtime (right) differ"
    );
    (classic_outcome, classic_log)
}

/// Both variants dropped at every suspension they reach, one run per suspension, then run
/// to the end: the same events every time (the locals alive at each suspension drop, in the
/// same order).
#[track_caller]
pub fn same_at_every_suspension<T: Debug + PartialEq, F1, F2>(
    classic: impl Fn() -> F1,
    runtime: impl Fn() -> F2,
) -> Outcome<T>
where
    F1: IntoFuture<Output = T>,
    F2: IntoFuture<Output = T>,
{
    let (outcome, log) = same(&classic, &runtime);
    for limit in 1..=suspensions(&log) {
        same_until(Stop::AfterSuspensions(limit), &classic, &runtime);
    }
    outcome
}

/// Run `f` with the panic hook silenced (panics here are expected and compared).
pub fn quiet<R>(f: impl FnOnce() -> R) -> R {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = f();
    panic::set_hook(previous);
    result
}

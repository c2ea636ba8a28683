//! The behaviour checks (C1-C8): run for both variants before anything is measured.
//!
//! Every expected value comes from [`crate::expected`] (plain synchronous code) or from the
//! check's own arithmetic, never from the other variant. Each check returns what it saw, so
//! that a failure says what went wrong.

use std::fmt::Write as _;
use std::future::{Future, IntoFuture};
use std::panic::{self, AssertUnwindSafe};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures::FutureExt as _;
use futures::executor::{LocalPool, block_on};
use futures::task::LocalSpawnExt as _;
use lowering::leaf::{CancellationToken, Cancelled, Gate, channel};

use crate::{Variant, expected, for_each_variant};

/// One check's outcome for one variant.
#[derive(Debug, Clone)]
pub struct CheckResult {
    /// The experiment it belongs to (`C1` .. `C8`).
    pub id: &'static str,
    pub name: &'static str,
    pub variant: Variant,
    /// `Ok(what was seen)` or `Err(what went wrong)`.
    pub outcome: Result<String, String>,
}

impl CheckResult {
    pub fn passed(&self) -> bool {
        self.outcome.is_ok()
    }
}

/// A check: `Ok(what was seen)` or `Err(what went wrong)` for one variant.
pub type CheckFn = fn(Variant) -> Result<String, String>;

/// Every check, in order.
pub const CHECKS: &[(&str, &str, CheckFn)] = &[
    ("C1", "completed_chain10 results", c1_completed_chain10),
    ("C1", "value_chain10 results", c1_value_chain10),
    ("C1", "vt_chain10 results", c1_vt_chain10),
    ("C1", "hot_path12 results", c1_hot_path12),
    ("C1", "chain3 results", c1_chain3),
    ("C1", "task_chain3 17 -> 1019", c1_task_chain3),
    ("C1", "cache_hit_loop results", c1_cache_hit_loop),
    ("C1", "ten_yields results", c1_ten_yields),
    ("C1", "yield_chain10 results", c1_yield_chain10),
    ("C1", "sync_loop results", c1_sync_loop),
    ("C1", "err_chain10 error text", c1_err_chain10),
    ("C1", "diag_recursive depths 0, 3, 10", c1_recursive),
    ("C2", "gate_chain3 incomplete until opened, then 1019", c2_gate_chain3),
    ("C2", "yield_chain10 really suspends", c2_yield_chain10),
    ("C2", "suspend_once task and value-task shapes", c2_suspend_once),
    ("C2", "ping-pong pair through recv_chain12 and direct", c2_ping_pong),
    ("C3", "cancelled token ends the operation, carrying its identity", c3_token_after_gate),
    ("C3", "cancellation while waiting ends it early, same token", c3_token_while_waiting),
    ("C3", "dropping a suspended operation drops each local once", c3_drop_runs_destructors_once),
    ("C3", "dropping a suspended operation leaks nothing", c3_drop_leaks_nothing),
    ("C4", "panic after suspension reaches the caller intact", c4_panic_after_suspension),
    ("C4", "Err after suspension reaches the caller intact", c4_err_after_suspension),
    ("C4", "panic through ten levels keeps its message", c4_panic_chain10),
    ("C5", "ambient value survives a suspension", c5_after_suspension),
    ("C5", "callee sees its own ambient value", c5_in_callee),
    ("C5", "callee's ambient value does not leak to the caller", c5_no_leak),
    ("C6", "retained task awaited twice gives the same result", c6_awaited_twice),
    ("C6", "two awaiters of a suspended task get the same result", c6_two_awaiters),
    ("C7", "polls and wakes for one yield", c7_yield_accounting),
    ("C7", "polls and wakes for one gate", c7_gate_accounting),
    ("C8", "the same host code awaits both variants", c8_same_host_code),
    ("C8", "returned type", c8_return_type),
];

/// Run every check for `variants`, in order, one variant after the other.
pub fn run(variants: &[Variant]) -> Vec<CheckResult> {
    run_these(CHECKS, variants)
}

/// Run `checks` for `variants` as [`run`] runs every check: a check that returns `Err` or
/// panics has failed. (Public so that a test can run a check with a wrong expectation.)
pub fn run_these(checks: &[(&'static str, &'static str, CheckFn)], variants: &[Variant]) -> Vec<CheckResult> {
    let mut results = Vec::new();
    for &variant in variants {
        for &(id, name, check) in checks {
            let outcome = quiet(|| panic::catch_unwind(AssertUnwindSafe(|| check(variant))))
                .unwrap_or_else(|payload| Err(format!("the check panicked: {}", panic_message(&*payload))));
            results.push(CheckResult { id, name, variant, outcome });
        }
    }
    results
}

/// The table `inspect check` and the benchmark print: one line per check per variant,
/// ending with `checks: P passed, F failed`.
pub fn table(results: &[CheckResult]) -> String {
    let mut out = String::new();
    let width = CHECKS.iter().map(|(_, name, _)| name.len()).max().unwrap_or(0);
    for result in results {
        let (mark, detail) = match &result.outcome {
            Ok(seen) => ("pass", seen),
            Err(problem) => ("FAIL", problem),
        };
        let _ =
            writeln!(out, "{mark}  {:<3} {:<8} {:<width$}  {detail}", result.id, result.variant.name(), result.name);
    }
    let passed = results.iter().filter(|result| result.passed()).count();
    let _ = writeln!(out, "checks: {passed} passed, {} failed", results.len() - passed);
    out
}

// ---- Helpers ------------------------------------------------------------------------------

/// What every check compares with: `Ok(seen)` when `seen` is `expected`.
pub fn expect_eq<T: PartialEq + std::fmt::Debug>(seen: T, expected: T) -> Result<String, String> {
    if seen == expected { Ok(format!("{seen:?}")) } else { Err(format!("got {seen:?}, expected {expected:?}")) }
}

fn all(results: impl IntoIterator<Item = Result<String, String>>) -> Result<String, String> {
    let mut seen = Vec::new();
    for result in results {
        seen.push(result?);
    }
    Ok(seen.join(", "))
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "<non-string payload>".to_owned())
}

/// Run `f` with the panic hook silenced: some checks expect panics.
fn quiet<R>(f: impl FnOnce() -> R) -> R {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = f();
    panic::set_hook(previous);
    result
}

fn catch<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_message(&*payload))
}

/// A waker that counts its wakes.
#[derive(Default)]
struct CountingWaker {
    wakes: AtomicUsize,
}

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
    }
}

/// Poll `future` once with `waker`.
fn poll_once<F: Future + ?Sized>(future: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(waker))
}

pub use crate::tracked::Tracked;

const INPUTS: [u64; 3] = [0, 17, 123_456];

// ---- C1: results ----------------------------------------------------------------------------

fn c1_completed_chain10(variant: Variant) -> Result<String, String> {
    all(INPUTS
        .map(|x| expect_eq(for_each_variant!(variant, m => block_on(m::completed_chain10(x))), expected::chain(x, 10))))
}

fn c1_value_chain10(variant: Variant) -> Result<String, String> {
    all(INPUTS
        .map(|x| expect_eq(for_each_variant!(variant, m => block_on(m::value_chain10(x))), expected::chain(x, 10))))
}

fn c1_vt_chain10(variant: Variant) -> Result<String, String> {
    all(INPUTS.map(|x| expect_eq(for_each_variant!(variant, m => block_on(m::vt_chain10(x))), expected::chain(x, 10))))
}

fn c1_hot_path12(variant: Variant) -> Result<String, String> {
    all(INPUTS.map(|x| expect_eq(for_each_variant!(variant, m => block_on(m::hot_path12(x))), expected::chain(x, 12))))
}

fn c1_chain3(variant: Variant) -> Result<String, String> {
    all(INPUTS.map(|x| expect_eq(for_each_variant!(variant, m => block_on(m::chain3(x))), expected::chain3(x))))
}

fn c1_task_chain3(variant: Variant) -> Result<String, String> {
    expect_eq(for_each_variant!(variant, m => block_on(m::task_chain3(17))), 1019)
}

fn c1_cache_hit_loop(variant: Variant) -> Result<String, String> {
    all(INPUTS.map(|x| {
        expect_eq(for_each_variant!(variant, m => block_on(m::cache_hit_loop(x))), expected::cache_hit_loop(x))
    }))
}

fn c1_ten_yields(variant: Variant) -> Result<String, String> {
    all(INPUTS.map(|x| expect_eq(for_each_variant!(variant, m => block_on(m::ten_yields(x))), expected::ten_yields(x))))
}

fn c1_yield_chain10(variant: Variant) -> Result<String, String> {
    all(INPUTS
        .map(|x| expect_eq(for_each_variant!(variant, m => block_on(m::yield_chain10(x))), expected::chain(x, 10))))
}

fn c1_sync_loop(variant: Variant) -> Result<String, String> {
    all([0, 1, 1001]
        .map(|n| expect_eq(for_each_variant!(variant, m => block_on(m::sync_loop(n))), expected::sync_loop(n))))
}

fn c1_err_chain10(variant: Variant) -> Result<String, String> {
    all(INPUTS.map(|x| {
        expect_eq(for_each_variant!(variant, m => block_on(m::err_chain10(x))), Err(format!("leaf refused {x}")))
    }))
}

fn c1_recursive(variant: Variant) -> Result<String, String> {
    all([0, 3, 10].map(|depth| {
        expect_eq(for_each_variant!(variant, m => block_on(m::diag_recursive(depth))), expected::recursive(depth))
    }))
}

// ---- C2: real suspension -----------------------------------------------------------------

/// Start `make()`, require it to be pending after a first poll, run `release`, and finish it.
fn pending_then<F: IntoFuture>(make: impl FnOnce() -> F, release: impl FnOnce()) -> Result<F::Output, String> {
    let mut future = pin!(make().into_future());
    if poll_once(future.as_mut(), Waker::noop()).is_ready() {
        return Err("completed before it was released".to_owned());
    }
    release();
    Ok(block_on(future))
}

fn c2_gate_chain3(variant: Variant) -> Result<String, String> {
    let gate = Gate::new();
    let token = CancellationToken::new();
    let result = pending_then(
        || for_each_variant!(variant, m => m::gate_chain3(gate.clone(), token.clone()).boxed()),
        || gate.open(17),
    )?;
    expect_eq(result, Ok(1019))
}

/// A real suspension that needs no release (a yield): the operation is incomplete when the
/// caller gets it. A classic call starts eagerly, so that is right after the call; a plain
/// future starts at its first poll, so that is after one poll.
fn c2_yield_chain10(variant: Variant) -> Result<String, String> {
    let result = match variant {
        Variant::Classic => {
            let task = crate::classic::yield_chain10(5);
            if task.is_completed() {
                return Err("the call completed synchronously".to_owned());
            }
            block_on(task)
        }
        Variant::Runtime => pending_then(|| crate::runtime::yield_chain10(5), || {})?,
    };
    expect_eq(result, expected::chain(5, 10))
}

fn c2_suspend_once(variant: Variant) -> Result<String, String> {
    let (task, value) = match variant {
        Variant::Classic => {
            let task = crate::classic::suspend_once(1);
            let value = crate::classic::suspend_once_value(2);
            if task.is_completed() || value.is_completed() {
                return Err("a call completed synchronously".to_owned());
            }
            (block_on(task), block_on(value))
        }
        Variant::Runtime => (
            pending_then(|| crate::runtime::suspend_once(1), || {})?,
            pending_then(|| crate::runtime::suspend_once_value(2), || {})?,
        ),
    };
    all([expect_eq(task, 1001), expect_eq(value, 1002)])
}

fn c2_ping_pong(variant: Variant) -> Result<String, String> {
    let mut results = Vec::new();
    for chained in [true, false] {
        // Each receive through the chain adds 1 per level above the leaf.
        let levels = if chained { 11 } else { 0 };
        let (to_b, from_a) = channel();
        let (to_a, from_b) = channel();
        let hops = 3;
        let (a, b) = for_each_variant!(variant, m => if chained {
            (m::ping_pong_side(&from_b, to_b.clone(), hops).boxed_local(), m::ping_pong_side(&from_a, to_a.clone(), hops).boxed_local())
        } else {
            (
                m::ping_pong_side_direct(&from_b, to_b.clone(), hops).boxed_local(),
                m::ping_pong_side_direct(&from_a, to_a.clone(), hops).boxed_local(),
            )
        });
        // The first message goes to side B; the sides then echo each other.
        to_b.send(100);
        drop((to_a, to_b));
        let (last_a, last_b) = block_on(futures::future::join(a, b));
        results.push(expect_eq(
            (last_a, last_b),
            (expected::ping_pong_last(100, hops, levels, false), expected::ping_pong_last(100, hops, levels, true)),
        ));
    }
    all(results)
}

// ---- C3: cancellation ----------------------------------------------------------------------

fn c3_token_after_gate(variant: Variant) -> Result<String, String> {
    let gate = Gate::new();
    let token = CancellationToken::new();
    let result = pending_then(
        || for_each_variant!(variant, m => m::cancellable(gate.clone(), token.clone()).boxed()),
        || {
            token.cancel();
            gate.open(17);
        },
    )?;
    expect_eq(result, Err(Cancelled { token: token.id() }))
}

fn c3_token_while_waiting(variant: Variant) -> Result<String, String> {
    let gate: Gate<u64> = Gate::new();
    let token = CancellationToken::new();
    let result = pending_then(
        || for_each_variant!(variant, m => m::watch_token(gate.clone(), token.clone()).boxed()),
        || token.cancel(),
    )?;
    expect_eq(result, Err(Cancelled { token: token.id() }))
}

fn c3_drop_runs_destructors_once(variant: Variant) -> Result<String, String> {
    let gate: Gate<u64> = Gate::new();
    let before = Tracked::drops();
    {
        let mut future =
            pin!(for_each_variant!(variant, m => m::cancellable(gate.clone(), CancellationToken::new()).boxed()));
        if poll_once(future.as_mut(), Waker::noop()).is_ready() {
            return Err("completed before the gate opened".to_owned());
        }
        if Tracked::drops() != before {
            return Err("a local was dropped while the operation was suspended".to_owned());
        }
    }
    expect_eq(Tracked::drops() - before, 1)
}

fn c3_drop_leaks_nothing(variant: Variant) -> Result<String, String> {
    if !lowering::alloc::is_installed() {
        return Err("the counting allocator is not installed in this binary, so leaks cannot be counted".to_owned());
    }
    let gate: Gate<u64> = Gate::new();
    let ((), counts) = lowering::alloc::count_on_thread(|| {
        let mut future =
            pin!(for_each_variant!(variant, m => m::cancellable(gate.clone(), CancellationToken::new()).boxed()));
        let _ = poll_once(future.as_mut(), Waker::noop());
    });
    if counts.allocations == 0 {
        return Err("nothing was allocated, so nothing was measured".to_owned());
    }
    expect_eq(counts.live(), 0).map(|_| format!("{} allocations, all freed", counts.allocations))
}

// ---- C4: failures after suspension ---------------------------------------------------------

fn c4_panic_after_suspension(variant: Variant) -> Result<String, String> {
    let gate = Gate::new();
    let result = catch(|| {
        pending_then(
            || for_each_variant!(variant, m => m::fail_after_gate(gate.clone(), true).boxed()),
            || gate.open(5),
        )
    });
    match result {
        Err(message) => expect_eq(message, "failed after the gate with 5".to_owned()),
        Ok(_) => Err("no panic reached the caller".to_owned()),
    }
}

fn c4_err_after_suspension(variant: Variant) -> Result<String, String> {
    let gate = Gate::new();
    let result = pending_then(
        || for_each_variant!(variant, m => m::fail_after_gate(gate.clone(), false).boxed()),
        || gate.open(6),
    )?;
    expect_eq(result, Err("refused 6 after the gate".to_owned()))
}

fn c4_panic_chain10(variant: Variant) -> Result<String, String> {
    match catch(|| for_each_variant!(variant, m => block_on(m::panic_chain10(9)))) {
        Err(message) => expect_eq(message, "leaf failed for 9".to_owned()),
        Ok(value) => Err(format!("returned {value} instead of panicking")),
    }
}

// ---- C5: ambient context -------------------------------------------------------------------

/// What the ambient value read at each of three points of `ambient_flow` was.
type AmbientReads = (Option<u64>, Option<u64>, Option<u64>);

fn ambient_flow(variant: Variant) -> Result<AmbientReads, String> {
    let gate = Gate::new();
    let gate_opener = gate.clone();
    let scoped = || {
        lowering::leaf::ambient::scope(
            move || for_each_variant!(variant, m => m::ambient_flow(gate.clone(), 40).boxed()),
        )
    };
    pending_then(scoped, move || {
        // The caller changes its own value while the operation waits.
        lowering::leaf::ambient::set(1);
        gate_opener.open(0);
    })
}

fn c5_after_suspension(variant: Variant) -> Result<String, String> {
    expect_eq(ambient_flow(variant)?.0, Some(40))
}

fn c5_in_callee(variant: Variant) -> Result<String, String> {
    expect_eq(ambient_flow(variant)?.1, Some(41))
}

fn c5_no_leak(variant: Variant) -> Result<String, String> {
    expect_eq(ambient_flow(variant)?.2, Some(40))
}

// ---- C6: retained tasks --------------------------------------------------------------------

fn c6_awaited_twice(variant: Variant) -> Result<String, String> {
    // Classic tasks are shareable handles; a plain future is made shareable the usual way.
    let (first, second) = match variant {
        Variant::Classic => {
            let task = crate::classic::retained(17);
            let again = task.clone();
            (block_on(task), block_on(again))
        }
        Variant::Runtime => {
            let shared = crate::runtime::retained(17).shared();
            (block_on(shared.clone()), block_on(shared))
        }
    };
    all([expect_eq(first, 1019), expect_eq(second, 1019)])
}

fn c6_two_awaiters(variant: Variant) -> Result<String, String> {
    let gate = Gate::new();
    let token = CancellationToken::new();
    let mut pool = LocalPool::new();
    let spawner = pool.spawner();
    let (a, b) = match variant {
        Variant::Classic => {
            let task = crate::classic::gate_chain3(gate.clone(), token);
            (task.clone().boxed_local(), task.boxed_local())
        }
        Variant::Runtime => {
            let shared = crate::runtime::gate_chain3(gate.clone(), token).shared();
            (shared.clone().boxed_local(), shared.boxed_local())
        }
    };
    let a = spawner.spawn_local_with_handle(a).map_err(|error| error.to_string())?;
    let b = spawner.spawn_local_with_handle(b).map_err(|error| error.to_string())?;
    pool.run_until_stalled();
    gate.open(17);
    let (a, b) = pool.run_until(futures::future::join(a, b));
    all([expect_eq(a, Ok(1019)), expect_eq(b, Ok(1019))])
}

// ---- C7: wake accounting ---------------------------------------------------------------------

/// Polls of the outermost future and wakes of its waker until it completes, after `release`
/// runs once the first poll returned `Pending`.
fn count_polls<F: Future>(future: F, release: impl FnOnce()) -> (usize, usize, F::Output) {
    let counter = Arc::new(CountingWaker::default());
    let waker = Waker::from(Arc::clone(&counter));
    let mut future = pin!(future);
    let mut polls = 0;
    let mut release = Some(release);
    loop {
        polls += 1;
        if let Poll::Ready(value) = poll_once(future.as_mut(), &waker) {
            return (polls, counter.wakes.load(Ordering::SeqCst), value);
        }
        if let Some(release) = release.take() {
            release();
        }
        if polls > 100 {
            panic!("no progress after 100 polls");
        }
    }
}

fn c7_yield_accounting(variant: Variant) -> Result<String, String> {
    let (polls, wakes, value) = for_each_variant!(variant, m => count_polls(m::yield_chain10(1), || {}));
    // Runtime: the first poll runs to the yield, which wakes the caller's waker; the second
    // finishes. Classic: the call ran to the yield already, and its continuation is queued on
    // the task itself; the first poll returns `Pending` and wakes the caller (the yield reaches
    // the executor, as a yielded continuation reaches .NET's scheduler), the second runs it.
    // The same figures, for different reasons.
    expect_eq((polls, wakes, value), (2, 1, expected::chain(1, 10))).map(|_| format!("{polls} polls, {wakes} wakes"))
}

fn c7_gate_accounting(variant: Variant) -> Result<String, String> {
    let gate = Gate::new();
    let token = CancellationToken::new();
    let (polls, wakes, value) =
        for_each_variant!(variant, m => count_polls(m::gate_chain3(gate.clone(), token.clone()), || gate.open(17)));
    // Both: one pending poll, one wake when the gate opens, one poll that completes.
    expect_eq((polls, wakes, value), (2, 1, Ok(1019))).map(|_| format!("{polls} polls, {wakes} wakes"))
}

// ---- C8: one host for both -------------------------------------------------------------------

/// Host code that knows nothing about lowerings: awaits whatever it is given.
async fn host<F: IntoFuture<Output = u64>>(operation: F) -> u64 {
    operation.await
}

fn c8_same_host_code(variant: Variant) -> Result<String, String> {
    expect_eq(for_each_variant!(variant, m => block_on(host(m::task_chain3(17)))), 1019)
}

fn c8_return_type(variant: Variant) -> Result<String, String> {
    fn type_of<T>(_: &T) -> &'static str {
        std::any::type_name::<T>()
    }
    let name = for_each_variant!(variant, m => {
        let operation = m::task_chain3(17);
        let name = type_of(&operation);
        let _ = block_on(operation);
        name
    });
    let expected_prefix = match variant {
        Variant::Classic => "lowering::task::Task<u64",
        Variant::Runtime => "workloads::shared::runtime::task_chain3::{{closure}}",
    };
    if name.starts_with(expected_prefix) {
        Ok(name.to_owned())
    } else {
        Err(format!("{name} is not {expected_prefix}.."))
    }
}

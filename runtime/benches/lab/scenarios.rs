//! The benchmark rows (B1-B15 in `LAB.md`, and B16, the borrowing read loop): what one
//! operation is, for each variant.
//!
//! Every row runs the shared workloads through direct calls (`for_each_variant!` expands the
//! loop once per variant module); inputs vary with the operation index so that nothing folds
//! to a constant, and every run returns a checksum that the harness verifies, with the
//! function it called (`calling!`), whose lowering record says what the row measured.

use std::future::IntoFuture as _;
use std::hint::black_box;
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;

use futures::FutureExt as _;
use futures::future::LocalBoxFuture;
use lowering::leaf::{CancellationToken, Gate, Receiver, Sender, channel};
use workloads::{Variant, for_each_variant};

use crate::counted;
use crate::drive::Driver;
use crate::proof::{Ran, calling};

/// What a row runs: a variant of the workloads, or control code.
///
/// The decomposition rows (B2, B3, B4, B6) run four controls beside the two variants, in
/// this order: `direct` (B1's synchronous call), `runtime`, `runtime-opaque` (the plain
/// chain with a non-inlined call per level, `workloads::opaque`), `model-floor` (the classic
/// model written by hand, `workloads::floor`), `model-floor-panic` (the same with a panic
/// caught per level), `classic`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    Control,
    Direct,
    RuntimeOpaque,
    ModelFloor,
    ModelFloorPanic,
    Variant(Variant),
}

impl Subject {
    /// The subjects of a decomposition row, in table order.
    pub const DECOMPOSITION: [Subject; 6] = [
        Subject::Direct,
        Subject::Variant(Variant::Runtime),
        Subject::RuntimeOpaque,
        Subject::ModelFloor,
        Subject::ModelFloorPanic,
        Subject::Variant(Variant::Classic),
    ];

    pub fn name(self) -> &'static str {
        match self {
            Subject::Control => "control",
            Subject::Direct => "direct",
            Subject::RuntimeOpaque => "runtime-opaque",
            Subject::ModelFloor => "model-floor",
            Subject::ModelFloorPanic => "model-floor-panic",
            Subject::Variant(variant) => variant.name(),
        }
    }

    /// Hand-written code rather than one of the two lowerings.
    pub fn is_control(self) -> bool {
        !matches!(self, Subject::Variant(_))
    }

    pub fn parse(text: &str) -> Option<Subject> {
        match text {
            "control" => Some(Subject::Control),
            "direct" => Some(Subject::Direct),
            "runtime-opaque" => Some(Subject::RuntimeOpaque),
            "model-floor" => Some(Subject::ModelFloor),
            "model-floor-panic" => Some(Subject::ModelFloorPanic),
            "classic" => Some(Subject::Variant(Variant::Classic)),
            "runtime" => Some(Subject::Variant(Variant::Runtime)),
            _ => None,
        }
    }
}

pub struct Scenario {
    pub id: &'static str,
    pub name: &'static str,
    /// What one operation is (ns/op, bytes/op and allocs/op are per this unit).
    pub unit: &'static str,
    /// Control rows run without async and have no variants.
    pub control: bool,
    /// Decomposition rows run the controls of [`Subject::DECOMPOSITION`] beside the variants.
    pub decomposed: bool,
    /// Operations per sample before calibration (a rough size, not a figure).
    pub base_ops: u64,
    /// Run `ops` operations; returns a checksum and the annotated function the run called.
    pub run: fn(Subject, u64) -> Ran,
    /// The checksum `run` must return for `ops` operations, from plain arithmetic.
    pub expected: fn(u64) -> u64,
}

pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        id: "B1",
        name: "DirectSyncControl",
        unit: "call",
        decomposed: false,
        control: true,
        base_ops: 1 << 20,
        run: b1_control,
        expected: chain10_sum,
    },
    Scenario {
        id: "B2",
        name: "CompletedChain10",
        unit: "call",
        decomposed: true,
        control: false,
        base_ops: 1 << 14,
        run: b2_completed_chain10,
        expected: chain10_sum,
    },
    Scenario {
        id: "B3",
        name: "ValueChain10",
        unit: "call",
        decomposed: true,
        control: false,
        base_ops: 1 << 14,
        run: b3_value_chain10,
        expected: chain10_sum,
    },
    Scenario {
        id: "B4",
        name: "ValueTaskChain10",
        unit: "call",
        decomposed: true,
        control: false,
        base_ops: 1 << 14,
        run: b4_value_task_chain10,
        expected: chain10_sum,
    },
    Scenario {
        id: "B5",
        name: "CacheHitLoop",
        unit: "call (100 awaits)",
        decomposed: false,
        control: false,
        base_ops: 1 << 8,
        run: b5_cache_hit_loop,
        expected: cache_hit_sum,
    },
    Scenario {
        id: "B6",
        name: "YieldAtBottomChain10",
        unit: "call",
        decomposed: true,
        control: false,
        base_ops: 1 << 12,
        run: b6_yield_chain10,
        expected: chain10_sum,
    },
    Scenario {
        id: "B7",
        name: "TenYieldsInOneMethod",
        unit: "call",
        decomposed: false,
        control: false,
        base_ops: 1 << 12,
        run: b7_ten_yields,
        expected: ten_yields_sum,
    },
    Scenario {
        id: "B8",
        name: "PanicThroughChain10",
        unit: "call",
        decomposed: false,
        control: false,
        base_ops: 1 << 8,
        run: b8_panic_chain10,
        expected: count,
    },
    Scenario {
        id: "B8",
        name: "ErrThroughChain10",
        unit: "call",
        decomposed: false,
        control: false,
        base_ops: 1 << 12,
        run: b8_err_chain10,
        expected: count,
    },
    Scenario {
        id: "B9",
        name: "HotPath12",
        unit: "call",
        decomposed: false,
        control: false,
        base_ops: 1 << 14,
        run: b9_hot_path12,
        expected: hot_path_sum,
    },
    Scenario {
        id: "B10",
        name: "SuspendPingPong (56 pairs, chain of 12)",
        unit: "message",
        decomposed: false,
        control: false,
        base_ops: 1 << 12,
        run: b10_ping_pong,
        expected: ping_pong_sum,
    },
    Scenario {
        id: "B10",
        name: "SuspendPingPong (56 pairs, no chain)",
        unit: "message",
        decomposed: false,
        control: false,
        base_ops: 1 << 12,
        run: b10_ping_pong_direct,
        expected: ping_pong_direct_sum,
    },
    Scenario {
        id: "B11",
        name: "Chain3",
        unit: "call",
        decomposed: false,
        control: false,
        base_ops: 1 << 15,
        run: b11_chain3,
        expected: chain3_sum,
    },
    Scenario {
        id: "B11",
        name: "Leaf",
        unit: "call",
        decomposed: false,
        control: false,
        base_ops: 1 << 16,
        run: b11_leaf,
        expected: leaf_sum,
    },
    Scenario {
        id: "B12",
        name: "GateChain3",
        unit: "call",
        decomposed: false,
        control: false,
        base_ops: 1 << 12,
        run: b12_gate_chain3,
        expected: gate_sum,
    },
    Scenario {
        id: "B13",
        name: "RetainedTask (ring of 64)",
        unit: "call",
        decomposed: false,
        control: false,
        base_ops: 1 << 14,
        run: b13_retained,
        expected: retained_sum,
    },
    Scenario {
        id: "B14",
        name: "SuspendOnceLoop (task)",
        unit: "call",
        decomposed: false,
        control: false,
        base_ops: 1 << 13,
        run: b14_suspend_once,
        expected: leaf_sum,
    },
    Scenario {
        id: "B14",
        name: "SuspendOnceLoop (value task)",
        unit: "call",
        decomposed: false,
        control: false,
        base_ops: 1 << 13,
        run: b14_suspend_once_value,
        expected: leaf_sum,
    },
    Scenario {
        id: "B15",
        name: "SyncLoop",
        unit: "await",
        decomposed: false,
        control: false,
        base_ops: 1 << 20,
        run: b15_sync_loop,
        expected: sync_loop_sum,
    },
    Scenario {
        id: "B16",
        name: "ReadLoopLocalBuffer",
        unit: "call (5 reads of 16 bytes)",
        decomposed: false,
        control: false,
        base_ops: 1 << 12,
        run: b16_read_loop,
        expected: read_loop_sum,
    },
];

fn variant(subject: Subject) -> Variant {
    match subject {
        Subject::Variant(variant) => variant,
        _ => unreachable!("controls run only in their own rows"),
    }
}

/// Run `f(i)` for each operation and sum the results (wrapping). In a counting pass each
/// operation is counted on its own (`counted::op`).
fn sum(ops: u64, mut f: impl FnMut(u64) -> u64) -> u64 {
    let mut total = 0u64;
    if counted::active() {
        for i in 0..ops {
            total = total.wrapping_add(counted::op(|| f(black_box(i))));
        }
    } else {
        for i in 0..ops {
            total = total.wrapping_add(f(black_box(i)));
        }
    }
    total
}

// ---- Expected checksums (plain arithmetic) --------------------------------------------------

fn chain10_sum(ops: u64) -> u64 {
    (0..ops).map(|i| workloads::expected::chain(i, 10)).fold(0, u64::wrapping_add)
}

fn hot_path_sum(ops: u64) -> u64 {
    (0..ops).map(|i| workloads::expected::chain(i, 12)).fold(0, u64::wrapping_add)
}

fn chain3_sum(ops: u64) -> u64 {
    (0..ops).map(workloads::expected::chain3).fold(0, u64::wrapping_add)
}

fn leaf_sum(ops: u64) -> u64 {
    (0..ops).map(|i| i + 1000).fold(0, u64::wrapping_add)
}

fn cache_hit_sum(ops: u64) -> u64 {
    (0..ops).map(workloads::expected::cache_hit_loop).fold(0, u64::wrapping_add)
}

fn ten_yields_sum(ops: u64) -> u64 {
    (0..ops).map(workloads::expected::ten_yields).fold(0, u64::wrapping_add)
}

fn count(ops: u64) -> u64 {
    ops
}

fn gate_sum(ops: u64) -> u64 {
    (0..ops).map(|i| i + 1000 + 2).fold(0, u64::wrapping_add)
}

fn retained_sum(ops: u64) -> u64 {
    (0..ops).map(|i| i + 1002).fold(0, u64::wrapping_add)
}

/// B16 reads 64 bytes, 1 to 64, per call: their sum plus 1000.
const READ_LOOP_BYTES: u64 = 64;

fn read_loop_sum(ops: u64) -> u64 {
    ops.wrapping_mul((1..=READ_LOOP_BYTES).sum::<u64>() + 1000)
}

fn sync_loop_sum(ops: u64) -> u64 {
    workloads::expected::sync_loop(ops)
}

// ---- Rows ----------------------------------------------------------------------------------

/// The arithmetic of ValueChain10 (leaf + 1000, nine levels + 1), with no async.
#[inline(never)]
fn direct(x: u64) -> u64 {
    black_box(x) + 1000 + 9
}

fn b1_control(_: Subject, ops: u64) -> Ran {
    Ran::control(sum(ops, direct))
}

/// A decomposition row: `$opaque`, `$floor` and the variant modules' `$function`.
macro_rules! decomposed {
    ($subject:expr, $ops:expr, $opaque:path, $floor:ident, $function:ident) => {{
        let driver = Driver::new();
        match $subject {
            Subject::Direct => Ran::control(sum($ops, direct)),
            Subject::RuntimeOpaque => Ran::control(sum($ops, |i| driver.run($opaque(i)))),
            Subject::ModelFloor => Ran::control(sum($ops, |i| driver.run(workloads::floor::$floor::<false>(i)))),
            Subject::ModelFloorPanic => Ran::control(sum($ops, |i| driver.run(workloads::floor::$floor::<true>(i)))),
            subject => for_each_variant!(variant(subject), m => calling!(m::$function => |f| sum($ops, |i| driver.run(f(i))))),
        }
    }};
}

/// A row that awaits `$function(i)` for each operation `i`, in each variant's module.
macro_rules! each_call {
    ($subject:expr, $ops:expr, $function:ident) => {{
        let driver = Driver::new();
        for_each_variant!(variant($subject), m => calling!(m::$function => |f| sum($ops, |i| driver.run(f(i)))))
    }};
}

fn b2_completed_chain10(subject: Subject, ops: u64) -> Ran {
    decomposed!(subject, ops, workloads::opaque::completed_chain10, completed_chain10, completed_chain10)
}

fn b3_value_chain10(subject: Subject, ops: u64) -> Ran {
    decomposed!(subject, ops, workloads::opaque::value_chain10, value_chain10, value_chain10)
}

fn b4_value_task_chain10(subject: Subject, ops: u64) -> Ran {
    // The runtime lowering ignores `value_task`: its opaque control is B3's.
    decomposed!(subject, ops, workloads::opaque::value_chain10, vt_chain10, vt_chain10)
}

fn b5_cache_hit_loop(subject: Subject, ops: u64) -> Ran {
    each_call!(subject, ops, cache_hit_loop)
}

fn b6_yield_chain10(subject: Subject, ops: u64) -> Ran {
    decomposed!(subject, ops, workloads::opaque::yield_chain10, yield_chain10, yield_chain10)
}

fn b7_ten_yields(subject: Subject, ops: u64) -> Ran {
    each_call!(subject, ops, ten_yields)
}

fn b8_panic_chain10(subject: Subject, ops: u64) -> Ran {
    let driver = Driver::new();
    for_each_variant!(variant(subject), m => calling!(m::panic_chain10 => |f| sum(ops, |i| {
        let caught = panic::catch_unwind(AssertUnwindSafe(|| driver.run(f(i))));
        u64::from(caught.is_err())
    })))
}

fn b8_err_chain10(subject: Subject, ops: u64) -> Ran {
    let driver = Driver::new();
    for_each_variant!(variant(subject), m => calling!(m::err_chain10 => |f| sum(ops, |i| u64::from(driver.run(f(i)).is_err()))))
}

fn b9_hot_path12(subject: Subject, ops: u64) -> Ran {
    each_call!(subject, ops, hot_path12)
}

/// Pairs in the ping-pong rows (seed 001).
const PAIRS: u64 = 56;

/// 56 pairs on one thread, each of whose two sides is `side`; `ops` messages in all. Returns
/// the sum of every side's last value.
fn ping_pong(ops: u64, side: impl Fn(&Receiver<u64>, Sender<u64>, u64) -> LocalBoxFuture<'_, u64>) -> u64 {
    let hops = (ops / (2 * PAIRS)).max(1);
    let mut channels = Vec::new();
    for pair in 0..PAIRS {
        let (to_b, from_a) = channel();
        let (to_a, from_b) = channel();
        to_b.send(pair);
        channels.push((from_a, to_a, from_b, to_b));
    }
    let sides: Vec<_> = channels
        .iter()
        .flat_map(|(from_a, to_a, from_b, to_b)| [side(from_b, to_b.clone(), hops), side(from_a, to_a.clone(), hops)])
        .collect();
    let driver = Driver::new();
    let lasts = counted::op(|| driver.run(futures::future::join_all(sides)));
    drop(channels);
    lasts.into_iter().fold(0, u64::wrapping_add)
}

fn ping_pong_expected(ops: u64, levels: u64) -> u64 {
    let hops = (ops / (2 * PAIRS)).max(1);
    (0..PAIRS)
        .map(|pair| {
            workloads::expected::ping_pong_last(pair, hops, levels, false)
                + workloads::expected::ping_pong_last(pair, hops, levels, true)
        })
        .fold(0, u64::wrapping_add)
}

fn b10_ping_pong(subject: Subject, ops: u64) -> Ran {
    for_each_variant!(variant(subject), m => calling!(m::ping_pong_side => |f| ping_pong(ops, |rx, tx, hops| f(rx, tx, hops).boxed_local())))
}

fn b10_ping_pong_direct(subject: Subject, ops: u64) -> Ran {
    for_each_variant!(variant(subject), m => calling!(m::ping_pong_side_direct => |f| ping_pong(ops, |rx, tx, hops| f(rx, tx, hops).boxed_local())))
}

fn ping_pong_sum(ops: u64) -> u64 {
    ping_pong_expected(ops, 11)
}

fn ping_pong_direct_sum(ops: u64) -> u64 {
    ping_pong_expected(ops, 0)
}

/// Messages one ping-pong run really sends for `ops` requested (whole hops per side).
pub fn ping_pong_messages(ops: u64) -> u64 {
    (ops / (2 * PAIRS)).max(1) * 2 * PAIRS
}

fn b11_chain3(subject: Subject, ops: u64) -> Ran {
    each_call!(subject, ops, chain3)
}

fn b11_leaf(subject: Subject, ops: u64) -> Ran {
    each_call!(subject, ops, leaf_value)
}

fn b12_gate_chain3(subject: Subject, ops: u64) -> Ran {
    let driver = Driver::new();
    for_each_variant!(variant(subject), m => calling!(m::gate_chain3 => |f| sum(ops, |i| {
        // Creating and opening the gate is part of the operation (seed 003).
        let gate = Gate::new();
        let mut operation = pin!(f(gate.clone(), CancellationToken::new()).into_future());
        assert!(driver.poll_once(operation.as_mut()).is_pending(), "the gate chain completed before its gate opened");
        gate.open(i);
        driver.run(operation).unwrap_or(0)
    })))
}

fn b13_retained(subject: Subject, ops: u64) -> Ran {
    let driver = Driver::new();
    match variant(subject) {
        Variant::Classic => calling!(workloads::classic::retained => |retained| {
            // The caller keeps each call's task (a shareable handle) in a ring of 64.
            let mut ring: Vec<Option<lowering::Task<u64, _>>> = (0..64).map(|_| None).collect();
            sum(ops, |i| {
                let task = retained(i);
                let value = driver.run(task.clone());
                ring[(i % 64) as usize] = Some(task);
                value
            })
        }),
        Variant::Runtime => calling!(workloads::runtime::retained => |retained| {
            // A plain future is consumed by its await: what the caller keeps is the result.
            let mut ring = [0u64; 64];
            sum(ops, |i| {
                let value = driver.run(retained(i));
                ring[(i % 64) as usize] = value;
                black_box(&ring);
                value
            })
        }),
    }
}

fn b14_suspend_once(subject: Subject, ops: u64) -> Ran {
    each_call!(subject, ops, suspend_once)
}

fn b14_suspend_once_value(subject: Subject, ops: u64) -> Ran {
    each_call!(subject, ops, suspend_once_value)
}

fn b15_sync_loop(subject: Subject, ops: u64) -> Ran {
    let driver = Driver::new();
    for_each_variant!(variant(subject), m => calling!(m::sync_loop => |f| counted::op(|| driver.run(f(black_box(ops))))))
}

/// A read loop into a local buffer that every awaited read borrows: the classic state machine
/// is pinned (its buffer lives in place), so each call allocates its task although every read
/// completes at once; the plain `async fn` allocates nothing.
fn b16_read_loop(subject: Subject, ops: u64) -> Ran {
    let driver = Driver::new();
    for_each_variant!(variant(subject), m => calling!(m::read_loop => |f| sum(ops, |_| driver.run(f(black_box(READ_LOOP_BYTES))))))
}

//! One row, one variant, in its own process: the measurement protocol of `LAB.md`.
//!
//! 1. The first invocation (one operation, cold) is timed on its own; the function it called
//!    proves the row's lowering (`proof`), or the row is not timed at all.
//! 2. Warm-up, which also sizes a sample so that it lasts about `sample_target`.
//! 3. `samples` timed samples; each one's checksum is verified after its clock stops.
//! 4. One counted pass for bytes and allocations per operation, counted around each
//!    operation only (`counted`), so that the harness's own allocations stay out and a
//!    model's 0 is exactly 0. The counting allocator is off while the clock runs.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use lowering::alloc::AllocCounts;

use crate::counted;
use crate::proof::{self, Ran};
use crate::scenarios::{Scenario, Subject};

pub struct Protocol {
    pub warmup: Duration,
    pub sample_target: Duration,
    pub samples: usize,
}

impl Protocol {
    pub const FULL: Protocol =
        Protocol { warmup: Duration::from_millis(60), sample_target: Duration::from_millis(12), samples: 9 };
    pub const QUICK: Protocol =
        Protocol { warmup: Duration::from_millis(5), sample_target: Duration::from_millis(2), samples: 3 };
}

/// One timed run of `ops` operations, its checksum verified after the clock stops; with what
/// it called, which every run of a row must agree on (`calls`, once the first run said it).
fn timed(scenario: &Scenario, subject: Subject, ops: u64, calls: Option<&Ran>) -> Result<(Duration, Ran), String> {
    let start = Instant::now();
    let ran = (scenario.run)(subject, ops);
    let elapsed = start.elapsed();
    let expected = (scenario.expected)(ops);
    let row = || format!("{} {} {}", scenario.id, scenario.name, subject.name());
    if ran.checksum != expected {
        return Err(format!("{}: checksum {} for {ops} ops, expected {expected}", row(), ran.checksum));
    }
    if let Some(first) = calls.filter(|first| first.called != ran.called) {
        return Err(format!("{}: a run called {:?} where the first called {:?}", row(), ran.called, first.called));
    }
    Ok((elapsed, ran))
}

/// Measure `scenario` for `subject` in this process. The result is one JSON object (the
/// harness reads it from this process's standard output).
pub fn measure(scenario: &Scenario, subject: Subject, protocol: &Protocol) -> Result<Value, String> {
    // The clock runs with allocation counting off; allocations are counted in a pass of their own.
    lowering::alloc::set_counting(false);
    let (first, first_run) = timed(scenario, subject, 1, None)?;
    // Before any sample: a row whose called function is not of its label is not timed.
    let measured = proof::prove(scenario, subject, &first_run)?;
    let calls = Some(&first_run);

    // Warm up, doubling the operation count until one run lasts `sample_target / 4`, then
    // keep running until `warmup` has passed.
    let warmup_start = Instant::now();
    let mut ops = scenario.base_ops.max(1) / 64 + 1;
    loop {
        let (elapsed, _) = timed(scenario, subject, ops, calls)?;
        if elapsed >= protocol.sample_target / 4 {
            let scale = protocol.sample_target.as_secs_f64() / elapsed.as_secs_f64().max(1e-9);
            ops = ((ops as f64 * scale) as u64).max(1);
            break;
        }
        ops *= 2;
    }
    while warmup_start.elapsed() < protocol.warmup {
        timed(scenario, subject, ops, calls)?;
    }

    let mut samples = Vec::with_capacity(protocol.samples);
    for _ in 0..protocol.samples {
        let (elapsed, _) = timed(scenario, subject, ops, calls)?;
        samples.push(elapsed.as_nanos() as f64 / units(scenario, ops) as f64);
    }

    let counts = count_allocations(scenario, subject, ops)?;
    let units = units(scenario, ops) as f64;

    Ok(json!({
        "id": scenario.id,
        "name": scenario.name,
        "variant": subject.name(),
        "lowering_measured": measured,
        "function_measured": first_run.called,
        "first_invocation_ns": first.as_nanos() as u64,
        "ops_per_sample": ops,
        "units_per_sample": units,
        "samples_ns_per_op": samples,
        "bytes_per_op": counts.bytes as f64 / units,
        "allocs_per_op": counts.allocations as f64 / units,
    }))
}

/// What `ops` operations of `scenario` allocate, the harness's own allocations left out.
pub fn count_allocations(scenario: &Scenario, subject: Subject, ops: u64) -> Result<AllocCounts, String> {
    let was_on = lowering::alloc::set_counting(true);
    counted::begin();
    let result = timed(scenario, subject, ops, None);
    let counts = counted::end();
    lowering::alloc::set_counting(was_on);
    result.map(|_| counts)
}

/// Operations in the unit the row reports (a ping-pong run sends whole hops).
pub fn units(scenario: &Scenario, ops: u64) -> u64 {
    if scenario.unit == "message" { crate::scenarios::ping_pong_messages(ops) } else { ops }
}

/// The region callgrind counts (`--toggle-collect`): `ops` operations, nothing else.
#[inline(never)]
pub fn lowering_lab_counted_region(scenario: &Scenario, subject: Subject, ops: u64) -> u64 {
    (scenario.run)(subject, ops).checksum
}

//! One row, one variant, in its own process: the measurement protocol of `LAB.md`.
//!
//! 1. The first invocation (one operation, cold) is timed on its own.
//! 2. Warm-up, which also sizes a sample so that it lasts about `sample_target`.
//! 3. `samples` timed samples; each one's checksum is verified after its clock stops.
//! 4. One counted pass for bytes and allocations per operation, counted around each
//!    operation only (`counted`), so that the harness's own allocations stay out and a
//!    model's 0 is exactly 0. The counting allocator is off while the clock runs.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use lowering::alloc::AllocCounts;

use crate::counted;
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

fn timed(scenario: &Scenario, subject: Subject, ops: u64) -> Result<Duration, String> {
    let start = Instant::now();
    let checksum = (scenario.run)(subject, ops);
    let elapsed = start.elapsed();
    let expected = (scenario.expected)(ops);
    if checksum != expected {
        return Err(format!(
            "{} {} {}: checksum {checksum} for {ops} ops, expected {expected}",
            scenario.id,
            scenario.name,
            subject.name()
        ));
    }
    Ok(elapsed)
}

/// Measure `scenario` for `subject` in this process. The result is one JSON object (the
/// harness reads it from this process's standard output).
pub fn measure(scenario: &Scenario, subject: Subject, protocol: &Protocol) -> Result<Value, String> {
    // The clock runs with allocation counting off; allocations are counted in a pass of their own.
    lowering::alloc::set_counting(false);
    let first = timed(scenario, subject, 1)?;

    // Warm up, doubling the operation count until one run lasts `sample_target / 4`, then
    // keep running until `warmup` has passed.
    let warmup_start = Instant::now();
    let mut ops = scenario.base_ops.max(1) / 64 + 1;
    loop {
        let elapsed = timed(scenario, subject, ops)?;
        if elapsed >= protocol.sample_target / 4 {
            let scale = protocol.sample_target.as_secs_f64() / elapsed.as_secs_f64().max(1e-9);
            ops = ((ops as f64 * scale) as u64).max(1);
            break;
        }
        ops *= 2;
    }
    while warmup_start.elapsed() < protocol.warmup {
        timed(scenario, subject, ops)?;
    }

    let mut samples = Vec::with_capacity(protocol.samples);
    for _ in 0..protocol.samples {
        let elapsed = timed(scenario, subject, ops)?;
        samples.push(elapsed.as_nanos() as f64 / units(scenario, ops) as f64);
    }

    let counts = count_allocations(scenario, subject, ops)?;
    let units = units(scenario, ops) as f64;

    Ok(json!({
        "id": scenario.id,
        "name": scenario.name,
        "variant": subject.name(),
        "lowering_measured": lowering_measured(scenario, subject),
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
    let result = timed(scenario, subject, ops);
    let counts = counted::end();
    lowering::alloc::set_counting(was_on);
    result.map(|_| counts)
}

/// Operations in the unit the row reports (a ping-pong run sends whole hops).
pub fn units(scenario: &Scenario, ops: u64) -> u64 {
    if scenario.unit == "message" { crate::scenarios::ping_pong_messages(ops) } else { ops }
}

/// What the artifact says this row measured: the lowering record of the row's top function
/// (not what the harness was told).
pub fn lowering_measured(scenario: &Scenario, subject: Subject) -> Value {
    match (subject, scenario.top) {
        (Subject::Control | Subject::Direct, _) | (_, None) => Value::String("none (no async)".to_owned()),
        (Subject::RuntimeOpaque | Subject::ModelFloor | Subject::ModelFloorPanic, _) => {
            Value::String("none (hand-written control)".to_owned())
        }
        (Subject::Variant(variant), Some(top)) => match variant.measured_lowering(top) {
            Some(lowering::Lowering::Classic) => Value::String("classic".to_owned()),
            Some(lowering::Lowering::Runtime) => Value::String("runtime".to_owned()),
            None => Value::Null,
        },
    }
}

/// The region callgrind counts (`--toggle-collect`): `ops` operations, nothing else.
#[inline(never)]
pub fn lowering_lab_counted_region(scenario: &Scenario, subject: Subject, ops: u64) -> u64 {
    (scenario.run)(subject, ops)
}

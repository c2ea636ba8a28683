//! The rows measured per configuration rather than per lowering (issue 15): the proxy end to
//! end (A1: 0 B; A1-8k: 8 KiB bodies both ways) and the mixed configuration M1 in the lab rows
//! B9 and B10. Each (row, configuration) is measured in a child process of its own, as the
//! other rows are; this file is what a child does.
//!
//! A1 protocol, in the child: start the stack (origin, proxy, 56 generator connections), run
//! one operation of 500 requests whose every response the generator checks (status, the
//! request it answers, the proxy's `via`, body length and checksum) and whose checksum must be
//! plain arithmetic's: a failure ends the child with the reason and the configuration is not
//! timed. Then warm-up operations, timed operations (one sample each: ns per request), and one
//! operation with the counting allocator on (process-wide counts: the generator, the proxy and
//! the origin all allocate, as in seed 001's per-request figures), then a clean shutdown.

use std::time::{Duration, Instant};

use futures::FutureExt as _;
use lowering::leaf::channel;
use lowering_proxy::application::Settings;
use lowering_proxy::config::Called;
use lowering_proxy::generator::expected_checksum;
use lowering_proxy::{Case, Config, Stack, for_each_config};
use serde_json::{Value, json};

use crate::drive::Driver;

/// fluxzy's throughput benchmark: concurrency 56, 500 requests per operation.
pub const CONNECTIONS: usize = 56;
pub const REQUESTS: usize = 500;

/// Pairs in the ping-pong row (seed 001).
const PAIRS: u64 = 56;

#[derive(Clone, Copy)]
pub enum Kind {
    Proxy(Case),
    HotPath,
    PingPong,
}

pub struct AppRow {
    pub id: &'static str,
    pub name: &'static str,
    pub unit: &'static str,
    pub kind: Kind,
}

pub const APP_ROWS: &[AppRow] = &[
    AppRow { id: "A1", name: "Proxy HTTP/1.1, 0 B body", unit: "request", kind: Kind::Proxy(Case::Empty) },
    AppRow { id: "A1-8k", name: "Proxy HTTP/1.1, 8 KiB body", unit: "request", kind: Kind::Proxy(Case::Body8k) },
    AppRow { id: "B9", name: "HotPath12 (mixed)", unit: "call", kind: Kind::HotPath },
    AppRow { id: "B10", name: "SuspendPingPong (mixed, 56 pairs, chain of 12)", unit: "message", kind: Kind::PingPong },
];

impl AppRow {
    /// The configurations the row runs, in table order.
    pub fn configs(&self) -> Vec<Config> {
        match self.kind {
            Kind::Proxy(_) => Config::ALL.to_vec(),
            Kind::HotPath | Kind::PingPong => {
                Config::ALL.into_iter().filter(|config| *config != Config::Control).collect()
            }
        }
    }
}

/// How long a child measures.
pub struct AppProtocol {
    /// A1: operations before the timed ones, and timed operations.
    pub warmup_ops: usize,
    pub timed_ops: usize,
    /// Lab rows: calibrated as the other rows are (a sample lasts about `sample_target`).
    pub sample_target: Duration,
    pub samples: usize,
}

impl AppProtocol {
    pub const FULL: AppProtocol =
        AppProtocol { warmup_ops: 3, timed_ops: 8, sample_target: Duration::from_millis(12), samples: 9 };
    pub const QUICK: AppProtocol =
        AppProtocol { warmup_ops: 1, timed_ops: 2, sample_target: Duration::from_millis(2), samples: 3 };
}

/// A child: measure `row` in `config`, return the result as one JSON object.
pub fn measure(row: &AppRow, config: Config, protocol: &AppProtocol) -> Result<Value, String> {
    lowering::alloc::set_counting(false);
    let mut result = match row.kind {
        Kind::Proxy(case) => measure_proxy(case, config, protocol)?,
        Kind::HotPath => measure_lab(row, config, protocol, 64, hot_path, hot_path_sum)?,
        // At least eight hops per side: the first hop of a pair costs what its setup costs
        // (first suspensions), which the per-message figures must not be made of.
        Kind::PingPong => measure_lab(row, config, protocol, 2 * PAIRS * 8, ping_pong, ping_pong_sum)?,
    };
    result["id"] = json!(row.id);
    result["name"] = json!(row.name);
    result["unit"] = json!(row.unit);
    result["variant"] = json!(config.name());
    Ok(result)
}

fn measure_proxy(case: Case, config: Config, protocol: &AppProtocol) -> Result<Value, String> {
    let fail = |error: lowering_proxy::ProxyError| format!("{} {case:?}: {error}", config.name());
    let mut stack = Stack::start(config, CONNECTIONS, Settings::default()).map_err(fail)?;
    // What the proxy task runs, from its own functions' lowering records, before anything
    // of it is timed.
    let measured = stack.proven().map_err(|error| format!("{} {case:?}: {error}", config.name()))?;
    let expected = expected_checksum(case, REQUESTS);

    // The check: every response of one whole operation.
    let started = Instant::now();
    let checked = stack.operation(case, REQUESTS).map_err(fail)?;
    let first = started.elapsed();
    if checked.checksum != expected {
        return Err(format!("{} {case:?}: checksum {:x}, expected {expected:x}", config.name(), checked.checksum));
    }

    for _ in 0..protocol.warmup_ops {
        stack.operation(case, REQUESTS).map_err(fail)?;
    }
    let mut samples = Vec::with_capacity(protocol.timed_ops);
    let mut cpu_samples = Vec::with_capacity(protocol.timed_ops);
    let mut latencies = Vec::with_capacity(protocol.timed_ops * REQUESTS);
    for _ in 0..protocol.timed_ops {
        let cpu = thread_cpu_ns();
        let started = Instant::now();
        let operation = stack.operation(case, REQUESTS).map_err(fail)?;
        let elapsed = started.elapsed();
        if let (Some(before), Some(after)) = (cpu, thread_cpu_ns()) {
            cpu_samples.push(after.saturating_sub(before) as f64 / REQUESTS as f64);
        }
        if operation.checksum != expected {
            return Err(format!("{} {case:?}: checksum changed while timing", config.name()));
        }
        samples.push(elapsed.as_nanos() as f64 / REQUESTS as f64);
        latencies.extend(stack.latencies());
    }

    lowering::alloc::set_counting(true);
    let before = lowering::alloc::process_counts();
    let counted = stack.operation(case, REQUESTS);
    let spent = lowering::alloc::process_counts().since(before);
    lowering::alloc::set_counting(false);
    counted.map_err(fail)?;
    let accepted = stack.shutdown().map_err(fail)?;

    latencies.sort_unstable();
    let percentile =
        |p: f64| latencies.get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1))).copied();
    let mean = latencies.iter().sum::<u64>() as f64 / latencies.len().max(1) as f64;
    Ok(json!({
        "first_invocation_ns": first.as_nanos() as u64,
        "ops_per_sample": REQUESTS,
        "units_per_sample": REQUESTS,
        "samples_ns_per_op": samples,
        "samples_cpu_ns_per_op": cpu_samples,
        "bytes_per_op": spent.bytes as f64 / REQUESTS as f64,
        "allocs_per_op": spent.allocations as f64 / REQUESTS as f64,
        "latency_ns": { "mean": mean, "p50": percentile(0.50), "p99": percentile(0.99), "requests": latencies.len() },
        "proxy_connections_accepted": accepted,
        "lowering_measured": measured,
    }))
}

/// CPU time this thread has run, in ns (Linux: `/proc/thread-self/schedstat`), user and
/// kernel time alike. Generator, proxy and origin all run on this thread, loopback TCP's kernel
/// work included, so an operation's CPU time is the exchange's cost without the time the
/// thread waited for a core: on a machine shared with other work, far steadier than the wall
/// clock. `None` where the file does not exist (the figure is then left out, and said so).
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// A lab row: `run(config, ops)` runs `ops` operations and returns their checksum and how many
/// units (calls or messages) they were, counting allocations when asked.
/// What one run of a lab row did: its checksum, the units it counted, the allocations (when
/// counted), and the functions it called (`Called`), from the very `for_each_config!` arm
/// that called them.
pub struct LabRun {
    checksum: u64,
    units: u64,
    counts: lowering::alloc::AllocCounts,
    called: Called,
}

fn measure_lab(
    row: &AppRow,
    config: Config,
    protocol: &AppProtocol,
    min_ops: u64,
    run: fn(Config, u64, bool) -> LabRun,
    expected: fn(u64) -> u64,
) -> Result<Value, String> {
    let refused = |error: String| format!("{} {} {}: {error}", row.id, row.name, config.name());
    let timed = |ops: u64| -> Result<(Duration, u64, Called), String> {
        let started = Instant::now();
        let LabRun { checksum, units, called, .. } = run(config, ops, false);
        let elapsed = started.elapsed();
        if checksum != expected(ops) {
            return Err(format!(
                "{} {} {}: checksum {checksum}, expected {}",
                row.id,
                row.name,
                config.name(),
                expected(ops)
            ));
        }
        Ok((elapsed, units, called))
    };
    // The first run proves what the row calls before anything of it is timed.
    let (first, _, called) = timed(1)?;
    let measured = config.prove(Some(&called)).map_err(refused)?;
    let mut ops = min_ops;
    loop {
        let (elapsed, _, _) = timed(ops)?;
        if elapsed >= protocol.sample_target / 4 {
            let scale = protocol.sample_target.as_secs_f64() / elapsed.as_secs_f64().max(1e-9);
            ops = ((ops as f64 * scale) as u64).max(min_ops);
            break;
        }
        ops *= 2;
    }
    timed(ops)?;
    let mut samples = Vec::with_capacity(protocol.samples);
    let mut units = 1;
    for _ in 0..protocol.samples {
        let (elapsed, sample_units, _) = timed(ops)?;
        units = sample_units;
        samples.push(elapsed.as_nanos() as f64 / sample_units as f64);
    }
    lowering::alloc::set_counting(true);
    let LabRun { checksum, counts, .. } = run(config, ops, true);
    lowering::alloc::set_counting(false);
    if checksum != expected(ops) {
        return Err(format!("{} {}: checksum changed in the counting pass", row.id, config.name()));
    }
    Ok(json!({
        "first_invocation_ns": first.as_nanos() as u64,
        "ops_per_sample": ops,
        "units_per_sample": units,
        "samples_ns_per_op": samples,
        "bytes_per_op": counts.bytes as f64 / units as f64,
        "allocs_per_op": counts.allocations as f64 / units as f64,
        "lowering_measured": measured,
    }))
}

/// B9 mixed: `ops` calls of the 12-deep hot path; allocations counted around the calls only.
fn hot_path(config: Config, ops: u64, count: bool) -> LabRun {
    let driver = Driver::new();
    let before = lowering::alloc::thread_counts();
    let mut total = 0u64;
    let called = for_each_config!(config, m => {
        for i in 0..ops {
            total = total.wrapping_add(driver.run(m::hot_path12(std::hint::black_box(i))));
        }
        m::hot_path_called()
    });
    let counts = if count { lowering::alloc::thread_counts().since(before) } else { Default::default() };
    LabRun { checksum: total, units: ops, counts, called }
}

fn hot_path_sum(ops: u64) -> u64 {
    (0..ops).map(|i| workloads::expected::chain(i, 12)).fold(0, u64::wrapping_add)
}

/// B10 mixed: 56 pairs on one thread, `ops` messages in all (whole hops per side); the pairs'
/// setup is outside the counted region, as in B10.
fn ping_pong(config: Config, ops: u64, count: bool) -> LabRun {
    let hops = (ops / (2 * PAIRS)).max(1);
    let mut channels = Vec::new();
    for pair in 0..PAIRS {
        let (to_b, from_a) = channel();
        let (to_a, from_b) = channel();
        to_b.send(pair);
        channels.push((from_a, to_a, from_b, to_b));
    }
    let mut called = None;
    let sides: Vec<_> = channels
        .iter()
        .flat_map(|(from_a, to_a, from_b, to_b)| {
            for_each_config!(config, m => {
                called = Some(m::ping_pong_called());
                [
                    m::ping_pong_side(from_b, to_b.clone(), hops).boxed_local(),
                    m::ping_pong_side(from_a, to_a.clone(), hops).boxed_local(),
                ]
            })
        })
        .collect();
    let driver = Driver::new();
    let before = lowering::alloc::thread_counts();
    let lasts = driver.run(futures::future::join_all(sides));
    let counts = if count { lowering::alloc::thread_counts().since(before) } else { Default::default() };
    drop(channels);
    let called = called.expect("at least one pair");
    LabRun { checksum: lasts.into_iter().fold(0, u64::wrapping_add), units: hops * 2 * PAIRS, counts, called }
}

fn ping_pong_sum(ops: u64) -> u64 {
    let hops = (ops / (2 * PAIRS)).max(1);
    (0..PAIRS)
        .map(|pair| {
            workloads::expected::ping_pong_last(pair, hops, 11, false)
                + workloads::expected::ping_pong_last(pair, hops, 11, true)
        })
        .fold(0, u64::wrapping_add)
}

/// A child started with `--count-instructions N`: N operations (A1: of 500 requests) inside
/// the region callgrind counts, after one outside it (first use: connections, buffers).
pub fn count_instructions(row: &AppRow, config: Config, operations: u64) -> Result<(), String> {
    lowering::alloc::set_counting(false);
    match row.kind {
        Kind::Proxy(case) => {
            let fail = |error: lowering_proxy::ProxyError| format!("{} {case:?}: {error}", config.name());
            let mut stack = Stack::start(config, CONNECTIONS, Settings::default()).map_err(fail)?;
            stack.proven().map_err(|error| format!("{} {case:?}: {error}", config.name()))?;
            stack.operation(case, REQUESTS).map_err(fail)?;
            lowering_lab_counted_region_proxy(&mut stack, case, operations).map_err(fail)?;
            stack.shutdown().map_err(fail)?;
        }
        Kind::HotPath | Kind::PingPong => {
            let run = if matches!(row.kind, Kind::HotPath) { hot_path } else { ping_pong };
            let first = run(config, operations, false);
            config.prove(Some(&first.called)).map_err(|error| format!("{} {}: {error}", row.id, config.name()))?;
            lowering_lab_counted_region_lab(run, config, operations);
        }
    }
    Ok(())
}

/// Units (requests, calls, messages) that `operations` operations of `row` are.
pub fn units(row: &AppRow, operations: u64) -> u64 {
    match row.kind {
        Kind::Proxy(_) => operations * REQUESTS as u64,
        Kind::HotPath => operations,
        Kind::PingPong => (operations / (2 * PAIRS)).max(1) * 2 * PAIRS,
    }
}

/// Operations of a small callgrind run (the large one runs twice as many).
pub fn instruction_operations(row: &AppRow) -> u64 {
    match row.kind {
        Kind::Proxy(_) => 1,
        Kind::HotPath => 1024,
        Kind::PingPong => 2 * PAIRS * 8,
    }
}

#[inline(never)]
fn lowering_lab_counted_region_proxy(
    stack: &mut Stack,
    case: Case,
    operations: u64,
) -> Result<(), lowering_proxy::ProxyError> {
    for _ in 0..operations {
        stack.operation(case, REQUESTS)?;
    }
    Ok(())
}

#[inline(never)]
fn lowering_lab_counted_region_lab(run: fn(Config, u64, bool) -> LabRun, config: Config, operations: u64) -> u64 {
    run(config, operations, false).checksum
}

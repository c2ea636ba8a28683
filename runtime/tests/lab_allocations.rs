//! The benchmark's allocation figures are the measured code's only: a model that allocates
//! nothing reports exactly 0 (the harness's executor, waker and sample loop stay out), and
//! the classic rows report their model's exact counts. Runs the harness's own counting pass
//! (`runtime/benches/lab/`) on a few operations.

#[allow(dead_code)]
#[path = "../benches/lab/counted.rs"]
mod counted;
#[allow(dead_code)]
#[path = "../benches/lab/drive.rs"]
mod drive;
#[allow(dead_code)]
#[path = "../benches/lab/measure.rs"]
mod measure;
#[allow(dead_code)]
#[path = "../benches/lab/proof.rs"]
mod proof;
#[allow(dead_code)]
#[path = "../benches/lab/scenarios.rs"]
mod scenarios;

use scenarios::{SCENARIOS, Subject};
use workloads::Variant;

#[global_allocator]
static ALLOCATOR: lowering::alloc::CountingAllocator = lowering::alloc::CountingAllocator::system();

const OPS: u64 = 64;

/// (allocations, bytes) per operation of row `id` (the first row of that id) for `subject`.
fn per_op(id: &str, subject: Subject) -> (u64, u64) {
    let scenario = SCENARIOS.iter().find(|scenario| scenario.id == id).expect("a row of that id");
    let counts = measure::count_allocations(scenario, subject, OPS).expect("the row runs and checks out");
    assert!(lowering::alloc::is_installed(), "the counting allocator is installed");
    assert_eq!(
        counts.allocations % OPS,
        0,
        "{id} {}: {} allocations for {OPS} ops",
        subject.name(),
        counts.allocations
    );
    (counts.allocations / OPS, counts.bytes / OPS)
}

#[test]
fn runtime_chains_allocate_exactly_nothing() {
    for id in ["B2", "B3", "B4"] {
        for subject in [Subject::Variant(Variant::Runtime), Subject::RuntimeOpaque, Subject::Direct] {
            assert_eq!(per_op(id, subject), (0, 0), "{id} {}", subject.name());
        }
    }
}

#[test]
fn classic_and_floor_rows_count_their_model() {
    // One task per level on a synchronous chain; none for the value-task shape.
    for subject in [Subject::Variant(Variant::Classic), Subject::ModelFloor, Subject::ModelFloorPanic] {
        assert_eq!(per_op("B3", subject).0, 10, "B3 {}", subject.name());
        assert_eq!(per_op("B4", subject), (0, 0), "B4 {}", subject.name());
        assert_eq!(per_op("B6", subject).0, 10, "B6 {}", subject.name());
    }
}

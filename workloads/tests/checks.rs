//! The behaviour checks, both variants: every check passes.

use workloads::Variant;
use workloads::checks;

#[global_allocator]
static ALLOCATOR: lowering::alloc::CountingAllocator = lowering::alloc::CountingAllocator::system();

#[test]
fn every_check_passes_for_both_variants() {
    let results = checks::run(&Variant::BOTH);
    let table = checks::table(&results);
    println!("{table}");
    for variant in Variant::BOTH {
        let count = results.iter().filter(|result| result.variant == variant).count();
        assert!(count >= 30, "{count} checks for {variant:?}, at least 30 wanted");
    }
    let failed: Vec<_> = results.iter().filter(|result| !result.passed()).collect();
    assert!(failed.is_empty(), "failed checks:\n{table}");
    assert!(table.ends_with(&format!("checks: {} passed, 0 failed\n", results.len())));
}

#[test]
fn a_wrong_expectation_fails() {
    // The checks can fail: the runtime variant's result is not the classic variant's model
    // for wake accounting, so running the classic expectation against it must fail.
    let results = checks::run(&[Variant::Runtime]);
    let yield_accounting = results.iter().find(|result| result.name == "polls and wakes for one yield").unwrap();
    assert_eq!(yield_accounting.outcome.as_deref(), Ok("2 polls, 1 wakes"));
}

#[test]
fn every_workload_records_its_lowering() {
    for variant in Variant::BOTH {
        for function in ["value_chain10", "vt_chain10", "gate_chain3", "ping_pong_side", "diag_recursive"] {
            let expected = match variant {
                Variant::Classic => lowering::Lowering::Classic,
                Variant::Runtime => lowering::Lowering::Runtime,
            };
            assert_eq!(variant.measured_lowering(function), Some(expected), "{function} in {variant:?}");
        }
    }
    let vt = lowering::records_of(Variant::Classic.module(), "vt_chain10").next().unwrap();
    assert!(vt.value_task);
    assert_eq!(vt.generated_type, Some("VtChain10StateMachine"));
}

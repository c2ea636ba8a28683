//! The benchmark proves the lowering of what it timed: every row's timed code reports the
//! function it called, whose lowering record must be the row's label, and a row pointed at
//! the other module's function is refused before it is timed. Runs the harness's own
//! modules (`runtime/benches/lab/`).

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

use drive::Driver;
use measure::Protocol;
use proof::{Ran, calling};
use scenarios::{SCENARIOS, Scenario, Subject};
use workloads::Variant;

/// Every subject a row runs, as the harness picks them.
fn subjects(scenario: &Scenario) -> Vec<Subject> {
    if scenario.control {
        vec![Subject::Control]
    } else if scenario.decomposed {
        Subject::DECOMPOSITION.to_vec()
    } else {
        Variant::BOTH.into_iter().map(Subject::Variant).collect()
    }
}

#[test]
fn every_row_calls_a_function_of_its_label() {
    // B8's panics are the row's operation, not a failure.
    std::panic::set_hook(Box::new(|_| {}));
    for scenario in SCENARIOS {
        for subject in subjects(scenario) {
            let ran = (scenario.run)(subject, 1);
            let proven = proof::prove(scenario, subject, &ran);
            match subject {
                Subject::Variant(variant) => {
                    assert_eq!(proven.as_deref(), Ok(variant.name()), "{} {}", scenario.id, scenario.name);
                    let module = format!("workloads::shared::{}::", variant.name());
                    assert!(ran.called.is_some_and(|called| called.starts_with(&module)), "{:?}", ran.called);
                }
                _ => assert!(proven.is_ok_and(|measured| measured.starts_with("none")), "{} {subject:?}", scenario.id),
            }
        }
    }
}

/// B11's Leaf row with its variants crossed: the classic label calls the runtime module's
/// function and the runtime label the classic one.
fn crossed_leaf(subject: Subject, ops: u64) -> Ran {
    let driver = Driver::new();
    let total = |leaf: &dyn Fn(u64) -> u64| (0..ops).map(leaf).fold(0, u64::wrapping_add);
    match subject {
        Subject::Variant(Variant::Classic) => {
            calling!(workloads::runtime::leaf_value => |leaf| total(&|i| driver.run(leaf(i))))
        }
        _ => calling!(workloads::classic::leaf_value => |leaf| total(&|i| driver.run(leaf(i)))),
    }
}

const CROSSED: Scenario = Scenario {
    id: "B11",
    name: "Leaf (crossed)",
    unit: "call",
    control: false,
    decomposed: false,
    base_ops: 1 << 4,
    run: crossed_leaf,
    expected: |ops| (0..ops).map(|i| i + 1000).fold(0, u64::wrapping_add),
};

#[test]
fn a_row_pointed_at_the_other_modules_function_is_not_timed() {
    for (variant, called, record) in [
        (Variant::Classic, "workloads::shared::runtime::leaf_value", "runtime"),
        (Variant::Runtime, "workloads::shared::classic::leaf_value", "classic"),
    ] {
        let refused = measure::measure(&CROSSED, Subject::Variant(variant), &Protocol::QUICK);
        let error = refused.expect_err("a crossed row is refused");
        assert!(error.contains(&format!("calls `{called}`")), "{error}");
        assert!(error.contains(&format!("whose lowering record says {record}")), "{error}");
        assert!(error.contains("not timing it"), "{error}");
    }
}

#[test]
fn a_row_measures_the_record_of_the_function_it_called() {
    let row = SCENARIOS.iter().find(|scenario| scenario.name == "Leaf").expect("B11 Leaf");
    for variant in Variant::BOTH {
        let result = measure::measure(row, Subject::Variant(variant), &Protocol::QUICK).expect("the row is timed");
        assert_eq!(result["lowering_measured"], variant.name());
        assert_eq!(result["function_measured"], format!("workloads::shared::{}::leaf_value", variant.name()));
    }
}

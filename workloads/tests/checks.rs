//! The behaviour checks, both variants: every check passes.

use futures::executor::block_on;
use workloads::checks;
use workloads::{Variant, for_each_variant};

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

/// C1's chain3 check as written, its expectation given.
fn chain3_of_17(variant: Variant, expected: u64) -> Result<String, String> {
    checks::expect_eq(for_each_variant!(variant, m => block_on(m::chain3(17))), expected)
}

#[test]
fn a_wrong_expectation_fails() {
    // The same check, run through the checks' own runner, with the right expectation and
    // with two wrong ones: off by one, and a check that panics.
    let right: checks::CheckFn = |variant| chain3_of_17(variant, workloads::expected::chain3(17));
    let off_by_one: checks::CheckFn = |variant| chain3_of_17(variant, workloads::expected::chain3(17) + 1);
    let panics: checks::CheckFn = |variant| panic!("no expectation for {}", variant.name());
    let results = checks::run_these(
        &[("C1", "right", right), ("C1", "off by one", off_by_one), ("C1", "panics", panics)],
        &Variant::BOTH,
    );
    let table = checks::table(&results);
    let seen = workloads::expected::chain3(17);
    for result in &results {
        match result.name {
            "right" => assert_eq!(result.outcome, Ok(format!("{seen}")), "{table}"),
            "off by one" => {
                assert_eq!(result.outcome, Err(format!("got {seen}, expected {}", seen + 1)), "{table}")
            }
            _ => assert!(result.outcome.as_ref().is_err_and(|why| why.contains("no expectation for")), "{table}"),
        }
    }
    assert_eq!(table.lines().filter(|line| line.starts_with("FAIL")).count(), 4, "{table}");
    assert!(table.ends_with("checks: 2 passed, 4 failed\n"), "{table}");
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

#[test]
fn the_docs_excerpt_is_what_the_checks_print_now() {
    let readme = include_str!("../../docs/checks.md");
    let opening = "variant. Excerpt:\n\n```text\n";
    let start = readme.find(opening).expect("docs/checks.md quotes the checks' table") + opening.len();
    let excerpt = &readme[start..][..readme[start..].find("```").expect("the excerpt ends")];
    let table = checks::table(&checks::run(&Variant::BOTH));
    // Column widths follow the longest name; the words are what must agree, but for a token's
    // number, which a process-wide counter hands out (other tests here make tokens too).
    let words = |line: &str| {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        match line.find("token: ") {
            Some(at) => {
                let number = at + "token: ".len();
                let rest = line[number..].trim_start_matches(|c: char| c.is_ascii_digit());
                format!("{}N{rest}", &line[..number])
            }
            None => line,
        }
    };
    let printed: Vec<String> = table.lines().map(words).collect();
    for line in excerpt.lines() {
        assert!(printed.contains(&words(line)), "docs/checks.md's line is not printed now: {line}\n{table}");
    }
}

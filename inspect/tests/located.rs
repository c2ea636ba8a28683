//! Every function's record carries its own line: the records of the shared workload source
//! (one `lowering::both!` invocation holding every function) name the line of each
//! function's `fn`, not the line of the invocation.

use std::path::Path;

/// The 1-based line of `async fn NAME(` in `workloads/src/shared.rs`, read from the source.
fn line_in_shared_source(name: &str) -> u32 {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/src/shared.rs");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
    let needle = format!("async fn {name}(");
    let mut found = text.lines().enumerate().filter(|(_, line)| line.contains(&needle));
    let (index, _) = found.next().unwrap_or_else(|| panic!("no `{needle}` in shared.rs"));
    assert!(found.next().is_none(), "`{needle}` is written once in shared.rs");
    index as u32 + 1
}

fn record_line(module: &str, function: &str) -> (u32, &'static str) {
    let mut records = lowering::records_of(module, function);
    let record = records.next().unwrap_or_else(|| panic!("no record of {module}::{function}"));
    assert!(records.next().is_none(), "one record of {module}::{function}");
    (record.line, record.file)
}

#[test]
fn records_name_each_function_at_its_own_line() {
    // Links the shared functions (and so their records) into this test.
    assert!(!workloads::instantiate::entry_points().is_empty());
    for variant in workloads::Variant::BOTH {
        let module = variant.module();
        let (chain3, chain3_file) = record_line(module, "chain3");
        let (leaf, leaf_file) = record_line(module, "leaf_value");
        assert_eq!(chain3, line_in_shared_source("chain3"), "{module}::chain3");
        assert_eq!(leaf, line_in_shared_source("leaf_value"), "{module}::leaf_value");
        assert_ne!(chain3, leaf);
        for file in [chain3_file, leaf_file] {
            assert!(file.ends_with("workloads/src/shared.rs"), "{module}: file {file}");
        }
    }
}

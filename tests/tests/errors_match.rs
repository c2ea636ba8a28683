//! A body rustc rejects gets rustc's errors under `#[lowering(classic)]`: each `ui/NAME.rs`
//! below has a twin `ui_plain/NAME.rs`, the same file with the attribute line replaced by a
//! comment (so that every line number stays), whose errors trybuild records for the plain
//! `async fn`; the classic file's recorded errors must be the same text.
//!
//! One shape is not there yet: a type mismatch on the value of an await that a `let`
//! annotates (`let x: String = ready(1u32).await;`) is reported by the twin exactly as for the
//! plain function, and a second time by the generated state machine, at the same place, with
//! rustc's "expected due to this" label added (`a_let_mismatch_is_reported_twice`).

/// The cases whose errors are the plain function's, word for word.
const CASES: [&str; 5] = [
    "rustc_rejects_unknown_name",
    "rustc_rejects_wrong_method",
    "borrow_rustc_rejects",
    "unsafe_call_outside_unsafe",
    "const_async_fn",
];

/// Every pair, the one above included.
const PAIRS: [&str; 6] = [
    "rustc_rejects_type_mismatch",
    "rustc_rejects_unknown_name",
    "rustc_rejects_wrong_method",
    "borrow_rustc_rejects",
    "unsafe_call_outside_unsafe",
    "const_async_fn",
];

const ATTRIBUTE: &str = "#[lowering(classic)]";
const PLAIN: &str = "// (as a plain async fn)";

fn read(path: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("reading {}: {error}", path.display()))
}

#[test]
fn the_plain_files_are_the_classic_ones_without_the_attribute() {
    for case in PAIRS {
        let classic = read(&format!("ui/{case}.rs"));
        assert_eq!(classic.matches(ATTRIBUTE).count(), 1, "{case}: one attribute");
        assert_eq!(read(&format!("ui_plain/{case}.rs")), classic.replace(ATTRIBUTE, PLAIN), "{case}");
    }
}

#[test]
fn the_plain_functions_errors() {
    trybuild::TestCases::new().compile_fail("ui_plain/*.rs");
}

#[test]
fn errors_are_the_plain_functions() {
    for case in CASES {
        let classic = read(&format!("ui/{case}.stderr"));
        let plain = read(&format!("ui_plain/{case}.stderr")).replace("ui_plain/", "ui/");
        assert_eq!(classic, plain, "{case}: the classic function's errors differ from the plain function's");
    }
}

#[test]
fn a_let_mismatch_is_reported_twice() {
    let classic = read("ui/rustc_rejects_type_mismatch.stderr");
    let plain = read("ui_plain/rustc_rejects_type_mismatch.stderr").replace("ui_plain/", "ui/");
    let errors: Vec<&str> = classic.split("\n\nerror").collect();
    assert_eq!(errors.len(), 2, "the twin's error and the state machine's");
    assert!(classic.starts_with(plain.trim_end()), "the first is the plain function's");
    assert!(errors[1].contains("expected due to this"), "the second is the same mismatch, labelled");
}

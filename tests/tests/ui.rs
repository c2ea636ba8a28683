//! Every shape the attribute rejects, with the message it gives (see `tests/ui/*.stderr`).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*.rs");
}

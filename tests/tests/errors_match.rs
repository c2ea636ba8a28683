//! A body rustc rejects gets rustc's errors under `#[lowering(classic)]`: each `ui/NAME.rs`
//! below has a twin `ui_plain/NAME.rs`, the same file with the attribute line replaced by a
//! comment (so that every line number stays), whose errors trybuild records for the plain
//! `async fn`; the classic file's errors must be the same text, as `cargo` prints them.
//!
//! `cargo` prints a diagnostic that rustc emits twice with the same text once (trybuild records
//! both): the borrow-check twin and the state machine's copy of the user's code may both report
//! a mistake, and where the state machine's copy is written so that rustc reports it in the
//! plain function's words (an awaited value a `let` annotates, or one an operand takes by
//! value: an argument, a field, the operand of `?` or of an arithmetic operator, a returned
//! value; `generate::emit::awaited_values`), the user reads it once. `cargo_output` removes such
//! repeats before comparing, as `cargo` does.
//!
//! Some are the same in number, codes and places only (`SAME_PLACES`: rustc words a moved
//! value otherwise in an `async` block, which the twin is, and labels the signature's result
//! type only for a value that ends a function's own body), and some are reported twice
//! (`DIFFERING`), each pinned by a test below that asserts the exact difference. Where a
//! `return` has the wrong type, the twin's error carries a note the plain function's does not
//! have: its `async` block learns its result type from a `return` the lowering writes first,
//! and rustc then says where ("return type inferred to be `u32` here", at the signature's
//! result type), where the plain function's signature gives the type; the state machine's copy
//! reports the mismatch without it (`docs/classic-lowering.md`, "Where the lowerings still
//! differ").

/// The cases whose errors are the plain function's, word for word.
const CASES: [&str; 31] = [
    "rustc_rejects_type_mismatch",
    "rustc_rejects_unknown_name",
    "rustc_rejects_wrong_method",
    "borrow_rustc_rejects",
    "unsafe_call_outside_unsafe",
    "const_async_fn",
    "awaited_value_mismatches_let",
    "awaited_mismatch_then_used",
    "unsafe_call_after_await",
    "let_mismatch_before_await",
    "method_argument_mismatch",
    "match_arms_differ",
    "wrong_number_of_arguments",
    "mutable_borrow_across_await",
    "assigns_immutable_local",
    "borrows_immutable_local_mutably",
    "private_field_read",
    "trait_method_missing",
    "unknown_method_after_await",
    "awaited_argument_mismatch",
    "awaited_field_mismatch",
    "awaited_question_mark_mismatch",
    "awaited_operand_mismatch",
    "awaited_inside_typed_let",
    "awaited_value_of_the_wrong_operand_type",
    "borrow_conflict_across_awaits",
    "deref_of_an_awaited_number",
    "if_without_else_after_await",
    "missing_field_after_await",
    "two_mutable_borrows_of_a_mut_parameter",
    "typed_let_branch_mismatch",
];

/// The cases whose errors are the plain function's in number, codes and places, and whose
/// words differ where rustc words a use of a moved value inside an `async` block (the twin)
/// otherwise than inside an `async fn`: it suggests no `.clone()` there, and names no field
/// of a captured `self` (`a_moved_value_reads_as_in_an_async_block`); and where a result of
/// the wrong type gets no label at the signature (`a_result_of_the_wrong_type_is_reported_once`).
const SAME_PLACES: [&str; 8] = [
    "moved_value_after_await",
    "moved_into_call_then_awaited",
    "moved_in_a_loop_across_await",
    "moved_while_borrowed_across_await",
    "moved_out_of_self_across_await",
    "tail_of_wrong_type",
    "tail_of_wrong_type_in_a_method",
    "tail_branch_of_wrong_type",
];

/// The pairs whose errors still differ in number, each asserted by a test of its own below.
const DIFFERING: [&str; 5] = [
    "early_return_of_the_wrong_type",
    "moved_out_of_an_index_after_await",
    "question_mark_on_an_option_in_a_result_fn",
    "reference_to_a_local_returned",
    "possibly_uninitialized_after_await",
];

/// Every pair: the cases above and those that still differ.
fn pairs() -> impl Iterator<Item = &'static str> {
    CASES.into_iter().chain(SAME_PLACES).chain(DIFFERING)
}

const ATTRIBUTE: &str = "#[lowering(classic)]";
const PLAIN: &str = "// (as a plain async fn)";

fn read(path: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("reading {}: {error}", path.display()))
}

#[test]
fn the_plain_files_are_the_classic_ones_without_the_attribute() {
    for case in pairs() {
        let classic = read(&format!("ui/{case}.rs"));
        assert_eq!(classic.matches(ATTRIBUTE).count(), 1, "{case}: one attribute");
        assert_eq!(read(&format!("ui_plain/{case}.rs")), classic.replace(ATTRIBUTE, PLAIN), "{case}");
    }
}

#[test]
fn the_plain_functions_errors() {
    trybuild::TestCases::new().compile_fail("ui_plain/*.rs");
}

/// The diagnostics of a `.stderr` file as `cargo` prints them: each distinct one once, in order.
fn cargo_output(stderr: &str) -> Vec<String> {
    let mut seen = Vec::new();
    for diagnostic in stderr
        .trim_end()
        .split("\n\nerror")
        .enumerate()
        .map(|(index, text)| if index == 0 { text.to_owned() } else { format!("error{text}") })
    {
        if !seen.contains(&diagnostic) {
            seen.push(diagnostic);
        }
    }
    seen
}

fn classic_and_plain(case: &str) -> (Vec<String>, Vec<String>) {
    let classic = read(&format!("ui/{case}.stderr"));
    let plain = read(&format!("ui_plain/{case}.stderr")).replace("ui_plain/", "ui/");
    (cargo_output(&classic), cargo_output(&plain))
}

#[test]
fn errors_are_the_plain_functions() {
    for case in CASES {
        let (classic, plain) = classic_and_plain(case);
        assert_eq!(classic, plain, "{case}: the classic function's errors differ from the plain function's");
    }
}

/// A diagnostic's code and where it points (`error[E0382]`, ` --> ui/case.rs:10:5`).
fn code_and_place(diagnostic: &str) -> (String, String) {
    let mut lines = diagnostic.lines();
    let code = lines.next().unwrap_or_default().split(':').next().unwrap_or_default().to_owned();
    let place = lines.next().unwrap_or_default().trim().to_owned();
    (code, place)
}

#[test]
fn errors_are_the_plain_functions_in_number_codes_and_places() {
    for case in SAME_PLACES {
        let (classic, plain) = classic_and_plain(case);
        let classic: Vec<_> = classic.iter().map(|error| code_and_place(error)).collect();
        let plain: Vec<_> = plain.iter().map(|error| code_and_place(error)).collect();
        assert_eq!(classic, plain, "{case}: the classic function's errors are not the plain function's");
    }
}

const CLONE_HELP: &str = "help: consider cloning the value if the performance cost is acceptable";

/// A diagnostic without its `.clone()` suggestion, which is its last part, and without the
/// empty gutter line (`   |`) that ends a diagnostic's last part.
fn without_clone_help(diagnostic: &str) -> String {
    without_last_gutter(diagnostic.split(CLONE_HELP).next().unwrap_or_default())
}

fn without_last_gutter(diagnostic: &str) -> String {
    let text = diagnostic.trim_end();
    text.strip_suffix('|').unwrap_or(text).trim_end().to_owned()
}

/// `let w = v; f().await; v.len()` and its neighbours: one E0382 where the plain function's is,
/// with its labels; the state machine's copy, which cannot tell a moved value from a copied
/// one, keeps such a local in place rather than saving it where the await suspends, so that
/// it reports nothing of its own. The words are those rustc uses inside an `async` block: no
/// `.clone()` suggestion, and a moved field of a method's `self` called "value".
#[test]
fn a_moved_value_reads_as_in_an_async_block() {
    for case in &SAME_PLACES[..4] {
        let (classic, plain) = classic_and_plain(case);
        assert!(plain[0].contains(CLONE_HELP), "{case}: the plain function suggests `.clone()`: {}", plain[0]);
        let classic: Vec<String> = classic.iter().map(|error| without_last_gutter(error)).collect();
        assert_eq!(classic, vec![without_clone_help(&plain[0])], "{case}");
    }
    let (classic, plain) = classic_and_plain("moved_out_of_self_across_await");
    assert_eq!(
        classic[0].replace("moved value", "moved value: `self.name`").replace("because value", "because `self.name`"),
        plain[0]
    );
}

/// The note the twin's error carries where the plain function's has none, at the signature's
/// result type (never at the attribute), and the state machine's copy of the same error.
fn twin_note_and_copy(classic: &[String], note: &str) {
    assert_eq!(classic.len(), 2, "the twin's error and the state machine's");
    assert!(classic[0].contains(note), "{}", classic[0]);
    assert!(!classic[0].contains("#[lowering"), "nothing at the attribute: {}", classic[0]);
    assert!(classic.iter().all(|error| error.starts_with("error[E0308]: mismatched types")));
    assert_eq!(classic[1].lines().nth(1), classic[0].lines().nth(1), "at the same place");
    assert!(!classic[1].contains("note:"), "{}", classic[1]);
}

/// `f().await; "text"` in a function of `-> u32`, in a method, in a branch of a tail `if`: one
/// error at the user's value, the plain function's but for its label at the signature's result
/// type ("expected `u32` because of return type") and the source lines shown for it: rustc
/// gives that label only to a value that ends a function's own body, and the twin's value ends
/// the block of a `let` of the result type.
#[test]
fn a_result_of_the_wrong_type_is_reported_once() {
    for case in RESULTS_OF_THE_WRONG_TYPE {
        let (classic, plain) = classic_and_plain(case);
        assert_eq!((classic.len(), plain.len()), (1, 1), "{case}");
        let plain_lines: Vec<&str> = plain[0].lines().collect();
        let mut missing = plain_lines.clone();
        for line in classic[0].lines() {
            let at = missing.iter().position(|plain_line| *plain_line == line);
            assert!(at.is_some(), "{case}: a line the plain function's error does not have: {line}");
            missing.remove(at.unwrap_or_default());
        }
        assert!(missing.iter().any(|line| line.contains("because of return type")), "{case}: {missing:?}");
        // What else is missing: the signature and the lines between it and the value.
        assert!(missing.iter().all(|line| line.contains('|') && !line.contains('^')), "{case}: {missing:?}");
    }
}

const RESULTS_OF_THE_WRONG_TYPE: [&str; 3] =
    ["tail_of_wrong_type", "tail_of_wrong_type_in_a_method", "tail_branch_of_wrong_type"];

/// A `return` of the wrong type: as a tail of the wrong type, the twin's error with its note,
/// and the state machine's copy.
#[test]
fn an_early_return_of_the_wrong_type_is_reported_twice() {
    let (classic, plain) = classic_and_plain("early_return_of_the_wrong_type");
    assert_eq!(plain.len(), 1);
    twin_note_and_copy(&classic, "return type inferred to be `u32` here");
}

/// `let s = v[0];` of a `String`: the twin's E0507 without the `.clone()` suggestion (as for a
/// moved value) and the state machine's copy of the same code, with it, at the same place.
#[test]
fn a_move_out_of_an_index_is_reported_twice() {
    let (classic, plain) = classic_and_plain("moved_out_of_an_index_after_await");
    assert_eq!(plain.len(), 1);
    assert_eq!(classic.len(), 2, "the twin's error and the state machine's");
    assert_eq!(without_last_gutter(&classic[0]), without_clone_help(&plain[0]));
    assert_eq!(classic[1], plain[0], "the state machine's copy is the plain function's error");
}

/// `?` on an `Option` where the function returns `Result`: rustc words the twin's error for an
/// `async` block and points its label at the attribute (the block's span), and the state
/// machine's `?`, in a closure that returns `Poll<Result<..>>`, is an error of its own there.
#[test]
fn a_question_mark_on_an_option_is_reported_twice() {
    let (classic, plain) = classic_and_plain("question_mark_on_an_option_in_a_result_fn");
    assert_eq!(plain.len(), 1);
    assert!(plain[0].contains("in an async function that returns `Result`"));
    assert_eq!(classic.len(), 2);
    assert_eq!(code_and_place(&classic[0]), code_and_place(&plain[0]), "the twin's at the user's `?`");
    assert!(classic[0].contains("in an async block that returns `Result`"));
    assert!(classic[1].contains("in a closure that returns `Result` or `Option`"));
    assert_eq!(code_and_place(&classic[1]), code_and_place(&plain[0]), "the state machine's at the same `?`");
}

/// `&x` of a local returned: the twin's error is the plain function's; the state machine's
/// closure, which returns the value in `Poll::Ready`, adds one at the attribute.
#[test]
fn a_reference_to_a_local_returned_is_reported_twice() {
    let (classic, plain) = classic_and_plain("reference_to_a_local_returned");
    assert_eq!(plain.len(), 1);
    assert_eq!(classic.len(), 2);
    assert_eq!(classic[0], plain[0], "the twin's error is the plain function's");
    assert!(classic[1].starts_with("error[E0515]: cannot return value referencing local variable `x`"));
}

/// A local assigned on one branch and read after an await: the plain function's E0381 is the
/// borrow checker's, and the state machine, which declares such a local only where code assigns
/// it (rustc could not infer the type of one that nothing assigns), names a local it never
/// declared there: a resolution error (E0425), which stops rustc before the borrow check, so the
/// twin's E0381 is never reported.
#[test]
fn a_possibly_uninitialized_local_reads_as_an_unknown_name() {
    let (classic, plain) = classic_and_plain("possibly_uninitialized_after_await");
    assert_eq!(plain.len(), 1);
    assert!(plain[0].starts_with("error[E0381]: used binding `x` is possibly-uninitialized"));
    assert_eq!(classic.len(), 1);
    assert!(classic[0].starts_with("error[E0425]: cannot find value `x` in this scope"));
    assert_eq!(classic[0].lines().nth(1), plain[0].lines().nth(1), "at the user's read");
}

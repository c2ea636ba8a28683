//! Live-stack probes for the diagnostics (D1-D4): `capture(label)` records the stack of the
//! calling thread when a probe is armed for `label`, and does nothing otherwise.
//!
//! `examples/lowering_stacks.rs` arms the probes, runs the diagnostics functions of both
//! variants and prints what they recorded in the sections `inspect` reads ([`section`]).

use std::backtrace::Backtrace;
use std::cell::RefCell;

thread_local! {
    static ARMED: RefCell<Option<(String, Option<Backtrace>)>> = const { RefCell::new(None) };
}

/// Record the current stack if a probe is armed for `label`. Never inlined, so that the
/// frame above it is always the function that called it.
#[inline(never)]
pub fn capture(label: &str) {
    ARMED.with(|armed| {
        if let Some((wanted, slot)) = &mut *armed.borrow_mut()
            && wanted == label
        {
            *slot = Some(Backtrace::force_capture());
        }
    });
}

/// Run `f` with a probe armed for `label`; returns what `f` returned and the stack the probe
/// recorded, if it was reached.
pub fn armed<R>(label: &str, f: impl FnOnce() -> R) -> (R, Option<Backtrace>) {
    ARMED.with(|armed| *armed.borrow_mut() = Some((label.to_owned(), None)));
    let result = f();
    let captured = ARMED.with(|armed| armed.borrow_mut().take().and_then(|(_, stack)| stack));
    (result, captured)
}

/// Print one section of the protocol `inspect` reads: a header line
/// `@@ <kind> <scenario> <variant>`, then `body` as it is. A stack is printed in the full
/// backtrace format (`{:#}`): the short format hides frames.
pub fn section(kind: &str, scenario: &str, variant: &str, body: &str) {
    println!("@@ {kind} {scenario} {variant}");
    println!("{body}");
}

/// A stack in the form [`section`] prints: the full backtrace, or a note that the probe was
/// never reached (which `inspect` reports as an error).
pub fn stack_text(stack: Option<&Backtrace>) -> String {
    match stack {
        Some(stack) => format!("{stack:#}"),
        None => "(the probe was not reached)".to_owned(),
    }
}

//! Live-stack probes for the diagnostics (D1-D3): `capture(label)` records the stack of the
//! calling thread when a probe is armed for `label`, and does nothing otherwise.

use std::cell::RefCell;

thread_local! {
    static ARMED: RefCell<Option<(String, Option<std::backtrace::Backtrace>)>> = const { RefCell::new(None) };
}

/// Record the current stack if a probe is armed for `label`.
#[inline(never)]
pub fn capture(label: &str) {
    ARMED.with(|armed| {
        if let Some((wanted, slot)) = &mut *armed.borrow_mut() {
            if wanted == label {
                *slot = Some(std::backtrace::Backtrace::force_capture());
            }
        }
    });
}

/// Run `f` with a probe armed for `label`; returns what `f` returned and the stack the probe
/// recorded, if it was reached.
pub fn armed<R>(label: &str, f: impl FnOnce() -> R) -> (R, Option<std::backtrace::Backtrace>) {
    ARMED.with(|armed| *armed.borrow_mut() = Some((label.to_owned(), None)));
    let result = f();
    let captured = ARMED.with(|armed| armed.borrow_mut().take().and_then(|(_, stack)| stack));
    (result, captured)
}

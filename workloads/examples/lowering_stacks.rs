//! The diagnostics D1-D4, both variants: live stacks at the bottom of a 3-level chain, of a
//! recursion at depths 0, 3 and 10 and right after a real suspension; the report of a panic
//! raised 3 levels down (with and without a prior suspension) and the `Display` of an error
//! propagated with `?`.
//!
//! `cargo run -p inspect` builds this example in a debug and a release build, runs it and
//! reads its sections (`@@ <kind> <scenario> <variant>`, see `workloads::probe::section`).
//! Run it yourself to read the raw stacks: `cargo run -p workloads --example lowering_stacks`.

use std::backtrace::Backtrace;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

use futures::executor::block_on;
use workloads::{Variant, for_each_variant, probe};

/// What the panic hook saw: one entry per call of the hook.
static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn main() {
    // Keeps every shared function's code in this executable (the linker drops what nothing
    // references): `inspect crosscheck` compares the library's symbols with cargo-bloat's
    // reading of this, the linked executable of the inspected build. Nothing is called.
    std::hint::black_box(workloads::instantiate::entry_points as fn() -> Vec<workloads::instantiate::EntryPoint>);
    for variant in Variant::BOTH {
        let name = variant.name();

        let (_, stack) = probe::armed("chain3", || for_each_variant!(variant, m => block_on(m::diag_chain3(17))));
        probe::section("stack", "chain3", name, &probe::stack_text(stack.as_ref()));

        for depth in [0, 3, 10] {
            let (_, stack) =
                probe::armed("recursive", || for_each_variant!(variant, m => block_on(m::diag_recursive(depth))));
            probe::section("stack", &format!("recursive/{depth}"), name, &probe::stack_text(stack.as_ref()));
        }

        let (_, stack) =
            probe::armed("after_yield", || for_each_variant!(variant, m => block_on(m::diag_after_yield(1))));
        probe::section("stack", "after_yield", name, &probe::stack_text(stack.as_ref()));

        for (scenario, suspend) in [("sync", false), ("suspended", true)] {
            probe::section("panic", scenario, name, &panic_report(variant, suspend));
        }

        let error = match for_each_variant!(variant, m => block_on(m::diag_err3(17))) {
            Ok(value) => format!("(no error: Ok({value}))"),
            Err(error) => format!("{error}"),
        };
        probe::section("error", "err3", name, &error);
    }
}

/// Run `diag_panic3(suspend)` under a hook that records every call of the hook (message,
/// location, stack), and what reached the top. The default hook stays silent: the panic is
/// expected.
fn panic_report(variant: Variant, suspend: bool) -> String {
    PANICS.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clear();
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        let message = info.payload_as_str().unwrap_or("(not a string)");
        let location = info.location().map(|at| format!("{}:{}:{}", at.file(), at.line(), at.column()));
        let report = format!(
            "message: {message}\nlocation: {}\n{:#}",
            location.as_deref().unwrap_or("(none)"),
            Backtrace::force_capture()
        );
        PANICS.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(report);
    }));
    let outcome =
        panic::catch_unwind(AssertUnwindSafe(|| for_each_variant!(variant, m => block_on(m::diag_panic3(suspend)))));
    panic::set_hook(previous);

    let caught = match &outcome {
        Ok(value) => format!("(no panic: {value})"),
        Err(payload) => payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|text| (*text).to_owned()))
            .unwrap_or_else(|| "(not a string)".to_owned()),
    };
    let hooks = PANICS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut report = format!("caught: {caught}\nhook calls: {}\n", hooks.len());
    if let Some(first) = hooks.first() {
        report.push_str(first);
    }
    report
}

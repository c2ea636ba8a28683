//! Which lowering a row measured, proven from the function its timed code called.
//!
//! A row's timed code names the workload function it times once, in [`calling!`]: the macro
//! binds that function item to the local the body calls, and reports the same item's type
//! name, which is its defining path (`workloads::shared::classic::chain3`). The lowering
//! record is looked up under that path, so the lowering a row reports is the record of what
//! ran, not of a module chosen from the row's label. [`prove`] refuses a row whose called
//! function's record disagrees with its label, before anything of it is timed.

use workloads::Variant;

use crate::scenarios::{Scenario, Subject};

/// What one run of a row did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ran {
    pub checksum: u64,
    /// The defining path of the annotated workload function the timed code called; `None`
    /// for the hand-written controls, which call none.
    pub called: Option<&'static str>,
}

impl Ran {
    pub fn control(checksum: u64) -> Ran {
        Ran { checksum, called: None }
    }
}

/// `calling!(path => |f| body)`: `body` with `f` bound to the function item at `path`, and
/// the item's own path beside the checksum `body` returns. A function item is zero-sized, so
/// calls through `f` stay direct; a body that called something else would leave `f` unused,
/// which rustc reports.
macro_rules! calling {
    ($function:path => |$f:ident| $body:expr) => {{
        let $f = $function;
        $crate::proof::Ran { checksum: $body, called: Some(::std::any::type_name_of_val(&$function)) }
    }};
}
pub(crate) use calling;

/// What `summary.json` says a row measured: `classic` or `runtime` from the called function's
/// lowering record, or why there is none.
pub fn prove(scenario: &Scenario, subject: Subject, ran: &Ran) -> Result<&'static str, String> {
    let row = format!("row {} ({}) for {}", scenario.id, scenario.name, subject.name());
    let variant = match subject {
        Subject::Variant(variant) => variant,
        Subject::Control | Subject::Direct => return control(&row, ran, "none (no async)"),
        Subject::RuntimeOpaque | Subject::ModelFloor | Subject::ModelFloorPanic => {
            return control(&row, ran, "none (hand-written control)");
        }
    };
    let called = ran.called.ok_or_else(|| {
        format!(
            "{row} calls no annotated function through `calling!`, so what it measures cannot be proven: not timing it"
        )
    })?;
    let lowerings: Vec<lowering::Lowering> =
        lowering::records().iter().filter(|record| record.path() == called).map(|record| record.lowering).collect();
    let expected = match variant {
        Variant::Classic => lowering::Lowering::Classic,
        Variant::Runtime => lowering::Lowering::Runtime,
    };
    match lowerings.as_slice() {
        [] => Err(format!("{row} calls `{called}`, which left no lowering record in this binary: not timing it")),
        [lowering, rest @ ..] if rest.iter().all(|other| other == lowering) && *lowering == expected => {
            Ok(lowering.as_str())
        }
        [lowering, rest @ ..] if rest.iter().all(|other| other == lowering) => Err(format!(
            "{row} calls `{called}`, whose lowering record says {lowering}: a {} row must call a {} function; not timing it",
            variant.name(),
            expected
        )),
        _ => Err(format!("{row} calls `{called}`, whose lowering records disagree: not timing it")),
    }
}

/// A control calls no annotated function: one that did would be timing a lowering unlabelled.
fn control(row: &str, ran: &Ran, measured: &'static str) -> Result<&'static str, String> {
    match ran.called {
        None => Ok(measured),
        Some(called) => Err(format!("{row} is a control but calls the annotated `{called}`: not timing it")),
    }
}

//! The workloads: one shared source compiled under both lowerings ([`classic`] and
//! [`runtime`]), the behaviour checks that run before anything is measured, and the probes
//! the diagnostics use.
//!
//! The host (the benchmark harness, `inspect`, the tests) calls `classic::f` and
//! `runtime::f` directly; [`for_each_variant!`] writes host code once for both modules.

// `--cfg lowering_only="classic"` (or `"runtime"`) keeps one variant of the shared source
// and drops the host code, which names both: `inspect` builds the crate so once per variant
// to time what each lowering costs the compiler.
#[cfg(not(any(lowering_only = "classic", lowering_only = "runtime")))]
pub mod checks;
#[cfg(not(any(lowering_only = "classic", lowering_only = "runtime")))]
pub mod expected;
pub mod floor;
pub mod instantiate;
pub mod opaque;
pub mod probe;
mod shared;
pub mod source;
pub mod tracked;

#[cfg(not(lowering_only = "runtime"))]
pub use shared::classic;
#[cfg(not(lowering_only = "classic"))]
pub use shared::runtime;

/// The two variants of the shared source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    Classic,
    Runtime,
}

impl Variant {
    pub const BOTH: [Variant; 2] = [Variant::Classic, Variant::Runtime];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Classic => "classic",
            Variant::Runtime => "runtime",
        }
    }

    /// The lowering this variant's module path is expected to carry in its records.
    pub fn module(self) -> &'static str {
        match self {
            Variant::Classic => "workloads::shared::classic",
            Variant::Runtime => "workloads::shared::runtime",
        }
    }

    /// The lowering the compiled artifact says `function` got in this variant (from its
    /// record), or `None` if the artifact has no record of it.
    pub fn measured_lowering(self, function: &str) -> Option<lowering::Lowering> {
        lowering::records_of(self.module(), function).next().map(|record| record.lowering)
    }
}

/// `for_each_variant!(variant, module => body)`: `body` once with `module` bound to
/// `classic` and once to `runtime`, as a `match` on `variant`. Calls stay direct (no
/// function pointers or trait objects on the timed path).
#[macro_export]
macro_rules! for_each_variant {
    ($variant:expr, $module:ident => $body:expr) => {
        match $variant {
            $crate::Variant::Classic => {
                use $crate::classic as $module;
                $body
            }
            $crate::Variant::Runtime => {
                use $crate::runtime as $module;
                $body
            }
        }
    };
}

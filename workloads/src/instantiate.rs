//! Real instantiations of every shared function, for `inspect`.
//!
//! A release build emits no code for an `async fn` body that nothing polls, and it inlines
//! small functions into their callers, so a function the host happens not to call (or calls
//! only inlined) would show as zero bytes of code. [`entry_points`] takes the address of each
//! function's stub and of the `poll` of the future it returns, in both variants: taking an
//! address makes rustc emit that body under its own symbol, and calls nothing. The code of
//! the functions themselves does not change; the benchmarks do not call this.
//!
//! A function added to `shared.rs` must be added to the list below; `inspect` reports a
//! function whose artifact holds no code as "not instantiated".

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::Variant;

/// The addresses that keep one function's code in the artifact.
#[derive(Clone, Copy, Debug)]
pub struct EntryPoint {
    pub variant: Variant,
    pub function: &'static str,
    /// The function itself: for `classic`, the stub that runs `move_next` and returns the
    /// task; for `runtime`, the function that returns the future.
    pub stub: *const (),
    /// `<F as Future>::poll` of the future the function returns: `Task::poll` for `classic`,
    /// the coroutine body for `runtime`.
    pub poll: *const (),
}

/// A function pointer whose result is a future; implemented per arity.
trait ReturnsFuture {
    type Output: Future;
}

impl<A, F: Future> ReturnsFuture for fn(A) -> F {
    type Output = F;
}

impl<A, B, F: Future> ReturnsFuture for fn(A, B) -> F {
    type Output = F;
}

impl<A, B, C, F: Future> ReturnsFuture for fn(A, B, C) -> F {
    type Output = F;
}

type PollFn<F> = fn(Pin<&mut F>, &mut Context<'_>) -> Poll<<F as Future>::Output>;

fn poll_address<S: ReturnsFuture>(_stub: &S) -> *const () {
    let poll: PollFn<S::Output> = <S::Output as Future>::poll;
    poll as *const ()
}

/// `keep!(variant, function(_, _))`: the entry point of `crate::variant::function`, whose
/// arity the underscores give (the argument types are inferred).
macro_rules! keep {
    ($variant:ident, $function:ident($($arg:tt),*)) => {{
        let stub: fn($($arg),*) -> _ = crate::$variant::$function;
        EntryPoint {
            variant: keep!(@variant $variant),
            function: stringify!($function),
            stub: stub as *const (),
            poll: poll_address(&stub),
        }
    }};
    (@variant classic) => { Variant::Classic };
    (@variant runtime) => { Variant::Runtime };
}

/// `both!(function(_), ...)`: the entry points of each function in both variants, or in the
/// one a `lowering_only` build keeps.
macro_rules! both {
    ($($function:ident($($arg:tt),*)),* $(,)?) => {{
        let mut points = Vec::new();
        $(
            #[cfg(not(lowering_only = "runtime"))]
            points.push(keep!(classic, $function($($arg),*)));
            #[cfg(not(lowering_only = "classic"))]
            points.push(keep!(runtime, $function($($arg),*)));
        )*
        points
    }};
}

/// Every shared function's entry points, both variants. Not inlined, so that the addresses
/// (and the bodies behind them) stay in the library.
#[doc(hidden)]
#[inline(never)]
pub fn entry_points() -> Vec<EntryPoint> {
    both![
        leaf_value(_),
        leaf_completed(_),
        leaf_gate(_, _),
        completed_chain10(_),
        completed_chain9(_),
        completed_chain8(_),
        completed_chain7(_),
        completed_chain6(_),
        completed_chain5(_),
        completed_chain4(_),
        completed_chain3(_),
        completed_chain2(_),
        completed_chain1(_),
        value_chain10(_),
        value_chain9(_),
        value_chain8(_),
        value_chain7(_),
        value_chain6(_),
        value_chain5(_),
        value_chain4(_),
        value_chain3(_),
        value_chain2(_),
        value_chain1(_),
        vt_chain10(_),
        vt_chain9(_),
        vt_chain8(_),
        vt_chain7(_),
        vt_chain6(_),
        vt_chain5(_),
        vt_chain4(_),
        vt_chain3(_),
        vt_chain2(_),
        vt_chain1(_),
        cache_lookup(_),
        cache_hit_loop(_),
        yield_chain10(_),
        yield_chain9(_),
        yield_chain8(_),
        yield_chain7(_),
        yield_chain6(_),
        yield_chain5(_),
        yield_chain4(_),
        yield_chain3(_),
        yield_chain2(_),
        yield_chain1(_),
        ten_yields(_),
        panic_chain10(_),
        panic_chain9(_),
        panic_chain8(_),
        panic_chain7(_),
        panic_chain6(_),
        panic_chain5(_),
        panic_chain4(_),
        panic_chain3(_),
        panic_chain2(_),
        panic_chain1(_),
        err_chain10(_),
        err_chain9(_),
        err_chain8(_),
        err_chain7(_),
        err_chain6(_),
        err_chain5(_),
        err_chain4(_),
        err_chain3(_),
        err_chain2(_),
        err_chain1(_),
        hot_path12(_),
        hot_path11(_),
        hot_path10(_),
        hot_path9(_),
        hot_path8(_),
        hot_path7(_),
        hot_path6(_),
        hot_path5(_),
        hot_path4(_),
        hot_path3(_),
        hot_path2(_),
        hot_path1(_),
        recv_chain12(_),
        recv_chain11(_),
        recv_chain10(_),
        recv_chain9(_),
        recv_chain8(_),
        recv_chain7(_),
        recv_chain6(_),
        recv_chain5(_),
        recv_chain4(_),
        recv_chain3(_),
        recv_chain2(_),
        recv_chain1(_),
        ping_pong_side(_, _, _),
        ping_pong_side_direct(_, _, _),
        chain3(_),
        gate_chain3(_, _),
        gate_chain2(_, _),
        task_chain3(_),
        task_middle(_),
        retained(_),
        suspend_once(_),
        suspend_once_value(_),
        completed_method(_),
        sync_loop(_),
        cancellable(_, _),
        watch_token(_, _),
        fail_after_gate(_, _),
        ambient_flow(_, _),
        ambient_callee(_),
        diag_chain3(_),
        diag_chain2(_),
        diag_chain1(_),
        diag_recursive(_),
        diag_after_yield(_),
        diag_panic3(_),
        diag_panic2(_),
        diag_panic1(_),
        diag_err3(_),
        diag_err2(_),
        diag_err1(_),
        read_loop(_),
    ]
}

//! The `runtime-opaque` control rows (B2, B3, B4, B6): the plain `async fn` chains, with
//! every level's future polled through a call the optimizer cannot inline.
//!
//! rustc composes nested `async fn`s into one coroutine and inlines the levels into each
//! other; .NET's runtime async still calls every method. These chains keep one real call
//! per level and per poll, so that the gap between `runtime` and `runtime-opaque` is what
//! inlining saves, and the gap between `runtime-opaque` and the classic rows is the model.

use std::future::{Future, IntoFuture as _};
use std::pin::Pin;
use std::task::{Context, Poll};

use lowering::leaf::{ready, yield_now};

/// A future whose `poll` is a real call: the boundary one level puts around the next.
pub struct Opaque<F>(F);

impl<F: Future> Future for Opaque<F> {
    type Output = F::Output;

    #[inline(never)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: structural pinning of the only field, which is never moved out.
        unsafe { self.map_unchecked_mut(|opaque| &mut opaque.0) }.poll(cx)
    }
}

fn opaque<F: Future>(future: F) -> Opaque<F> {
    Opaque(future)
}

macro_rules! level {
    ($name:ident, $inner:ident) => {
        pub async fn $name(x: u64) -> u64 {
            opaque($inner(x)).await + 1
        }
    };
}

macro_rules! chain {
    ($($name:ident, $inner:ident;)*) => { $(level!($name, $inner);)* };
}

pub async fn value_chain1(x: u64) -> u64 {
    x + 1000
}
chain! {
    value_chain2, value_chain1; value_chain3, value_chain2; value_chain4, value_chain3;
    value_chain5, value_chain4; value_chain6, value_chain5; value_chain7, value_chain6;
    value_chain8, value_chain7; value_chain9, value_chain8; value_chain10_inner, value_chain9;
}

pub async fn completed_chain1(x: u64) -> u64 {
    opaque(ready(x).into_future()).await + 1000
}
chain! {
    completed_chain2, completed_chain1; completed_chain3, completed_chain2;
    completed_chain4, completed_chain3; completed_chain5, completed_chain4;
    completed_chain6, completed_chain5; completed_chain7, completed_chain6;
    completed_chain8, completed_chain7; completed_chain9, completed_chain8;
    completed_chain10_inner, completed_chain9;
}

pub async fn yield_chain1(x: u64) -> u64 {
    opaque(yield_now()).await;
    x + 1000
}
chain! {
    yield_chain2, yield_chain1; yield_chain3, yield_chain2; yield_chain4, yield_chain3;
    yield_chain5, yield_chain4; yield_chain6, yield_chain5; yield_chain7, yield_chain6;
    yield_chain8, yield_chain7; yield_chain9, yield_chain8; yield_chain10_inner, yield_chain9;
}

/// The top level of each chain, itself behind the boundary (the executor's poll is a call).
pub fn value_chain10(x: u64) -> Opaque<impl Future<Output = u64>> {
    opaque(value_chain10_inner(x))
}

pub fn completed_chain10(x: u64) -> Opaque<impl Future<Output = u64>> {
    opaque(completed_chain10_inner(x))
}

pub fn yield_chain10(x: u64) -> Opaque<impl Future<Output = u64>> {
    opaque(yield_chain10_inner(x))
}

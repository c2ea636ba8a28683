//! The benchmark chains (B2, B3, B4, B6) written by hand against the floor's task: one
//! state-machine struct per level shape, one `move_next` per level, each level awaiting the
//! task of the level below. `CATCH` selects the builder with panic capture.
//!
//! The state machines hold exactly what lives across the await: the awaited task (its own
//! empty state, `Taken`, instead of an `Option` around it) and, before the first run, the
//! parameter.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use lowering::leaf::{Ready, Yield, ready, yield_now};

use super::task::{Task, ValueTask, start, start_value};

/// A level above the leaf: await the level below, add one.
pub struct Level<A> {
    state: u8,
    x: u64,
    awaiter: A,
}

/// Level 1 of B3 and B4: no await.
pub struct ValueLeaf {
    x: u64,
}

/// Level 1 of B2: awaits an already-complete future.
pub struct CompletedLeaf {
    state: u8,
    awaiter: Option<Ready<u64>>,
    x: u64,
}

/// Level 1 of B6: yields once.
pub struct YieldLeaf {
    state: u8,
    awaiter: Option<Yield>,
    x: u64,
}

macro_rules! task_level {
    ($name:ident, $inner:ident) => {
        #[inline(never)]
        pub fn $name<const CATCH: bool>(x: u64) -> Task<u64> {
            start::<u64, Level<Task<u64>>, CATCH>(Level { state: 0, x, awaiter: Task::Taken }, |sm, ctx| {
                loop {
                    match sm.state {
                        0 => {
                            sm.awaiter = $inner::<CATCH>(sm.x);
                            sm.state = 1;
                        }
                        _ => {
                            let value = match sm.awaiter.poll_await(ctx) {
                                Poll::Ready(value) => value,
                                Poll::Pending => return Poll::Pending,
                            };
                            return Poll::Ready(value + 1);
                        }
                    }
                }
            })
        }
    };
}

macro_rules! value_task_level {
    ($name:ident, $inner:ident) => {
        #[inline(never)]
        pub fn $name<const CATCH: bool>(x: u64) -> ValueTask<u64> {
            start_value::<u64, Level<ValueTask<u64>>, CATCH>(
                Level { state: 0, x, awaiter: ValueTask::Ready(None) },
                |sm, ctx| loop {
                    match sm.state {
                        0 => {
                            sm.awaiter = $inner::<CATCH>(sm.x);
                            sm.state = 1;
                        }
                        _ => {
                            let value = match sm.awaiter.poll_await(ctx) {
                                Poll::Ready(value) => value,
                                Poll::Pending => return Poll::Pending,
                            };
                            return Poll::Ready(value + 1);
                        }
                    }
                },
            )
        }
    };
}

// ---- B3: ten levels over a leaf that returns synchronously -------------------------------

#[inline(never)]
pub fn value_chain1<const CATCH: bool>(x: u64) -> Task<u64> {
    start::<u64, ValueLeaf, CATCH>(ValueLeaf { x }, |sm, _| Poll::Ready(sm.x + 1000))
}
task_level!(value_chain2, value_chain1);
task_level!(value_chain3, value_chain2);
task_level!(value_chain4, value_chain3);
task_level!(value_chain5, value_chain4);
task_level!(value_chain6, value_chain5);
task_level!(value_chain7, value_chain6);
task_level!(value_chain8, value_chain7);
task_level!(value_chain9, value_chain8);
task_level!(value_chain10, value_chain9);

// ---- B2: ten levels over an already-complete leaf -------------------------------------------

#[inline(never)]
pub fn completed_chain1<const CATCH: bool>(x: u64) -> Task<u64> {
    start::<u64, CompletedLeaf, CATCH>(CompletedLeaf { state: 0, awaiter: None, x }, |sm, _| {
        loop {
            match sm.state {
                0 => {
                    sm.awaiter = Some(ready(sm.x));
                    sm.state = 1;
                }
                _ => {
                    // `Ready` completes without a waker; the awaiter never stays pending.
                    let awaiter = sm.awaiter.as_mut().expect("floor: the awaiter is set in state 0");
                    let Poll::Ready(value) = Pin::new(awaiter).poll(&mut Context::from_waker(Waker::noop())) else {
                        unreachable!("`Ready` is ready")
                    };
                    sm.awaiter = None;
                    return Poll::Ready(value + 1000);
                }
            }
        }
    })
}
task_level!(completed_chain2, completed_chain1);
task_level!(completed_chain3, completed_chain2);
task_level!(completed_chain4, completed_chain3);
task_level!(completed_chain5, completed_chain4);
task_level!(completed_chain6, completed_chain5);
task_level!(completed_chain7, completed_chain6);
task_level!(completed_chain8, completed_chain7);
task_level!(completed_chain9, completed_chain8);
task_level!(completed_chain10, completed_chain9);

// ---- B4: the value-task shape ----------------------------------------------------------------

#[inline(never)]
pub fn vt_chain1<const CATCH: bool>(x: u64) -> ValueTask<u64> {
    start_value::<u64, ValueLeaf, CATCH>(ValueLeaf { x }, |sm, _| Poll::Ready(sm.x + 1000))
}
value_task_level!(vt_chain2, vt_chain1);
value_task_level!(vt_chain3, vt_chain2);
value_task_level!(vt_chain4, vt_chain3);
value_task_level!(vt_chain5, vt_chain4);
value_task_level!(vt_chain6, vt_chain5);
value_task_level!(vt_chain7, vt_chain6);
value_task_level!(vt_chain8, vt_chain7);
value_task_level!(vt_chain9, vt_chain8);
value_task_level!(vt_chain10, vt_chain9);

// ---- B6: the innermost level yields once ---------------------------------------------------

#[inline(never)]
pub fn yield_chain1<const CATCH: bool>(x: u64) -> Task<u64> {
    start::<u64, YieldLeaf, CATCH>(YieldLeaf { state: 0, awaiter: None, x }, |sm, ctx| {
        loop {
            match sm.state {
                0 => {
                    sm.awaiter = Some(yield_now());
                    sm.state = 1;
                }
                _ => {
                    // A foreign future is polled only in the heap task, with its waker.
                    let Some(mut cx) = ctx.std_context() else { return Poll::Pending };
                    let awaiter = sm.awaiter.as_mut().expect("floor: the awaiter is set in state 0");
                    match Pin::new(awaiter).poll(&mut cx) {
                        Poll::Ready(()) => {
                            sm.awaiter = None;
                            return Poll::Ready(sm.x + 1000);
                        }
                        Poll::Pending => return Poll::Pending,
                    }
                }
            }
        }
    })
}
task_level!(yield_chain2, yield_chain1);
task_level!(yield_chain3, yield_chain2);
task_level!(yield_chain4, yield_chain3);
task_level!(yield_chain5, yield_chain4);
task_level!(yield_chain6, yield_chain5);
task_level!(yield_chain7, yield_chain6);
task_level!(yield_chain8, yield_chain7);
task_level!(yield_chain9, yield_chain8);
task_level!(yield_chain10, yield_chain9);

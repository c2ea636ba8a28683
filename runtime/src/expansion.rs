//! A macro whose expansion awaits or returns from the function, as the user's hint says
//! (`#[lowering(classic, awaits(read_exact))]`, `returns(ensure)`): the classic lowering runs
//! each invocation in an `async` block the state machine awaits, since `move_next` is neither
//! an `async` context nor the function (its `return` and `?` would leave `move_next`). Inside
//! the block, the expansion's `return` and `?` leave the block, whose output is the function's
//! result; the macro's value, where the expansion goes on, is put in a cell the function owns,
//! and the block waits forever. [`Expansion`] polls the block and tells the two apart: the
//! block ended (the function returns its output) or the cell is full (the function goes on
//! with the value, and the block, past its last statement, is dropped at once).

use std::cell::Cell;
use std::future::Future;
use std::ops::ControlFlow;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The future of one invocation: `Break(result)` where the expansion returned from the
/// function, `Continue(value)` where it gave its value.
pub struct Expansion<'c, T, F> {
    value: &'c Cell<Option<T>>,
    /// `None` once the expansion gave its value.
    block: Option<F>,
}

/// The future of an invocation whose block puts the macro's value in `value`.
pub fn expansion<T, F: Future>(value: &Cell<Option<T>>, block: F) -> Expansion<'_, T, F> {
    Expansion { value, block: Some(block) }
}

impl<T, F: Future> Future for Expansion<'_, T, F> {
    type Output = ControlFlow<F::Output, T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: `block` is pinned structurally: it is never moved out of `self`, only polled
        // in place and dropped in place (`Pin::set`), and `Expansion` has no `Drop` of its own
        // and is `Unpin` only when `F` is.
        let this = unsafe { self.get_unchecked_mut() };
        let mut block = unsafe { Pin::new_unchecked(&mut this.block) };
        let Some(running) = block.as_mut().as_pin_mut() else {
            panic!("lowering: an expansion's future polled after it completed");
        };
        match running.poll(cx) {
            Poll::Ready(returned) => {
                block.set(None);
                Poll::Ready(ControlFlow::Break(returned))
            }
            Poll::Pending => match this.value.take() {
                Some(value) => {
                    block.set(None);
                    Poll::Ready(ControlFlow::Continue(value))
                }
                None => Poll::Pending,
            },
        }
    }
}

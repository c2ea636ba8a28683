//! `join!` and `try_join!` for the classic lowering: `futures::join!(a, b)` and
//! `tokio::join!(a, b)` expand to their own `.await`, which a classic state machine cannot
//! split into states, so the lowering writes `join((a, b)).await` instead: the same futures,
//! created in order, polled in order on every poll until all are done (or, for `try_join`,
//! until one fails), as those macros do.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};

/// One future of a join: running, done (with its output), or taken.
pub enum MaybeDone<F: Future> {
    Running(F),
    Done(F::Output),
    Taken,
}

impl<F: Future> MaybeDone<F> {
    /// Polls it if it still runs; true when it is done.
    fn poll_done(self: Pin<&mut Self>, cx: &mut Context<'_>) -> bool {
        // SAFETY: `Running`'s future is never moved out: it is dropped in place when replaced
        // by `Done` (the enum is pinned as a whole).
        let this = unsafe { self.get_unchecked_mut() };
        match this {
            MaybeDone::Running(future) => match unsafe { Pin::new_unchecked(future) }.poll(cx) {
                Poll::Ready(output) => {
                    *this = MaybeDone::Done(output);
                    true
                }
                Poll::Pending => false,
            },
            MaybeDone::Done(_) => true,
            MaybeDone::Taken => unreachable!("lowering: a join polled after it completed"),
        }
    }

    fn take(self: Pin<&mut Self>) -> F::Output {
        // SAFETY: only `Done`'s output moves out, and it is not pinned.
        let this = unsafe { self.get_unchecked_mut() };
        match std::mem::replace(this, MaybeDone::Taken) {
            MaybeDone::Done(output) => output,
            _ => unreachable!("lowering: a join's output taken twice"),
        }
    }

    fn output_mut(self: Pin<&mut Self>) -> Option<&mut F::Output> {
        // SAFETY: the output is not pinned.
        match unsafe { self.get_unchecked_mut() } {
            MaybeDone::Done(output) => Some(output),
            _ => None,
        }
    }
}

/// What `join` turns a tuple of `IntoFuture`s into.
pub trait IntoJoin {
    type Futures;
    fn into_join(self) -> Self::Futures;
}

/// The futures of a `join!`, polled together; the output is the tuple of their outputs.
pub struct Join<T>(T);

/// The futures of a `try_join!`; the output is `Ok` of the tuple of their `Ok` values, or the
/// first `Err`.
pub struct TryJoin<T>(T);

pub fn join<T: IntoJoin>(futures: T) -> Join<T::Futures> {
    Join(futures.into_join())
}

pub fn try_join<T: IntoJoin>(futures: T) -> TryJoin<T::Futures> {
    TryJoin(futures.into_join())
}

/// A `Result`, as `try_join` sees a future's output.
pub trait TryOutput {
    type Success;
    type Failure;
    fn is_failure(&self) -> bool;
    fn into_result(self) -> Result<Self::Success, Self::Failure>;
}

impl<T, E> TryOutput for Result<T, E> {
    type Success = T;
    type Failure = E;
    fn is_failure(&self) -> bool {
        self.is_err()
    }
    fn into_result(self) -> Result<T, E> {
        self
    }
}

macro_rules! joins {
    ($(($($F:ident $index:tt),+))*) => {$(
        impl<$($F: IntoFuture),+> IntoJoin for ($($F,)+) {
            type Futures = ($(MaybeDone<$F::IntoFuture>,)+);
            fn into_join(self) -> Self::Futures {
                ($(MaybeDone::Running(self.$index.into_future()),)+)
            }
        }

        impl<$($F: Future),+> Future for Join<($(MaybeDone<$F>,)+)> {
            type Output = ($($F::Output,)+);
            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
                // SAFETY: the fields are pinned projections of a pinned tuple, never moved.
                let futures = unsafe { &mut self.get_unchecked_mut().0 };
                let mut done = true;
                $(done &= unsafe { Pin::new_unchecked(&mut futures.$index) }.poll_done(cx);)+
                if !done {
                    return Poll::Pending;
                }
                Poll::Ready(($(unsafe { Pin::new_unchecked(&mut futures.$index) }.take(),)+))
            }
        }

        impl<Failure, $($F: Future),+> Future for TryJoin<($(MaybeDone<$F>,)+)>
        where
            $($F::Output: TryOutput<Failure = Failure>,)+
        {
            type Output = Result<($(<$F::Output as TryOutput>::Success,)+), Failure>;
            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
                // SAFETY: as for `Join`.
                let futures = unsafe { &mut self.get_unchecked_mut().0 };
                let mut done = true;
                $(
                    if unsafe { Pin::new_unchecked(&mut futures.$index) }.poll_done(cx) {
                        // The first failure ends the join (the other futures drop with it).
                        let failed = unsafe { Pin::new_unchecked(&mut futures.$index) }
                            .output_mut()
                            .is_some_and(|output| output.is_failure());
                        if failed {
                            let output = unsafe { Pin::new_unchecked(&mut futures.$index) }.take();
                            if let Err(failure) = output.into_result() {
                                return Poll::Ready(Err(failure));
                            }
                        }
                    } else {
                        done = false;
                    }
                )+
                if !done {
                    return Poll::Pending;
                }
                Poll::Ready(Ok(($(
                    match unsafe { Pin::new_unchecked(&mut futures.$index) }.take().into_result() {
                        Ok(success) => success,
                        Err(_) => unreachable!("lowering: a failure was returned when it came"),
                    },
                )+)))
            }
        }
    )*};
}

joins! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, G 5)
}

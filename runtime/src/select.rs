//! `select!` for the classic lowering. `tokio::select!`, `futures::select!` and
//! `select_biased!` expand to their own polling loop and `.await`, which a classic state
//! machine cannot split into states; the lowering writes an awaited `selectN(..)` instead and
//! keeps each branch's handler as an arm of a `match` in the function's own body, so that a
//! handler's `return`, `?`, `break`, `continue` and `.await` act on the function and its loops
//! exactly as they do in the plain `async fn`.
//!
//! What the future does is what those macros do on each poll: the branches are tried from a
//! random one (or from the first, when biased), each live branch's future is polled, and the
//! first whose output its pattern accepts is the result. A branch whose future completed with
//! an output its pattern refuses is disabled for the rest of this `select!` (tokio); a branch
//! whose precondition was false (tokio) or whose fused future had already terminated
//! (futures) is never polled. When no branch is left, the result is `Disabled`: tokio's `else`,
//! futures' `complete`, or the panic those macros raise when that branch is missing.

use std::cell::Cell;
use std::future::{Future, IntoFuture};
use std::hash::{BuildHasher, RandomState};
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

use futures::future::FusedFuture;

/// Where each poll starts trying the branches.
#[derive(Clone, Copy)]
pub enum Order {
    /// From the first branch, in the order written (`biased;`, `select_biased!`).
    Biased,
    /// From a branch chosen at random on every poll, so that no branch starves.
    Random,
}

/// A check that accepts every output: the patterns of `futures::select!` are irrefutable.
pub fn accept<T>(_: &T) -> bool {
    true
}

/// The futures of a `futures::select!` are fused: a branch whose future has terminated is
/// never polled (this lets a `select!` in a loop skip what already finished).
pub fn live<F: FusedFuture>(future: &F) -> bool {
    !future.is_terminated()
}

thread_local! {
    // xorshift64: a starting branch needs no better randomness, only no bias.
    static RANDOM: Cell<u64> = Cell::new(RandomState::new().hash_one(0x5e1ec7u64) | 1);
}

fn random_below(bound: usize) -> usize {
    RANDOM.with(|state| {
        let mut x = state.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state.set(x);
        (x % bound as u64) as usize
    })
}

macro_rules! selects {
    ($($select:ident $Select:ident $Selected:ident $n:literal ($($F:ident $C:ident $variant:ident $index:tt),+);)*) => {$(
        /// The output of a `select!` of this many branches: the first accepted branch's
        /// output, or `Disabled` when no branch is left.
        pub enum $Selected<$($F),+> {
            $($variant($F),)+
            Disabled,
        }

        /// The future a `select!` of this many branches becomes.
        pub struct $Select<$($F,)+ $($C),+> {
            futures: ($($F,)+),
            checks: ($($C,)+),
            live: [bool; $n],
            order: Order,
        }

        /// A `tokio::select!`: `live` holds the preconditions, evaluated before the futures;
        /// `checks` test each output against its branch's pattern.
        pub fn $select<$($F: IntoFuture,)+ $($C: FnMut(&$F::Output) -> bool),+>(
            live: [bool; $n],
            futures: ($($F,)+),
            checks: ($($C,)+),
            order: Order,
        ) -> $Select<$($F::IntoFuture,)+ $($C),+> {
            $Select { futures: ($(futures.$index.into_future(),)+), checks, live, order }
        }

        impl<$($F: FusedFuture + Unpin),+> $Select<$($F,)+ $(fn(&$F::Output) -> bool),+> {
            /// A `futures::select!`: a future passed by name is polled through `&mut` (it
            /// must be `Unpin`), one whose future has terminated is skipped.
            pub fn fused(futures: ($($F,)+), order: Order) -> Self {
                let live = [$(live(&futures.$index)),+];
                $Select { futures, checks: ($(accept::<$F::Output> as fn(&$F::Output) -> bool,)+), live, order }
            }
        }

        impl<$($F: Future,)+ $($C: FnMut(&$F::Output) -> bool),+> $Select<$($F,)+ $($C),+> {
            /// `futures::select!` with a `default` branch: one poll, with a waker that does
            /// nothing; `None` when no branch is ready.
            pub fn now(self) -> Option<$Selected<$($F::Output),+>> {
                let mut waker_context = Context::from_waker(Waker::noop());
                match pin!(self).poll(&mut waker_context) {
                    Poll::Ready(selected) => Some(selected),
                    Poll::Pending => None,
                }
            }
        }

        impl<$($F: Future,)+ $($C: FnMut(&$F::Output) -> bool),+> Future for $Select<$($F,)+ $($C),+> {
            type Output = $Selected<$($F::Output),+>;

            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
                // SAFETY: the futures are never moved out of the pinned tuple; the checks and
                // flags are not structurally pinned.
                let this = unsafe { self.get_unchecked_mut() };
                let start = match this.order {
                    Order::Biased => 0,
                    Order::Random => random_below($n),
                };
                let mut pending = false;
                for step in 0..$n {
                    // (A macro-made loop: for one branch, the modulo is the identity.)
                    #[allow(clippy::modulo_one)]
                    let branch = (start + step) % $n;
                    if !this.live[branch] {
                        continue;
                    }
                    match branch {
                        $($index => {
                            match unsafe { Pin::new_unchecked(&mut this.futures.$index) }.poll(cx) {
                                Poll::Ready(output) => {
                                    this.live[$index] = false;
                                    if (this.checks.$index)(&output) {
                                        return Poll::Ready($Selected::$variant(output));
                                    }
                                }
                                Poll::Pending => pending = true,
                            }
                        })+
                        _ => unreachable!("lowering: a select! branch out of range"),
                    }
                }
                if pending { Poll::Pending } else { Poll::Ready($Selected::Disabled) }
            }
        }
    )*};
}

selects! {
    select1 Select1 Selected1 1 (A CA _0 0);
    select2 Select2 Selected2 2 (A CA _0 0, B CB _1 1);
    select3 Select3 Selected3 3 (A CA _0 0, B CB _1 1, D CD _2 2);
    select4 Select4 Selected4 4 (A CA _0 0, B CB _1 1, D CD _2 2, E CE _3 3);
    select5 Select5 Selected5 5 (A CA _0 0, B CB _1 1, D CD _2 2, E CE _3 3, G CG _4 4);
    select6 Select6 Selected6 6 (A CA _0 0, B CB _1 1, D CD _2 2, E CE _3 3, G CG _4 4, H CH _5 5);
    select7 Select7 Selected7 7 (A CA _0 0, B CB _1 1, D CD _2 2, E CE _3 3, G CG _4 4, H CH _5 5, I CI _6 6);
    select8 Select8 Selected8 8 (A CA _0 0, B CB _1 1, D CD _2 2, E CE _3 3, G CG _4 4, H CH _5 5, I CI _6 6, J CJ _7 7);
}

//! Another attribute macro on the same function, here tracing's `#[instrument]`, in either
//! order. Above `#[lowering(..)]` it expands first and hands the lowering its output: an
//! `async fn` whose body awaits the original body as an instrumented `async` block, which
//! the classic lowering turns into a state machine like any other (the span is entered on
//! every poll of that block). Below it, it receives the lowering's output: for classic, a
//! plain `fn` returning a `Task`, so the span covers the call, which is the eager start up to
//! the first suspension. Both orders compile and give the plain function's results, events
//! and drops; a subscriber sees the spans each order says.

use std::future::IntoFuture;
use std::sync::{Arc, Mutex};

use lowering::lowering;
use lowering_tests::*;
use tracing::span;
use tracing::subscriber::Subscriber;

#[tracing::instrument(skip(loud))]
#[lowering(classic)]
async fn above_classic(n: u32, loud: Loud) -> u32 {
    let x = later("x", n).await;
    x + loud.name().len() as u32
}

#[lowering(classic)]
#[tracing::instrument(skip(loud))]
async fn below_classic(n: u32, loud: Loud) -> u32 {
    let x = later("x", n).await;
    x + loud.name().len() as u32
}

#[tracing::instrument(skip(loud))]
#[lowering(runtime)]
async fn above_runtime(n: u32, loud: Loud) -> u32 {
    let x = later("x", n).await;
    x + loud.name().len() as u32
}

#[lowering(runtime)]
#[tracing::instrument(skip(loud))]
async fn below_runtime(n: u32, loud: Loud) -> u32 {
    let x = later("x", n).await;
    x + loud.name().len() as u32
}

#[tracing::instrument(skip(loud))]
async fn plain(n: u32, loud: Loud) -> u32 {
    let x = later("x", n).await;
    x + loud.name().len() as u32
}

/// One test, not two: tracing's callsites cache their subscribers' interest process-wide, and
/// a test running on another thread without a subscriber would make this one's spans vanish.
#[test]
fn both_orders_behave_as_the_plain_function_and_trace_as_they_say() {
    behave_as_the_plain_function();
    what_the_span_covers_in_each_order();
}

fn behave_as_the_plain_function() {
    // The plain function's own outcome, then each order's classic lowering against its
    // runtime lowering, and every lowered function against the plain one.
    let (expected, _) = run(Stop::AtEnd, || plain(1, Loud::new("a")));
    assert_eq!(expected, Outcome::Value(2));
    let above = same_at_every_suspension(|| above_classic(1, Loud::new("a")), || above_runtime(1, Loud::new("a")));
    let below = same_at_every_suspension(|| below_classic(1, Loud::new("a")), || below_runtime(1, Loud::new("a")));
    assert_eq!((above, below), (Outcome::Value(2), Outcome::Value(2)));
    same_at_every_suspension(|| above_classic(1, Loud::new("a")), || plain(1, Loud::new("a")));
    same_at_every_suspension(|| below_classic(1, Loud::new("a")), || plain(1, Loud::new("a")));
    same_at_every_suspension(|| above_runtime(1, Loud::new("a")), || plain(1, Loud::new("a")));
    same_at_every_suspension(|| below_runtime(1, Loud::new("a")), || plain(1, Loud::new("a")));
}

/// Counts span entries by span name: how often the instrumented code ran inside its span.
#[derive(Clone, Default)]
struct Entries(Arc<Mutex<Vec<&'static str>>>, Arc<Mutex<Vec<&'static str>>>);

impl Subscriber for Entries {
    fn register_callsite(&self, _: &'static tracing::Metadata<'static>) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::always()
    }
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attributes: &span::Attributes<'_>) -> span::Id {
        let mut names = self.1.lock().unwrap();
        names.push(attributes.metadata().name());
        span::Id::from_u64(names.len() as u64)
    }
    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}
    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, id: &span::Id) {
        let name = self.1.lock().unwrap()[id.into_u64() as usize - 1];
        self.0.lock().unwrap().push(name);
    }
    fn exit(&self, _: &span::Id) {}
}

fn entries<F: IntoFuture>(call: impl FnOnce() -> F) -> Vec<&'static str> {
    let subscriber = Entries::default();
    let seen = subscriber.0.clone();
    tracing::subscriber::with_default(subscriber, || {
        // A callsite first reached without a subscriber (another test of this binary, on
        // another thread) caches "never interested": ask again now that one is set.
        tracing::callsite::rebuild_interest_cache();
        run(Stop::AtEnd, call);
    });
    let seen = seen.lock().unwrap().clone();
    seen
}

fn what_the_span_covers_in_each_order() {
    // Above: the span is entered on every poll of the instrumented body and when it drops,
    // as for the plain function (three times: the body suspends once).
    assert_eq!(entries(|| plain(1, Loud::new("a"))), ["plain"; 3]);
    assert_eq!(entries(|| above_classic(1, Loud::new("a"))), ["above_classic"; 3]);
    assert_eq!(entries(|| above_runtime(1, Loud::new("a"))), ["above_runtime"; 3]);
    // Below, runtime: the lowering left an `async fn`, which `#[instrument]` instruments as usual.
    assert_eq!(entries(|| below_runtime(1, Loud::new("a"))), ["below_runtime"; 3]);
    // Below, classic: `#[instrument]` sees a plain `fn` returning a `Task`; the span covers the
    // call (the eager start up to the first suspension), once.
    assert_eq!(entries(|| below_classic(1, Loud::new("a"))), ["below_classic"]);
}

//! Closures and async blocks that use a field of a local by value: since edition 2021 they
//! capture that field alone (`v.b`, not `v`), which moves into them when they are made and
//! drops with them if they never run, before the rest of `v`. Under the classic lowering the
//! local lives in the state machine and the field is taken when the closure or block is made,
//! as Rust does; compared with the plain `async fn`, dropped at every suspension included.
//! Also locals that such code both assigns and uses by value: borrowed if they are `Copy`,
//! taken otherwise, as rustc decides.

use lowering_tests::fuzz::*;
use lowering_tests::*;

pub struct Session {
    pub label: Loud,
    pub count: u32,
}

differential! {
    /// Dropped while the block waits: the block's field drops before the rest of the pair.
    pub async fn block_awaited_at_once() -> u32 {
        let pair = Pair { a: Loud::new("a"), b: Loud::new("b") };
        async {
            later("inside", 0u32).await;
            consume(pair.b)
        }
        .await
    }

    /// Made, then dropped unpolled: it takes `pair.b.a` with it; `pair.b.b` it only borrows.
    pub async fn block_dropped_before_it_runs() -> u32 {
        let pair = Pair { a: Loud::new("a"), b: Pair { a: Loud::new("ba"), b: Loud::new("bb") } };
        let pending = async { consume(pair.b.a) + weigh(&pair.b.b) };
        later("made", 0u32).await;
        drop(pending);
        later("dropped", 0u32).await;
        weigh(&pair.a)
    }

    /// A closure that moves a field: the rest stays usable, and drops without it.
    pub async fn closure_moves_a_field() -> u32 {
        let pair = Pair { a: Loud::new("a"), b: Loud::new("b") };
        let take = || consume(pair.b);
        later("between", 0u32).await;
        weigh(&pair.a) + take()
    }

    /// Blocks inside blocks: the inner one's field is the outer one's capture too.
    pub async fn nested_blocks() -> u32 {
        let pair = Pair { a: Loud::new("a"), b: Pair { a: Loud::new("ba"), b: Loud::new("bb") } };
        let first = &pair.a;
        let total = async {
            let inner = async { consume(pair.b.a) };
            later("inner", 0u32).await;
            inner.await + consume(pair.b.b)
        }
        .await;
        total + weigh(first)
    }

    /// The whole local named inside as well: the block borrows it all (no field is taken).
    pub async fn whole_local_named_too() -> u32 {
        let pair = Pair { a: Loud::new("a"), b: Loud::new("b") };
        let first = &pair.a;
        let seen = async {
            later("inside", 0u32).await;
            let whole = &pair;
            weigh(&whole.a)
        }
        .await;
        seen + weigh(first) + consume(pair.b)
    }

    /// A block that moves one field and changes another (a `Copy` one, which Rust's
    /// block borrows mutably): the change shows after the block.
    pub async fn block_changes_a_field(label: Loud, count: u32) -> u32 {
        let mut session = Session { label, count };
        let taken = async {
            session.count += 1;
            later("inside", 0u32).await;
            consume(session.label) + session.count
        }
        .await;
        taken + session.count
    }

    /// A block that assigns a local and moves it takes it when it is made (it is not
    /// `Copy`): dropped unpolled, it drops the local with it, before the next await.
    pub async fn block_assigns_and_moves_a_local(c: bool) -> u32 {
        let mut label = Loud::new("label");
        let pending = async {
            if c {
                label = later("assign", Loud::new("new")).await;
            }
            consume(label)
        };
        later("made", 0u32).await;
        drop(pending);
        later("dropped", 1u32).await
    }

    /// The same, awaited: the old value drops where the block assigns it.
    pub async fn block_assigns_and_moves_a_local_awaited(mut label: Loud, c: bool) -> u32 {
        let taken = async {
            if c {
                label = later("assign", Loud::new("new")).await;
            }
            later("inside", 0u32).await;
            consume(label)
        }
        .await;
        later("after", taken).await
    }

    /// A `Copy` local that a block assigns and reads by value: the block borrows it, so the
    /// function sees the change.
    pub async fn block_assigns_a_copy_local(start: u32) -> u32 {
        let mut count = start;
        let read = async {
            count = later("assign", count + 1).await;
            count * 10
        }
        .await;
        read + count
    }

    /// A closure that assigns a local and moves it: taken when the closure is made, dropped
    /// with it if it is never called.
    pub async fn closure_assigns_and_moves_a_local(call: bool) -> u32 {
        let mut label = Loud::new("label");
        let replace = || {
            let old = weigh(&label);
            label = Loud::new("new");
            old + consume(label)
        };
        later("made", 0u32).await;
        let value = if call { replace() } else { 0 };
        later("after", value).await
    }

    /// A block that moves `pair.a` on a path it does not take, then binds a `pair` of its
    /// own: the field is still the block's capture (taken when it is made, dropped with it,
    /// before `pair.b`), and the inner `pair` is a local of the block.
    pub async fn block_field_beside_a_hiding_binding(take: bool) -> u32 {
        let pair = Pair { a: Loud::new("a"), b: Loud::new("b") };
        let seen = async {
            let first = if take { consume(pair.a) } else { 0 };
            let pair = Pair { a: Loud::new("inner a"), b: Loud::new("inner b") };
            later("inside", 0u32).await;
            first + weigh(&pair.a) + consume(pair.b)
        }
        .await;
        later("after", seen).await + weigh(&pair.b)
    }

    /// The same in a closure, whose parameter hides the local in one arm only.
    pub async fn closure_field_beside_a_hiding_parameter(call: bool) -> u32 {
        let pair = Pair { a: Loud::new("a"), b: Loud::new("b") };
        let take = |other: Option<Pair<Loud, Loud>>| match other {
            Some(pair) => consume(pair.a),
            None => consume(pair.a),
        };
        later("made", 0u32).await;
        let value = if call { take(None) } else { drop(take); 7 };
        later("dropped", value).await + weigh(&pair.b)
    }

    /// A field of the receiver by value (a copy) in a block of a `&mut self` method.
    pub async fn from_self(session: &mut Session) -> u32 {
        let counted = async { later("count", session.count).await + 1 }.await;
        session.count = counted;
        weigh(&session.label) + session.count
    }
}

#[test]
fn a_block_dropped_while_it_waits_drops_its_field_first() {
    let outcome = same_at_every_suspension(classic::block_awaited_at_once, runtime::block_awaited_at_once);
    assert_eq!(outcome, Outcome::Value(1));
    let (_, log) = run(Stop::AfterSuspensions(1), classic::block_awaited_at_once);
    assert_eq!(log, ["new a", "new b", "suspend inside", "drop b", "drop a"]);
}

#[test]
fn a_block_dropped_before_it_runs_takes_its_field_along() {
    let outcome =
        same_at_every_suspension(classic::block_dropped_before_it_runs, runtime::block_dropped_before_it_runs);
    assert_eq!(outcome, Outcome::Value(1));
}

#[test]
fn a_closure_moving_a_field() {
    same_at_every_suspension(classic::closure_moves_a_field, runtime::closure_moves_a_field);
}

#[test]
fn nested_blocks() {
    same_at_every_suspension(classic::nested_blocks, runtime::nested_blocks);
}

#[test]
fn a_block_naming_the_whole_local() {
    same_at_every_suspension(classic::whole_local_named_too, runtime::whole_local_named_too);
}

#[test]
fn a_field_of_a_mut_reference() {
    let drive = |classic: bool| {
        take_log();
        let mut session = Session { label: Loud::new("label"), count: 4 };
        let value = if classic {
            futures::executor::block_on(classic::from_self(&mut session))
        } else {
            futures::executor::block_on(runtime::from_self(&mut session))
        };
        (value, session.count, take_log())
    };
    let (classic, runtime) = (drive(true), drive(false));
    assert_eq!(classic, runtime);
    assert_eq!(classic.0, 10);
}

#[test]
fn a_block_that_moves_one_field_and_changes_another() {
    let outcome = same_at_every_suspension(
        || classic::block_changes_a_field(Loud::new("label"), 2),
        || runtime::block_changes_a_field(Loud::new("label"), 2),
    );
    assert_eq!(outcome, Outcome::Value(11));
}

#[test]
fn a_block_that_assigns_and_moves_a_local_takes_it() {
    for c in [true, false] {
        same_at_every_suspension(
            || classic::block_assigns_and_moves_a_local(c),
            || runtime::block_assigns_and_moves_a_local(c),
        );
    }
    let (_, log) = run(Stop::AtEnd, || classic::block_assigns_and_moves_a_local(false));
    assert_eq!(log, ["new label", "suspend made", "resume made", "drop label", "suspend dropped", "resume dropped"]);
}

#[test]
fn an_awaited_block_that_assigns_and_moves_a_local() {
    for c in [true, false] {
        same_at_every_suspension(
            || classic::block_assigns_and_moves_a_local_awaited(Loud::new("label"), c),
            || runtime::block_assigns_and_moves_a_local_awaited(Loud::new("label"), c),
        );
    }
}

#[test]
fn a_block_that_assigns_a_copy_local_borrows_it() {
    let outcome =
        same_at_every_suspension(|| classic::block_assigns_a_copy_local(4), || runtime::block_assigns_a_copy_local(4));
    assert_eq!(outcome, Outcome::Value(55));
}

#[test]
fn a_closure_that_assigns_and_moves_a_local_takes_it() {
    for call in [true, false] {
        same_at_every_suspension(
            || classic::closure_assigns_and_moves_a_local(call),
            || runtime::closure_assigns_and_moves_a_local(call),
        );
    }
}

#[test]
fn a_field_capture_beside_a_binding_that_hides_its_local() {
    for take in [true, false] {
        same_at_every_suspension(
            || classic::block_field_beside_a_hiding_binding(take),
            || runtime::block_field_beside_a_hiding_binding(take),
        );
    }
    for call in [true, false] {
        let outcome = same_at_every_suspension(
            || classic::closure_field_beside_a_hiding_parameter(call),
            || runtime::closure_field_beside_a_hiding_parameter(call),
        );
        assert_eq!(outcome, Outcome::Value(if call { 2 } else { 8 }));
    }
}

/// `move` closures and `async move` blocks that name a local only through its fields: since
/// edition 2021 they take those fields alone (a copy of a `Copy` one), and the rest of the
/// local stays where it is, to drop where its scope ends. The classic lowering once moved
/// the whole local into them (it dropped the rest early, and a later read of a field hit its
/// own "a local read after it was moved out"); it now takes the fields, as `captures.rs`
/// takes those of code without `move`.
mod moved_fields {
    use super::*;

    differential! {
        /// A `Copy` field taken by a closure kept across an await: the rest drops at the end.
        pub async fn copy_field_kept_across_an_await() -> u32 {
            let v = (7u32, Loud::new("z"));
            let f = move || v.0;
            later("a", ()).await;
            f()
        }

        /// The local read again after the closure took a copy of one field, in a loop that
        /// awaits.
        pub async fn field_read_again_in_a_loop() -> u32 {
            let v = (Ok::<u32, String>(1), 2u32);
            let f = move || v.1;
            let x = loop {
                if f() == 2 {
                    break v.1;
                }
                now("a", 5u32).await;
            };
            x
        }

        /// A field that is not `Copy` moves into the closure; the other stays, and is read
        /// after an await.
        pub async fn owned_field_moved_into_a_closure(call: bool) -> u32 {
            let pair = Pair { a: Loud::new("a"), b: Loud::new("b") };
            let f = move || consume(pair.b);
            later("made", 0u32).await;
            let kept = weigh(&pair.a);
            if call { f() + kept } else { kept }
        }

        /// An `async move` block that takes one field, awaited later; the other field is
        /// borrowed across its await.
        pub async fn async_move_block_takes_a_field() -> u32 {
            let pair = Pair { a: Loud::new("a"), b: Loud::new("b") };
            let pending = async move { consume(pair.b) + later("inside", 1u32).await };
            let seen = weigh_later(&pair.a).await;
            pending.await + seen
        }

        /// A path inside another (`v.b.a` beside `v.b`) takes the outer one; a local named
        /// whole as well is taken whole.
        pub async fn nested_paths_and_a_whole_local(call: bool) -> u32 {
            let v = Pair { a: Loud::new("a"), b: Pair { a: Loud::new("ba"), b: Loud::new("bb") } };
            let w = Pair { a: Loud::new("wa"), b: Loud::new("wb") };
            let f = move || {
                let n = weigh(&v.b.a) + weigh(&v.b) * 0 + weigh(&w.a);
                drop(w);
                n
            };
            later("made", 0u32).await;
            let kept = weigh(&v.a);
            if call { f() + kept } else { kept }
        }
    }

    fn weigh(pair: &impl Weighed) -> u32 {
        pair.weight()
    }

    pub trait Weighed {
        fn weight(&self) -> u32;
    }

    impl Weighed for Loud {
        fn weight(&self) -> u32 {
            lowering_tests::fuzz::weigh(self)
        }
    }

    impl<A: Weighed, B: Weighed> Weighed for Pair<A, B> {
        fn weight(&self) -> u32 {
            self.a.weight() + self.b.weight()
        }
    }

    #[test]
    fn fields_taken_by_move_code() {
        assert_eq!(
            same_at_every_suspension(
                classic::copy_field_kept_across_an_await,
                runtime::copy_field_kept_across_an_await
            ),
            Outcome::Value(7)
        );
        assert_eq!(
            same_at_every_suspension(classic::field_read_again_in_a_loop, runtime::field_read_again_in_a_loop),
            Outcome::Value(2)
        );
        for call in [true, false] {
            same_at_every_suspension(
                || classic::owned_field_moved_into_a_closure(call),
                || runtime::owned_field_moved_into_a_closure(call),
            );
            same_at_every_suspension(
                || classic::nested_paths_and_a_whole_local(call),
                || runtime::nested_paths_and_a_whole_local(call),
            );
        }
        same_at_every_suspension(classic::async_move_block_takes_a_field, runtime::async_move_block_takes_a_field);
    }
}

/// A `move` closure that takes a field of a `mut self` kept in place and changes it through
/// `&mut self` methods (a shutdown handler's `collect_errors`, tokio-graceful-shutdown 0.20,
/// `Toplevel::handle_shutdown_requests`): the field it takes is a `mut` capture, as the plain
/// closure's is (E0596 "cannot borrow as mutable" under classic before).
mod move_closure_mutating_a_taken_field {
    use super::*;

    differential! {
        pub struct Toplevel {
            pub errors: Vec<Loud>,
            pub name: Loud,
        }

        impl Toplevel {
            pub async fn handle_requests(mut self, fail: bool) -> Result<u32, Vec<Loud>> {
                let collect_errors = move || {
                    let mut errors = vec![];
                    self.errors.push(Loud::new("closing"));
                    while let Some(e) = self.errors.pop() {
                        errors.push(e);
                    }
                    drop(self.errors);
                    errors
                };
                let name = &self.name;
                later("join", ()).await;
                let n = weigh(name);
                let errors = collect_errors();
                if fail { Err(errors) } else { Ok(n + errors.len() as u32) }
            }
        }

        pub async fn local_with_fields(mut pair: Pair<Loud, Loud>, n: u32) -> u32 {
            let take = move || {
                pair.a.0.push_str(" changed");
                pair.a
            };
            let held = &pair.b;
            later("a", n).await;
            weigh(held) + weigh(&take())
        }
    }

    #[test]
    fn the_taken_field_is_changed_inside_the_closure() {
        for fail in [false, true] {
            same_at_every_suspension(
                || {
                    let errors = vec![Loud::new("e1"), Loud::new("e2")];
                    classic::Toplevel { errors, name: Loud::new("top") }.handle_requests(fail)
                },
                || {
                    let errors = vec![Loud::new("e1"), Loud::new("e2")];
                    runtime::Toplevel { errors, name: Loud::new("top") }.handle_requests(fail)
                },
            );
        }
        same_at_every_suspension(
            || classic::local_with_fields(Pair { a: Loud::new("a"), b: Loud::new("b") }, 2),
            || runtime::local_with_fields(Pair { a: Loud::new("a"), b: Loud::new("b") }, 2),
        );
    }
}

/// Code that takes two or more fields of one local drops them, when it is dropped without
/// having run, in the order the local's type declares them (rustc sorts a closure's captures
/// of one local by field), whatever order the code names them in. For a tuple the lowering
/// knows that order (`.0` before `.1`) and keeps it: it takes the fields into one tuple, whose
/// elements rustc captures one by one as it captured the local's. For named fields it cannot
/// know it (the macro sees no struct), and they drop in the order the code names them: the
/// README's "Where the lowerings differ".
mod fields_taken_in_another_order {
    use lowering_tests::fuzz::*;
    use lowering_tests::*;

    differential! {
        pub async fn block_names_the_second_element_first() -> u32 {
            let pair = (Loud::new("first"), Loud::new("second"));
            async {
                later("inside", 0u32).await;
                consume(pair.1) + consume(pair.0)
            }
            .await
        }

        pub async fn closure_dropped_unrun(call: bool) -> u32 {
            let pair = (Loud::new("first"), Loud::new("second"));
            let take = move || consume(pair.1) + consume(pair.0);
            later("made", 0u32).await;
            let n = if call { take() } else { drop(take); 7 };
            later("after", n).await
        }

        /// Nested elements and another local between them: the local's elements drop in
        /// their order, the other local where the code first names it.
        pub async fn nested_elements_around_another_local() -> u32 {
            let nested = ((Loud::new("0.0"), Loud::new("0.1")), Loud::new("1"));
            let other = Loud::new("other");
            let pending = async move {
                later("inside", 0u32).await;
                consume(nested.1) + consume(other) + consume(nested.0.1) + consume(nested.0.0)
            };
            later("made", 0u32).await;
            pending.await
        }

        /// Named fields named `b` first: under classic they drop in that order.
        pub async fn named_fields_b_first() -> u32 {
            let pair = Pair { a: Loud::new("a"), b: Loud::new("b") };
            async {
                later("inside", 0u32).await;
                consume(pair.b) + consume(pair.a)
            }
            .await
        }
    }

    #[test]
    fn elements_drop_in_their_order_at_every_suspension() {
        let outcome = same_at_every_suspension(
            classic::block_names_the_second_element_first,
            runtime::block_names_the_second_element_first,
        );
        assert_eq!(outcome, Outcome::Value(11));
        let (_, log) = run(Stop::AfterSuspensions(1), classic::block_names_the_second_element_first);
        assert_eq!(log, ["new first", "new second", "suspend inside", "drop first", "drop second"]);
        for call in [false, true] {
            same_at_every_suspension(|| classic::closure_dropped_unrun(call), || runtime::closure_dropped_unrun(call));
        }
        same_at_every_suspension(
            classic::nested_elements_around_another_local,
            runtime::nested_elements_around_another_local,
        );
    }

    #[test]
    fn named_fields_drop_in_the_order_the_code_names_them() {
        let (classic, classic_log) = run(Stop::AfterSuspensions(1), classic::named_fields_b_first);
        let (plain, plain_log) = run(Stop::AfterSuspensions(1), runtime::named_fields_b_first);
        assert_eq!(classic, plain);
        assert_eq!(plain_log, ["new a", "new b", "suspend inside", "drop a", "drop b"]);
        assert_eq!(classic_log, ["new a", "new b", "suspend inside", "drop b", "drop a"]);
    }
}

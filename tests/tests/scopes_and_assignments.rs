//! Where values live and die around awaits: statement temporaries, assignments to locals that
//! may have moved, shadowing and pattern bindings that hide live locals. Each function runs
//! under both lowerings, to the end and dropped at every suspension, and the events (drops
//! included) must match.

// The functions keep what their shapes need, read or not.
#![allow(unused_variables, unused_assignments)]

use lowering_tests::fuzz::*;
use lowering_tests::*;

differential! {
    // Destructuring assignments (a TFTP server's read loop): locals declared without a value
    // and assigned by `(buf, last) = f().await?;`, in a loop too. The lowering counted the
    // names on the left as reads (E0425 where they were not declared yet).
    pub async fn destructured_reads(n: u32) -> Result<u32, String> {
        let mut window = Vec::new();
        let mut buf: Loud;
        let mut last: bool;
        (buf, last) = later("fill", Ok::<_, String>((Loud::new("b0"), n > 2))).await?;
        window.push(buf);
        while !last {
            (buf, last) = later("fill", (Loud::new("b"), window.len() as u32 >= n)).await;
            window.push(buf);
        }
        Ok(window.iter().map(weigh).sum())
    }

    // Every assignee shape, over locals that hold values (the old ones drop as Rust drops
    // them), and one kept in place (borrowed across an await) among them.
    pub async fn destructured_shapes(n: u32) -> u32 {
        let mut a = Loud::new("a0");
        let mut b = 0u32;
        let r = &a;
        later("hold", weigh(r)).await;
        (a, b) = (Loud::new("a1"), n);
        later("after tuple", ()).await;
        let mut c = Loud::new("c0");
        [c, _] = [Loud::new("c1"), Loud::new("dropped")];
        later("after array", ()).await;
        let mut d = 0u32;
        Pair { a: d, .. } = Pair { a: n + 1, b: Loud::new("rest") };
        (a, (b, _)) = later("nested", (Loud::new("a2"), (b + d, 9u32))).await;
        weigh(&a) + b + weigh(&c)
    }

    // ----- temporaries live to the end of their statement ---------------------------------

    pub async fn temporary_in_an_operand_before_an_await() -> u32 {
        let x = mix(weigh(&Loud::new("t")), later("a", 1u32).await);
        note("x", x);
        x
    }

    pub async fn temporary_in_an_awaited_operand() -> u32 {
        later("a", weigh(&Loud::new("t"))).await + 1
    }

    pub async fn temporary_in_a_for_iterable() -> u32 {
        let mut total = 0;
        for i in 0..weigh(&Loud::new("range")) % 4 {
            total += later("a", i).await;
        }
        total
    }

    pub async fn temporary_in_a_match_scrutinee(c: bool) -> u32 {
        match weigh(&Loud::new("scrutinee")) > 100 || c {
            true => later("yes", 1u32).await,
            false => later("no", 2u32).await,
        }
    }

    pub async fn tuple_projection_keeps_the_rest(v: Loud) -> u32 {
        let x = (3u32, v, Loud::new("other")).0 + later("a", 1u32).await;
        note("after", x);
        x
    }

    pub async fn struct_projection_keeps_the_rest() -> u32 {
        consume(Pair { a: Loud::new("a"), b: Loud::new("b") }.b) + later("a", 1u32).await
    }

    pub async fn method_chain_on_a_temporary() -> usize {
        Loud::new("chain").name().len() + later("a", 1usize).await
    }

    pub async fn condition_temporaries_end_with_the_condition(c: bool) -> u32 {
        if (Loud::new("cond"), 2u32).1 == later("a", if c { 2u32 } else { 3u32 }).await {
            later("then", 1u32).await
        } else {
            0
        }
    }

    pub async fn lazy_operands_are_scopes_of_their_own(c: bool) -> bool {
        let b = (weigh(&Loud::new("left")) == 0 || c) && later("a", true).await;
        note("b", u32::from(b));
        b
    }

    pub async fn unbound_parts_drop_before_the_temporaries() -> u32 {
        let (x, _) = now("a", ((weigh(&Loud::new("t")), Loud::new("skipped"), 3u32).2, Loud::new("unbound"))).await;
        x
    }

    pub async fn operands_drop_before_statement_temporaries(p: Loud) -> u32 {
        note("n", consume((p, [2u32, weigh(&Loud::new("t")), 3u32][(later("a", 7u32).await % 3) as usize]).0));
        4
    }

    // ----- assignments ----------------------------------------------------------------------

    pub async fn assigning_a_copy_value_moved_on_one_path(mut p: u32) -> u32 {
        match p {
            4 | 13 => {}
            _ => {
                later("a", p).await;
            }
        };
        p = 7;
        later("b", p).await
    }

    pub async fn assigning_a_loud_moved_on_one_path(c: bool) -> u32 {
        let mut v = Loud::new("v1");
        if c {
            consume(later("a", v).await);
        }
        note("before", 1);
        v = Loud::new("v2");
        note("after", 2);
        later("b", 1u32).await;
        weigh(&v)
    }

    pub async fn assigning_in_a_loop_after_a_move(mut p: Loud) -> u32 {
        consume(p);
        let mut k = 0u32;
        loop {
            if k == 3 {
                break now("a", k).await;
            }
            k += 1;
            p = Pair { a: Loud::new("a"), b: Loud::new("b") }.b;
        }
    }

    pub async fn deferred_initialization_without_an_await(c: bool) -> u32 {
        let x;
        later("a", 1u32).await;
        if c {
            x = Loud::new("x1");
        } else {
            x = Loud::new("x2");
        }
        later("b", 1u32).await;
        weigh(&x)
    }

    pub async fn a_block_that_always_returns(p: u32) -> Result<u32, String> {
        let _ = ({
            {
                now("a", 0u32).await;
                return Ok(p);
            };
            #[allow(unreachable_code)]
            0u32
        })
        .min(0u32);
        #[allow(unreachable_code)]
        Ok(0)
    }

    pub async fn let_wildcard_of_a_place_moves_nothing(p: Loud) -> u32 {
        for i in 0..2u32 {
            let _ = p;
            let p = i;
            note("inner", p);
        }
        later("a", 4u32).await
    }

    // ----- shadowing ------------------------------------------------------------------------

    pub async fn shadowing_in_the_same_scope_before_a_split(c: bool, p: Loud) -> u32 {
        let v = Loud::new("v");
        let v = 3u32;
        if c {
            consume(p);
        } else {
            note("else", 1);
        }
        note("v", v);
        v
    }

    pub async fn shadowed_local_keeps_its_drop_order(p1: Loud, p3: Loud) -> Result<u32, String> {
        let (p1, _) = now("a", (now("b", 7u32).await, Loud::new("unbound"))).await;
        let x = weigh(&Loud::new("t")) + p1;
        later("c", check("c", x)?).await;
        Err(format!("end {}", weigh(&p3)))
    }

    pub async fn shadowing_a_moved_local(c: bool) -> u32 {
        let v = Loud::new("outer");
        if c {
            consume(v);
        }
        {
            let v = later("a", 2u32).await;
            note("v", v);
        }
        3
    }

    pub async fn shadowing_in_a_let_initializer(p: Result<u32, String>) -> Result<u32, String> {
        later("a", 1u32).await;
        let p = mix(1, 2).min('inner: {
            let p = ev("p", p)?;
            break 'inner p;
        });
        later("b", 1u32).await;
        Ok(p)
    }

    pub async fn shadowing_early_exit(c: bool) -> Result<u32, String> {
        let v = Loud::new("outer");
        {
            let v = Loud::new("inner");
            later("a", 1u32).await;
            if c {
                return Ok(weigh(&v));
            }
        }
        later("b", 1u32).await;
        Ok(weigh(&v))
    }

    pub async fn match_arm_hides_a_live_local(c: bool) -> u32 {
        let x = Loud::new("outer");
        match if c { Some(3u32) } else { None } {
            Some(x) if x > 1 => {
                later("a", x).await;
            }
            _ => {}
        }
        weigh(&x)
    }

    pub async fn for_binding_hides_a_live_local() -> u32 {
        let x = Loud::new("outer");
        for x in [Loud::new("a"), Loud::new("b")] {
            later("a", weigh(&x)).await;
        }
        weigh(&x)
    }

    pub async fn if_let_hides_a_live_local(c: bool) -> u32 {
        let mut x = Loud::new("outer");
        if let Some(mut x) = if c { Some(3u32) } else { None } {
            x += later("a", x).await;
            note("x", x);
        }
        x = Loud::new("again");
        weigh(&x)
    }
    // ----- fields used by value ------------------------------------------------------------

    pub async fn copy_field_read_keeps_the_rest() -> u32 {
        let pair = (3u32, Loud::new("b"));
        let n = pair.0;
        let m = later("a", 1u32).await;
        note("after", m);
        n + m
    }

    pub async fn copy_field_read_in_a_loop(c: u32) -> u32 {
        let pair = Pair { a: 3u32, b: Loud::new("b") };
        let mut total = 0;
        for i in 0..c {
            total += later("a", pair.a).await;
            total += pair.a;
        }
        total
    }

    pub async fn copy_field_read_on_one_branch(c: bool) -> u32 {
        let pair = Pair { a: 3u32, b: Loud::new("b") };
        let n = if c { pair.a } else { 1 };
        later("a", n).await
    }

    pub async fn field_moved_after_the_last_await() -> u32 {
        let pair = Pair { a: Loud::new("a"), b: Loud::new("b") };
        let n = later("a", 1u32).await;
        consume(pair.a) + n
    }

    pub async fn copy_field_of_a_parameter(p: Pair<u32, Loud>) -> u32 {
        let n = p.a + later("a", 1u32).await;
        let m = p.a;
        later("b", m + n).await
    }

    pub async fn tuple_pattern_copies_a_part() -> u32 {
        let pair = (3u32, Loud::new("rest"));
        let (n, _) = pair;
        let m = later("a", n).await;
        note("after", m);
        m
    }

    pub async fn struct_pattern_copies_a_part(p: Pair<u32, Loud>) -> u32 {
        let Pair { a, .. } = p;
        let m = later("a", a).await;
        note("after", m);
        m
    }

    pub async fn pattern_moves_a_part_after_the_last_await() -> u32 {
        let pair = (Loud::new("a"), Loud::new("b"));
        let m = later("a", 1u32).await;
        let (a, _) = pair;
        consume(a) + m
    }

    pub async fn match_on_a_local_binds_a_part(c: u32) -> u32 {
        let pair = (c, Loud::new("rest"));
        let n = match pair {
            (0, _) => 0,
            (x, _) => x,
        };
        later("a", n).await
    }

    pub async fn field_reads_in_a_loop_under_a_shadowing_let(n: u32) -> u32 {
        let p = (1u32, Loud::new("p"));
        let mut t = 0;
        for i in 0..n {
            let p = (p.0 + i, Loud::new("inner"));
            t += later("a", p.0).await;
        }
        t + p.0
    }

    pub async fn field_moved_then_the_whole_local_assigned(c: bool) -> u32 {
        let mut p = (1u32, Loud::new("p"));
        if c {
            consume(p.1);
            p = (2, Loud::new("q"));
        }
        later("a", p.0).await
    }

    pub async fn nested_field_read(p: Pair<Pair<u32, Loud>, Loud>) -> u32 {
        let x = p.a.a;
        later("a", x).await + weigh(&p.b)
    }

    // ----- locals that hold nothing to drop ------------------------------------------------

    pub async fn closure_reading_a_field_before_an_await() -> u32 {
        let pair = (3u32, Loud::new("rest"));
        let f = || pair.0 + 1;
        let n = f();
        later("a", n).await
    }

    pub async fn closure_borrowing_a_parameter_before_an_await(offset: u32) -> u32 {
        let f = |x: u32| x + offset;
        let n = f(1);
        later("a", n).await + offset
    }

    pub async fn iterator_not_used_after_an_await(v: Vec<u32>) -> u32 {
        let mut it = v.iter();
        let first = it.next().copied().unwrap_or(0);
        later("a", first).await
    }

    pub async fn assignments_in_both_branches_of_an_operand(c: bool) -> u32 {
        let l;
        let v = mix(
            if c {
                l = Loud::new("x");
                1
            } else {
                l = Loud::new("y");
                2
            },
            later("a", 3u32).await,
        );
        v + weigh(&l)
    }

    pub async fn shadowing_in_a_loop_left_by_break(n: u32) -> u32 {
        let x = Loud::new("outer");
        let mut i = 0;
        loop {
            let x = later("a", i).await;
            if x >= n {
                break;
            }
            i += 1;
        }
        weigh(&x) + i
    }

    pub async fn plain_for_assigns_a_moved_local(n: u32) -> u32 {
        let mut p = Loud::new("p");
        consume(p);
        for i in 0..n {
            p = Loud::new("z");
        }
        later("a", n).await
    }

    pub async fn plain_for_moves_a_local_then_breaks(n: u32) -> u32 {
        let p = Loud::new("p");
        for i in 0..n {
            if i == 5 {
                consume(p);
                break;
            }
        }
        later("a", n).await
    }

    // ----- moves on one path of an operand --------------------------------------------------

    pub async fn move_in_a_branch_inside_an_operand(c: bool) -> u32 {
        let p = Loud::new("p");
        let v = if c { consume(p) } else { 0 } + 1;
        let m = later("a", v).await;
        note("after", m);
        m
    }

    pub async fn move_in_a_match_arm_inside_an_argument(n: u32) -> u32 {
        let p = Loud::new("p");
        note("n", consume(match n {
            0 => Loud::new("zero"),
            _ => p,
        }));
        later("a", n).await
    }

    pub async fn move_on_the_right_of_and(c: bool) -> bool {
        let p = Loud::new("p");
        let b = c && consume(p) > 0;
        later("a", b).await
    }

    /// What the `else` of a `let .. else` moves or assigns is not so after the `let`: the
    /// block leaves. `p` is never named again, and still drops at the end.
    #[allow(clippy::self_assignment)]
    pub async fn assigned_to_itself_in_a_let_else(c: u32, mut p: Loud) {
        let Ok(v) = check("c", c) else {
            p = p;
            panic!("never {}", weigh(&p));
        };
        later("a", v).await;
    }

    /// `v` moved (into the tuple a hiding `let` binds), then assigned in a `let .. else` block
    /// that returns: the block overwrites the value before anything reads it, so the moved
    /// value is not read there, and no state saves it.
    pub async fn moved_then_assigned_in_a_let_else_that_returns(c: Result<u32, String>) -> u32 {
        let mut v = later("v", Loud::new("v")).await;
        let n = {
            let (v, w) = now("pair", (v, Loud::new("w"))).await;
            weigh(&w)
        };
        later("between", 1u32).await;
        let Ok(value) = c else {
            v = Loud::new("new");
            return n;
        };
        value
    }

    /// A `let .. else` that hides a live local (`v`, dropped at the end) drops its
    /// initializer's temporaries before its `else` block runs.
    pub async fn a_hiding_let_else_drops_its_temporaries_first(c: u32) -> Result<u32, String> {
        let v = now("first", Loud::new("v")).await;
        let Ok(v) = check("c", weigh(&Loud::new("t")) + c) else {
            note("else", weigh(&Loud::new("e")));
            return Err(String::from("x"));
        };
        now("after", true).await;
        Ok(v)
    }
}

#[test]
fn let_else_blocks_leave() {
    for c in [Ok(1), Err(String::from("e"))] {
        same_at_every_suspension(
            || classic::moved_then_assigned_in_a_let_else_that_returns(c.clone()),
            || runtime::moved_then_assigned_in_a_let_else_that_returns(c.clone()),
        );
    }
    for c in 0..4 {
        same_at_every_suspension(
            || classic::assigned_to_itself_in_a_let_else(c, Loud::new("p")),
            || runtime::assigned_to_itself_in_a_let_else(c, Loud::new("p")),
        );
        same_at_every_suspension(
            || classic::a_hiding_let_else_drops_its_temporaries_first(c),
            || runtime::a_hiding_let_else_drops_its_temporaries_first(c),
        );
    }
}

#[test]
fn temporaries_live_to_the_end_of_their_statement() {
    same_at_every_suspension(
        classic::temporary_in_an_operand_before_an_await,
        runtime::temporary_in_an_operand_before_an_await,
    );
    same_at_every_suspension(classic::temporary_in_an_awaited_operand, runtime::temporary_in_an_awaited_operand);
    same_at_every_suspension(classic::temporary_in_a_for_iterable, runtime::temporary_in_a_for_iterable);
    same_at_every_suspension(classic::struct_projection_keeps_the_rest, runtime::struct_projection_keeps_the_rest);
    same_at_every_suspension(classic::method_chain_on_a_temporary, runtime::method_chain_on_a_temporary);
    same_at_every_suspension(
        classic::unbound_parts_drop_before_the_temporaries,
        runtime::unbound_parts_drop_before_the_temporaries,
    );
    same_at_every_suspension(
        || classic::tuple_projection_keeps_the_rest(Loud::new("v")),
        || runtime::tuple_projection_keeps_the_rest(Loud::new("v")),
    );
    same_at_every_suspension(
        || classic::operands_drop_before_statement_temporaries(Loud::new("p")),
        || runtime::operands_drop_before_statement_temporaries(Loud::new("p")),
    );
    for c in [false, true] {
        same_at_every_suspension(
            || classic::temporary_in_a_match_scrutinee(c),
            || runtime::temporary_in_a_match_scrutinee(c),
        );
        same_at_every_suspension(
            || classic::condition_temporaries_end_with_the_condition(c),
            || runtime::condition_temporaries_end_with_the_condition(c),
        );
        same_at_every_suspension(
            || classic::lazy_operands_are_scopes_of_their_own(c),
            || runtime::lazy_operands_are_scopes_of_their_own(c),
        );
    }
}

#[test]
fn assignments_to_locals_that_may_have_moved() {
    for p in [4, 5] {
        same_at_every_suspension(
            || classic::assigning_a_copy_value_moved_on_one_path(p),
            || runtime::assigning_a_copy_value_moved_on_one_path(p),
        );
    }
    for c in [false, true] {
        same_at_every_suspension(
            || classic::assigning_a_loud_moved_on_one_path(c),
            || runtime::assigning_a_loud_moved_on_one_path(c),
        );
        same_at_every_suspension(
            || classic::deferred_initialization_without_an_await(c),
            || runtime::deferred_initialization_without_an_await(c),
        );
    }
    same_at_every_suspension(
        || classic::assigning_in_a_loop_after_a_move(Loud::new("p")),
        || runtime::assigning_in_a_loop_after_a_move(Loud::new("p")),
    );
    let outcome = same_at_every_suspension(
        || classic::a_block_that_always_returns(3),
        || runtime::a_block_that_always_returns(3),
    );
    assert_eq!(outcome, Outcome::Value(Ok(3)));
    same_at_every_suspension(
        || classic::let_wildcard_of_a_place_moves_nothing(Loud::new("p")),
        || runtime::let_wildcard_of_a_place_moves_nothing(Loud::new("p")),
    );
}

#[test]
fn shadowing_keeps_hidden_locals_and_their_drop_order() {
    for c in [false, true] {
        same_at_every_suspension(
            || classic::shadowing_in_the_same_scope_before_a_split(c, Loud::new("p")),
            || runtime::shadowing_in_the_same_scope_before_a_split(c, Loud::new("p")),
        );
        same_at_every_suspension(|| classic::shadowing_a_moved_local(c), || runtime::shadowing_a_moved_local(c));
        same_at_every_suspension(|| classic::shadowing_early_exit(c), || runtime::shadowing_early_exit(c));
        same_at_every_suspension(
            || classic::match_arm_hides_a_live_local(c),
            || runtime::match_arm_hides_a_live_local(c),
        );
        same_at_every_suspension(|| classic::if_let_hides_a_live_local(c), || runtime::if_let_hides_a_live_local(c));
    }
    same_at_every_suspension(
        || classic::shadowed_local_keeps_its_drop_order(Loud::new("p1"), Loud::new("p3")),
        || runtime::shadowed_local_keeps_its_drop_order(Loud::new("p1"), Loud::new("p3")),
    );
    for p in [Ok(4), Err(String::from("e"))] {
        same_at_every_suspension(
            || classic::shadowing_in_a_let_initializer(p.clone()),
            || runtime::shadowing_in_a_let_initializer(p.clone()),
        );
    }
    same_at_every_suspension(classic::for_binding_hides_a_live_local, runtime::for_binding_hides_a_live_local);
}

#[test]
fn fields_used_by_value_keep_the_rest_of_the_local() {
    same_at_every_suspension(classic::copy_field_read_keeps_the_rest, runtime::copy_field_read_keeps_the_rest);
    for c in 0..3 {
        same_at_every_suspension(|| classic::copy_field_read_in_a_loop(c), || runtime::copy_field_read_in_a_loop(c));
    }
    for c in [false, true] {
        same_at_every_suspension(
            || classic::copy_field_read_on_one_branch(c),
            || runtime::copy_field_read_on_one_branch(c),
        );
    }
    same_at_every_suspension(classic::field_moved_after_the_last_await, runtime::field_moved_after_the_last_await);
    same_at_every_suspension(classic::tuple_pattern_copies_a_part, runtime::tuple_pattern_copies_a_part);
    same_at_every_suspension(
        || classic::struct_pattern_copies_a_part(Pair { a: 1, b: Loud::new("p") }),
        || runtime::struct_pattern_copies_a_part(Pair { a: 1, b: Loud::new("p") }),
    );
    same_at_every_suspension(
        classic::pattern_moves_a_part_after_the_last_await,
        runtime::pattern_moves_a_part_after_the_last_await,
    );
    same_at_every_suspension(
        || classic::copy_field_of_a_parameter(Pair { a: 2, b: Loud::new("p") }),
        || runtime::copy_field_of_a_parameter(Pair { a: 2, b: Loud::new("p") }),
    );
}

#[test]
fn a_move_on_one_path_of_an_operand_keeps_the_other_paths_local() {
    for c in [false, true] {
        same_at_every_suspension(
            || classic::move_in_a_branch_inside_an_operand(c),
            || runtime::move_in_a_branch_inside_an_operand(c),
        );
        same_at_every_suspension(|| classic::move_on_the_right_of_and(c), || runtime::move_on_the_right_of_and(c));
    }
    for n in 0..2 {
        same_at_every_suspension(
            || classic::plain_for_assigns_a_moved_local(n),
            || runtime::plain_for_assigns_a_moved_local(n),
        );
    }
    for n in [0, 3, 7] {
        same_at_every_suspension(
            || classic::plain_for_moves_a_local_then_breaks(n),
            || runtime::plain_for_moves_a_local_then_breaks(n),
        );
    }
    for n in 0..2 {
        same_at_every_suspension(
            || classic::move_in_a_match_arm_inside_an_argument(n),
            || runtime::move_in_a_match_arm_inside_an_argument(n),
        );
    }
}

#[test]
fn parts_of_locals_and_locals_without_destructors() {
    for c in 0..2 {
        same_at_every_suspension(
            || classic::match_on_a_local_binds_a_part(c),
            || runtime::match_on_a_local_binds_a_part(c),
        );
    }
    for n in 0..3 {
        same_at_every_suspension(
            || classic::field_reads_in_a_loop_under_a_shadowing_let(n),
            || runtime::field_reads_in_a_loop_under_a_shadowing_let(n),
        );
    }
    for c in [false, true] {
        same_at_every_suspension(
            || classic::field_moved_then_the_whole_local_assigned(c),
            || runtime::field_moved_then_the_whole_local_assigned(c),
        );
    }
    let nested = || Pair { a: Pair { a: 1, b: Loud::new("ab") }, b: Loud::new("b") };
    same_at_every_suspension(|| classic::nested_field_read(nested()), || runtime::nested_field_read(nested()));
    same_at_every_suspension(
        classic::closure_reading_a_field_before_an_await,
        runtime::closure_reading_a_field_before_an_await,
    );
    same_at_every_suspension(
        || classic::closure_borrowing_a_parameter_before_an_await(3),
        || runtime::closure_borrowing_a_parameter_before_an_await(3),
    );
    same_at_every_suspension(
        || classic::iterator_not_used_after_an_await(vec![4, 5]),
        || runtime::iterator_not_used_after_an_await(vec![4, 5]),
    );
    for c in [false, true] {
        same_at_every_suspension(
            || classic::assignments_in_both_branches_of_an_operand(c),
            || runtime::assignments_in_both_branches_of_an_operand(c),
        );
    }
    for n in 0..3 {
        same_at_every_suspension(
            || classic::shadowing_in_a_loop_left_by_break(n),
            || runtime::shadowing_in_a_loop_left_by_break(n),
        );
    }
}

#[test]
fn destructuring_assignments() {
    for n in [0, 4] {
        same_at_every_suspension(|| classic::destructured_reads(n), || runtime::destructured_reads(n));
        same_at_every_suspension(|| classic::destructured_shapes(n), || runtime::destructured_shapes(n));
    }
}

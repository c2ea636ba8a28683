//! A `match` on a local that lives in place, by value, whose arms do not all move it. Rust
//! moves the local's parts only in the arms that bind them by value (and copies a `Copy`
//! part): in an arm that binds nothing (`_`, `None`, `Err(_)`) or binds by reference, or that
//! only copies, the local keeps its value, which the arm and the code after it may read, and
//! which drops where the local's scope ends or where it is assigned again.
//!
//! The classic lowering moved the whole value out of its place for such a `match` where no
//! arm leaves parts (and a read of the local in an arm that did not move it hit the lowering's
//! own "a local read after it was moved out"), and matched the place itself where an arm does
//! (`Some(s) => .., _ => break`: "cannot move out of a raw pointer", E0507; an MQTT client's
//! frame reader, `match res { Some(s) => ..await.., _ => break }` in a loop that assigns `res`
//! again). Each shape runs under both lowerings, to the end and dropped at every suspension.

use lowering_tests::*;

pub async fn step(n: usize) -> usize {
    later("step", n).await
}

/// Borrows across a suspension: what it is given lives in place.
pub async fn shown_later<T: std::fmt::Debug>(value: &T) -> usize {
    later("shown", ()).await;
    format!("{value:?}").len()
}

differential! {
    // The frame reader's shape: in a loop, an arm that awaits with what it moved out, a
    // wildcard arm that leaves, and the local assigned again.
    pub async fn wildcard_arm_in_a_loop(mut res: Option<String>, mut more: u32) -> usize {
        let mut n = 0;
        loop {
            match res {
                Some(s) => n += step(s.len()).await,
                _ => break,
            }
            if more == 0 {
                break;
            }
            more -= 1;
            res = Some("abc".to_string());
        }
        n
    }

    // An arm that copies a `Copy` part of a value that is not `Copy`, then reads the local.
    pub async fn copying_arm_reads_the_local(mut res: Result<String, (u32, Loud)>, mut more: u32) -> usize {
        let mut n = 0;
        loop {
            match res {
                Ok(s) => n += step(s.len()).await,
                Err((code, _)) => {
                    n += code as usize;
                    n += step(format!("{res:?}").len()).await;
                    break;
                }
            }
            if more == 0 {
                break;
            }
            more -= 1;
            res = Ok("abcd".to_string());
        }
        n
    }

    // `None` binds nothing: the arm reads the local, which still holds its value.
    pub async fn none_arm_reads_the_local(res: Option<Loud>) -> usize {
        let weight = step(format!("{res:?}").len()).await;
        match res {
            Some(loud) => weight + step(loud.name().len()).await,
            None => weight + step(format!("{res:?}").len()).await,
        }
    }

    // An arm that binds by reference beside one that moves.
    pub async fn ref_arm_beside_a_moving_one(res: Result<Loud, Loud>) -> usize {
        let weight = step(format!("{res:?}").len()).await;
        match res {
            Ok(ref loud) => weight + step(loud.name().len()).await + format!("{res:?}").len(),
            Err(loud) => weight + step(loud.name().len() * 2).await,
        }
    }

    // `Err(_)` leaves the payload in the local, which drops when the local is assigned again.
    pub async fn unbound_payload_drops_with_the_local(mut res: Result<Loud, Loud>) -> usize {
        let mut n = step(format!("{res:?}").len()).await;
        match res {
            Ok(loud) => n += step(loud.name().len()).await,
            Err(_) => n += 100,
        }
        log("after the match");
        res = Ok(Loud::new("again"));
        n += step(format!("{res:?}").len()).await;
        n
    }

    // An arm that moves a part and leaves another (`Ok((s, _))`): what it leaves drops as the arm
    // begins, not where the local's scope ends (a difference, `docs/classic-lowering.md`).
    pub async fn moving_arm_leaves_a_part(res: Result<(String, Loud), Loud>) -> usize {
        let n = shown_later(&res).await;
        match res {
            Ok((s, _)) => n + step(s.len()).await,
            Err(_) => n,
        };
        log("after the match");
        n + step(1).await
    }

    // The same without an await in the arms: a `match` the lowering writes as it is.
    pub async fn plain_match_reads_the_local(res: Option<Loud>) -> usize {
        let weight = shown_later(&res).await;
        let n = match res {
            Some(loud) => loud.name().len(),
            None => format!("{res:?}").len() + 1,
        };
        weight + n + step(0).await
    }
}

#[test]
fn a_wildcard_arm_leaves_the_local_alone() {
    for more in 0..3 {
        same_at_every_suspension(
            || classic::wildcard_arm_in_a_loop(Some("ab".into()), more),
            || runtime::wildcard_arm_in_a_loop(Some("ab".into()), more),
        );
        same_at_every_suspension(
            || classic::wildcard_arm_in_a_loop(None, more),
            || runtime::wildcard_arm_in_a_loop(None, more),
        );
    }
}

#[test]
fn an_arm_that_copies_leaves_the_local_readable() {
    for more in 0..2 {
        let outcome = same_at_every_suspension(
            || classic::copying_arm_reads_the_local(Err((3, Loud::new("payload"))), more),
            || runtime::copying_arm_reads_the_local(Err((3, Loud::new("payload"))), more),
        );
        assert!(matches!(outcome, Outcome::Value(_)), "{outcome:?}");
        same_at_every_suspension(
            || classic::copying_arm_reads_the_local(Ok("x".into()), more),
            || runtime::copying_arm_reads_the_local(Ok("x".into()), more),
        );
    }
}

#[test]
fn arms_that_bind_nothing_or_by_reference_leave_the_local_readable() {
    same_at_every_suspension(|| classic::none_arm_reads_the_local(None), || runtime::none_arm_reads_the_local(None));
    same_at_every_suspension(
        || classic::none_arm_reads_the_local(Some(Loud::new("some"))),
        || runtime::none_arm_reads_the_local(Some(Loud::new("some"))),
    );
    for res in [true, false] {
        let make = move || if res { Ok(Loud::new("ok")) } else { Err(Loud::new("err")) };
        same_at_every_suspension(
            || classic::ref_arm_beside_a_moving_one(make()),
            || runtime::ref_arm_beside_a_moving_one(make()),
        );
        same_at_every_suspension(
            || classic::unbound_payload_drops_with_the_local(make()),
            || runtime::unbound_payload_drops_with_the_local(make()),
        );
    }
    same_at_every_suspension(
        || classic::plain_match_reads_the_local(None),
        || runtime::plain_match_reads_the_local(None),
    );
    same_at_every_suspension(
        || classic::plain_match_reads_the_local(Some(Loud::new("plain"))),
        || runtime::plain_match_reads_the_local(Some(Loud::new("plain"))),
    );
}

#[test]
fn a_moving_arm_drops_what_it_leaves_where_it_ends() {
    let make = || Ok(("ab".to_owned(), Loud::new("left")));
    let (classic_outcome, classic_log) = run(Stop::AtEnd, || classic::moving_arm_leaves_a_part(make()));
    let (runtime_outcome, runtime_log) = run(Stop::AtEnd, || runtime::moving_arm_leaves_a_part(make()));
    assert_eq!(classic_outcome, runtime_outcome);
    let events = |left_drops_at: usize| {
        let mut events: Vec<&str> =
            vec!["new left", "suspend shown", "resume shown", "suspend step", "resume step", "after the match"];
        events.extend(["suspend step", "resume step"]);
        events.insert(left_drops_at, "drop left");
        events
    };
    // The plain local keeps the part until its scope ends; the classic arm drops it as it begins.
    assert_eq!(runtime_log, events(8));
    assert_eq!(classic_log, events(3));
    // Without a part left, the two agree.
    same_at_every_suspension(
        || classic::moving_arm_leaves_a_part(Err(Loud::new("err"))),
        || runtime::moving_arm_leaves_a_part(Err(Loud::new("err"))),
    );
}

/// A cell that initializes itself once, from a future a closure makes.
pub struct OnceSlot<T>(pub std::cell::RefCell<Option<T>>);

impl<T> OnceSlot<T> {
    pub async fn get_or_init<F: FnOnce() -> Fut, Fut: std::future::Future<Output = T>>(&self, make: F) {
        if self.0.borrow().is_none() {
            let value = make().await;
            *self.0.borrow_mut() = Some(value);
        }
        later("initialized", ()).await;
    }
}

mod generic {
    use super::*;

    differential! {
        // A lock crate's `OnceCell::set`: a generic value a closure held across the await
        // takes, matched by value with a binding of the local's own name. The arm that gives
        // the value back named the binding for the local (E0599 "no method named `assign`
        // found for type parameter `T`").
        pub async fn set<T>(slot: &OnceSlot<T>, value: T) -> Result<u32, T> {
            let mut value = Some(value);
            slot.get_or_init(|| async { value.take().unwrap() }).await;
            match value {
                Some(value) => Err(value),
                None => Ok(1),
            }
        }

        // The same with a `Copy` binding of the local's name, given back to the local, and
        // read after the `match`.
        pub async fn copied_under_the_locals_name(n: Option<u32>) -> u32 {
            let mut value = n;
            let held = &value;
            let first = shown_later(held).await as u32;
            let got = match value {
                Some(value) => value + first,
                None => 0,
            };
            value = value.map(|v| v + 1);
            got + value.unwrap_or(0)
        }
    }

    #[test]
    fn a_binding_named_like_the_matched_local() {
        for filled in [false, true] {
            let make = || OnceSlot(std::cell::RefCell::new(filled.then(|| Loud::new("there"))));
            let (classic_slot, runtime_slot) = (make(), make());
            same_at_every_suspension(
                || classic::set(&classic_slot, Loud::new("given")),
                || runtime::set(&runtime_slot, Loud::new("given")),
            );
        }
        for n in [None, Some(3)] {
            same_at_every_suspension(
                || classic::copied_under_the_locals_name(n),
                || runtime::copied_under_the_locals_name(n),
            );
        }
    }
}

/// An arm binding by reference beside a `Copy` binding by value.
mod mixed_arms {
    use super::*;

    pub enum Endpoint {
        Tcp(String, u16),
        Named(String),
    }

    differential! {
        // An arm that binds by reference beside a `Copy` binding by value (`Tcp(ref host, port)`),
        // awaiting with the reference, and an arm that moves a part out (a Redis client's
        // `match addr { Tcp(ref host, port) => .., .. }`; before, the whole `match` matched a
        // temporary, which the reference outlived: E0716).
        pub async fn endpoint_len(endpoint: Endpoint, extra: u16) -> usize {
            let total = match endpoint {
                Endpoint::Tcp(ref host, port) => {
                    let shown = shown_later(host).await;
                    shown + port as usize + host.len()
                }
                Endpoint::Named(name) => step(name.len()).await,
            };
            step(total + extra as usize).await
        }
    }

    #[test]
    fn an_arm_binding_by_reference_beside_a_copy() {
        for endpoint in [("h", Some(7)), ("named", None)] {
            let make = || match endpoint {
                (host, Some(port)) => Endpoint::Tcp(host.to_owned(), port),
                (name, None) => Endpoint::Named(name.to_owned()),
            };
            same_at_every_suspension(|| classic::endpoint_len(make(), 2), || runtime::endpoint_len(make(), 2));
        }
    }
}

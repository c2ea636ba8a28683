//! A local used by value before an await and named again after it: a copy when its type is
//! `Copy`, a move otherwise, which rustc accepts only if an assignment comes between (a move
//! followed by a use is the plain function's E0382, `ui/moved_value_after_await.rs`). The
//! classic lowering cannot tell the two apart, so such a local lives in place; these programs
//! run the same under both lowerings, run to the end and dropped at every suspension.

use lowering_tests::*;

#[derive(Clone, Copy)]
pub struct Pair(pub u32, pub u32);

pub fn consume(loud: Loud) -> usize {
    loud.name().len()
}

pub struct Job {
    pub id: u32,
    pub name: Loud,
}

differential! {
    pub async fn copied_then_read(n: u32, p: Pair) -> u32 {
        let m = n;
        let q = p;
        later("between", ()).await;
        n + m + p.0 + q.1
    }

    pub async fn moved_then_assigned(mut v: Loud) -> usize {
        let w = v;
        later("between", ()).await;
        v = Loud::new("again");
        let total = w.name().len() + v.name().len();
        now("after", ()).await;
        total
    }

    pub async fn moved_into_a_call_then_assigned(mut v: Loud, flag: bool) -> usize {
        let mut total = consume(v);
        later("between", ()).await;
        if flag {
            v = Loud::new("flagged");
        } else {
            v = Loud::new("plain");
        }
        total += v.name().len();
        later("end", ()).await;
        total
    }

    pub async fn moved_each_round(names: Vec<&'static str>) -> usize {
        let mut current = Loud::new("first");
        let mut total = 0;
        for name in names {
            total += consume(current);
            later("round", ()).await;
            current = Loud::new(name);
        }
        total + current.name().len()
    }

    pub async fn copied_field_of_a_method(job: Job) -> u32 {
        let id = job.id;
        later("between", ()).await;
        id + job.id + job.name.name().len() as u32
    }
}

#[test]
fn a_copy_is_read_after_the_await() {
    let outcome = same_at_every_suspension(
        || classic::copied_then_read(1, Pair(2, 3)),
        || runtime::copied_then_read(1, Pair(2, 3)),
    );
    assert_eq!(outcome, Outcome::Value(1 + 1 + 2 + 3));
}

#[test]
fn a_moved_local_is_assigned_again() {
    let outcome = same_at_every_suspension(
        || classic::moved_then_assigned(Loud::new("v")),
        || runtime::moved_then_assigned(Loud::new("v")),
    );
    assert_eq!(outcome, Outcome::Value("v".len() + "again".len()));
    for flag in [false, true] {
        same_at_every_suspension(
            || classic::moved_into_a_call_then_assigned(Loud::new("v"), flag),
            || runtime::moved_into_a_call_then_assigned(Loud::new("v"), flag),
        );
    }
}

#[test]
fn a_local_moved_and_assigned_in_each_round() {
    for names in [vec![], vec!["a"], vec!["a", "bb", "ccc"]] {
        same_at_every_suspension(
            || classic::moved_each_round(names.clone()),
            || runtime::moved_each_round(names.clone()),
        );
    }
}

#[test]
fn a_copied_field_and_the_value_after_the_await() {
    let job = || Job { id: 4, name: Loud::new("job") };
    let outcome = same_at_every_suspension(
        || classic::copied_field_of_a_method(job()),
        || runtime::copied_field_of_a_method(job()),
    );
    assert_eq!(outcome, Outcome::Value(4 + 4 + 3));
}

//! Awaits in match guards, against the plain `async fn`: guards tried in order, each at most
//! once, with their side effects; bindings of `Copy` values and of references seen by the
//! guard; a non-`Copy` binding moved into the chosen arm; the scrutinee a place (a local, a
//! field of `self`, a parameter) or a value; nested matches; the future dropped at every
//! suspension, a guard's await included.

use lowering_tests::fuzz::weigh;
use lowering_tests::*;

pub async fn check(name: &str, verdict: bool) -> bool {
    later(name, verdict).await
}

pub async fn longer_than(s: &str, n: usize) -> bool {
    later("measure", s.len() > n).await
}

pub enum Command {
    Get(String),
    Set(String, u32),
    Quit,
}

pub struct Db {
    pub hits: u32,
}

impl Db {
    pub async fn has(&self, key: &str) -> bool {
        later("has", key.starts_with('k')).await
    }
}

differential! {
    /// The scrutinee's temporaries (`Loud::new("temp")`) live to the end of the whole
    /// `match`, through the guards' awaits and the chosen arm.
    pub async fn scrutinee_temporaries(n: u32) -> u32 {
        let chosen = match weigh(&Loud::new("temp")) * n {
            v if check("small", v < 5).await => v,
            v if check("even", v % 2 == 0).await => later("arm", v / 2).await,
            v => v,
        };
        chosen + 1
    }

    /// A guard that awaits inside a standard macro's arguments.
    pub async fn inside_a_macro(n: u32) -> String {
        format!("{} of {}", match n {
            v if check("small", v < 5).await => "small",
            _ => "large",
        }, n)
    }

    /// Guards that read a local kept in place (borrowed across an await), in a `match` whose
    /// arms await; one guard awaits, inside `panic!`'s arguments.
    pub async fn guard_reads_a_borrowed_local(limit: u32) -> u32 {
        let pair = (Loud::new("first"), 3u32);
        let first = &pair.0;
        let n = later("n", limit).await;
        let chosen = match n {
            v if v < 4 && pair.1 == 3 => later("arm", v).await + weigh(first),
            v if v > 8 => panic!("{} too large", match v {
                w if check("huge", w > 100).await => "far",
                _ => "just",
            }),
            v => v + pair.1,
        };
        chosen
    }

    /// An indexed scrutinee that awaits and holds a temporary with a destructor (rustc 1.95
    /// at opt-level 0 miscompiles the plain function: see `an_indexed_scrutinee`).
    pub async fn indexed_scrutinee(n: u32) -> u32 {
        match [weigh(&Loud::new("temp")), later("scrutinee", n).await][0] {
            v if later("guard", v < 5).await => 12,
            _ => 16,
        }
    }

    pub async fn classify(n: u32) -> &'static str {
        match n {
            0 => "zero",
            x if check("big", x > 10).await => "big",
            x if x % 2 == 0 => "even",
            x if check("odd", x % 2 == 1).await => "odd",
            _ => "unreachable in practice",
        }
    }

    /// A value scrutinee (a call), a non-`Copy` binding the guard sees by reference and the
    /// arm then takes by value.
    pub async fn pick(words: Vec<String>, at: usize) -> Loud {
        let loud = Loud::new("held");
        match words.into_iter().nth(at) {
            Some(ref word) if longer_than(word, 3).await => {
                log(format!("long {word} {}", loud.name()));
                Loud::new(word.clone())
            }
            Some(word) => Loud::new(format!("short {word}")),
            None => Loud::new("none"),
        }
    }

    /// A reference scrutinee: the guard's bindings are references, as in Rust.
    pub async fn handle(command: &Command, db: &Db) -> u32 {
        match command {
            Command::Get(key) if db.has(key).await => db.hits + 1,
            Command::Get(_) => 0,
            Command::Set(key, value) if !key.is_empty() && check("set", *value > 5).await => *value,
            Command::Set(..) => 1,
            Command::Quit => 2,
        }
    }

    /// Guards that await in a loop, with `continue` and `break` in the arms, a nested match.
    pub async fn tally(values: Vec<Option<u32>>) -> (u32, u32) {
        let mut small = 0;
        let mut large = 0;
        for value in values {
            match value {
                None => continue,
                Some(v) if check("large", v > 100).await => {
                    large += match v {
                        w if check("huge", w > 1000).await => break,
                        w => w,
                    };
                }
                Some(v) => small += v,
            }
        }
        (small, large)
    }
}

#[test]
fn guards_are_tried_in_order_once() {
    for n in [0, 4, 7, 12] {
        same_at_every_suspension(|| classic::classify(n), || runtime::classify(n));
    }
    let (outcome, log) = same(|| classic::classify(7), || runtime::classify(7));
    assert_eq!(outcome, Outcome::Value("odd"));
    assert_eq!(log, ["suspend big", "resume big", "suspend odd", "resume odd"]);
}

#[test]
fn a_value_scrutinee_and_a_binding_moved_after_its_guard() {
    let words = || vec![String::from("kiwi"), String::from("fig")];
    for at in [0, 1, 2] {
        same_at_every_suspension(|| classic::pick(words(), at), || runtime::pick(words(), at));
    }
}

#[test]
fn a_reference_scrutinee() {
    let db = Db { hits: 9 };
    let commands = [
        Command::Get(String::from("key")),
        Command::Get(String::from("other")),
        Command::Set(String::from("a"), 7),
        Command::Set(String::new(), 9),
        Command::Quit,
    ];
    for command in &commands {
        same_at_every_suspension(|| classic::handle(command, &db), || runtime::handle(command, &db));
    }
}

#[test]
fn guards_in_a_loop_with_break_and_continue() {
    let values = || vec![Some(3), None, Some(150), Some(5), Some(2000), Some(1)];
    let outcome = same_at_every_suspension(|| classic::tally(values()), || runtime::tally(values()));
    assert_eq!(outcome, Outcome::Value((8, 150)));
}

#[test]
fn the_scrutinee_temporaries_live_to_the_end_of_the_match() {
    for n in [1, 4, 5] {
        same_at_every_suspension(|| classic::scrutinee_temporaries(n), || runtime::scrutinee_temporaries(n));
    }
    let (outcome, log) = same(|| classic::scrutinee_temporaries(4), || runtime::scrutinee_temporaries(4));
    assert_eq!(outcome, Outcome::Value(9));
    assert_eq!(log.last().map(String::as_str), Some("drop temp"));
}

#[test]
fn a_guard_inside_a_standard_macro() {
    for n in [1, 7] {
        same_at_every_suspension(|| classic::inside_a_macro(n), || runtime::inside_a_macro(n));
    }
}

/// rustc 1.95 builds the plain `indexed_scrutinee` wrong at opt-level 0 (this crate's test
/// profile): it runs the second arm, or crashes (docs/rustc-bugs.md has a reproducer without
/// this project). The classic lowering, whose code has no await in a guard, is checked here
/// against what Rust specifies, written out.
#[test]
fn an_indexed_scrutinee() {
    let (outcome, log) = run(Stop::AtEnd, || classic::indexed_scrutinee(3));
    assert_eq!(outcome, Outcome::Value(12));
    assert_eq!(
        log,
        [
            "new temp",
            "weigh temp",
            "suspend scrutinee",
            "resume scrutinee",
            "suspend guard",
            "resume guard",
            "drop temp"
        ]
    );
    for stop in 1..=2 {
        let (outcome, log) = run(Stop::AfterSuspensions(stop), || classic::indexed_scrutinee(3));
        assert_eq!(outcome, Outcome::Dropped);
        assert_eq!(log.last().map(String::as_str), Some("drop temp"));
    }
}

#[test]
fn guards_reading_a_local_kept_in_place() {
    for limit in [2, 6, 9, 200] {
        same_at_every_suspension(
            || classic::guard_reads_a_borrowed_local(limit),
            || runtime::guard_reads_a_borrowed_local(limit),
        );
    }
    let (outcome, _) =
        same(|| classic::guard_reads_a_borrowed_local(200), || runtime::guard_reads_a_borrowed_local(200));
    assert_eq!(outcome, Outcome::Panic(String::from("far too large")));
}

//! Values Rust keeps in temporaries that something borrows, which the classic state machine
//! must keep where the borrow can reach them, found on an FTP client and a SOCKS5 client:
//!
//! - an awaited value that a later await of the statement borrows: `conn().await.read().await`
//!   (`self.control().await?.read_response(code).await`, `lock().await.complete().await`), also
//!   through `?`, a field, or a `&`: the value was computed into a local of the lowering that
//!   the second awaiter's borrow outlived (E0716, E0505);
//! - a `match` whose scrutinee borrows a temporary that borrows a local (`match v.iter().next()`,
//!   `match s.lines().nth(1)`), without any await: the temporary is kept in place for the arms,
//!   and the local it borrows was not (E0597);
//! - a local used as a range's bound in a macro of the user's (`show!("{:?}", &buf[..pad])`):
//!   the macro was handed the local's place, not its value (E0277).
//!
//! Each runs under both lowerings, to the end and dropped at every suspension.

use lowering_tests::*;

pub struct Conn(pub Loud);

impl Conn {
    pub async fn read(&self) -> usize {
        later("read", self.0.name().len()).await
    }
}

pub async fn connect(name: &str) -> Conn {
    Conn(later("connect", Loud::new(name)).await)
}

pub async fn try_connect(name: &str) -> Result<Conn, String> {
    let conn = connect(name).await;
    if conn.0.name().is_empty() { Err("empty".into()) } else { Ok(conn) }
}

pub async fn weigh(conn: &Conn) -> usize {
    later("weigh", conn.0.name().len()).await
}

pub async fn name_len(loud: &Loud) -> usize {
    later("name_len", loud.name().len()).await
}

macro_rules! show {
    ($($tokens:tt)*) => { log(format!($($tokens)*)) };
}

differential! {
    // The value of one await, its method awaited.
    pub async fn awaited_then_borrowed(name: String) -> usize {
        connect(&name).await.read().await
    }

    // Through `?`, a `&`, a field; and in a loop.
    pub async fn through_try_reference_and_field(names: Vec<String>) -> Result<usize, String> {
        let mut total = 0;
        for name in &names {
            total += try_connect(name).await?.read().await;
            total += weigh(&connect(name).await).await;
            total += name_len(&connect(name).await.0).await;
        }
        Ok(total)
    }

    // A `match` on a temporary that borrows a parameter, no await in it.
    pub async fn match_on_a_borrowing_temporary(v: Vec<u32>, text: String) -> u32 {
        let first = match v.iter().next() {
            Some(x) => *x,
            None => 0,
        };
        let second = match text.lines().nth(1) {
            Some(line) => line.len() as u32,
            None => 0,
        };
        first + second + later("after", 1).await
    }

    // The same as the tail of the body (the client's shape), and with an await in an arm.
    pub async fn tail_match_without_an_await(v: Vec<u32>) -> u32 {
        match v.iter().next() {
            Some(x) => *x,
            None => 0,
        }
    }

    pub async fn tail_match_on_a_borrowing_temporary(v: Vec<u32>) -> u32 {
        match v.iter().next() {
            Some(x) => later("arm", *x).await,
            None => 0,
        }
    }

    // A local assigned in both branches, then a range's bound in a macro of the crate's.
    pub async fn range_bound_in_a_macro(n: usize) -> usize {
        let buf = [1u8; 8];
        let pad;
        if n > 2 {
            pad = 3;
            let _c = pad + 1;
        } else {
            pad = 4;
        }
        show!("{:?} {:?}", &buf[..pad], &buf[pad..=pad]);
        pad + later("after", buf[0] as usize).await
    }
}

#[test]
fn an_awaited_value_borrowed_by_the_next_await_lives_until_it_ends() {
    let outcome = same_at_every_suspension(
        || classic::awaited_then_borrowed("abc".into()),
        || runtime::awaited_then_borrowed("abc".into()),
    );
    assert_eq!(outcome, Outcome::Value(3));
    let names = || vec!["ab".to_owned(), "cde".to_owned()];
    let outcome = same_at_every_suspension(
        || classic::through_try_reference_and_field(names()),
        || runtime::through_try_reference_and_field(names()),
    );
    assert_eq!(outcome, Outcome::Value(Ok(15)));
    same_at_every_suspension(
        || classic::through_try_reference_and_field(vec![String::new()]),
        || runtime::through_try_reference_and_field(vec![String::new()]),
    );
}

#[test]
fn a_match_on_a_temporary_that_borrows_a_local() {
    for (v, text) in [(vec![3, 4], "a\nbcd"), (vec![], "one line")] {
        let outcome = same_at_every_suspension(
            || classic::match_on_a_borrowing_temporary(v.clone(), text.into()),
            || runtime::match_on_a_borrowing_temporary(v.clone(), text.into()),
        );
        assert!(matches!(outcome, Outcome::Value(_)), "{outcome:?}");
        same_at_every_suspension(
            || classic::tail_match_without_an_await(v.clone()),
            || runtime::tail_match_without_an_await(v.clone()),
        );
        same_at_every_suspension(
            || classic::tail_match_on_a_borrowing_temporary(v.clone()),
            || runtime::tail_match_on_a_borrowing_temporary(v.clone()),
        );
    }
}

#[test]
fn a_range_bound_in_a_macro_is_the_value() {
    for n in 0..4 {
        let outcome =
            same_at_every_suspension(|| classic::range_bound_in_a_macro(n), || runtime::range_bound_in_a_macro(n));
        assert_eq!(outcome, Outcome::Value(if n > 2 { 4 } else { 5 }));
    }
}

//! Borrows of locals held across awaits: the classic state machine keeps the borrowed locals in
//! place (pinned), and behaves as the plain `async fn` does: same result, same events, same
//! drops, dropped at every suspension included.

use std::cell::RefCell;
use std::sync::Mutex;

use lowering_tests::*;

pub struct Labelled {
    pub label: Loud,
    pub count: u32,
    pub extra: Loud,
}

pub fn consume(loud: Loud) {
    log(format!("consume {}", loud.name()));
}

fn labelled() -> Labelled {
    Labelled { label: Loud::new("label"), count: 3, extra: Loud::new("extra") }
}

pub async fn fill(v: &mut Vec<u32>, n: u32) {
    for i in 0..n {
        later("fill", ()).await;
        v.push(i);
    }
}

pub async fn len_of(s: &str) -> usize {
    later("len_of", ()).await;
    s.len()
}

pub async fn touch(unit: &mut ()) -> u32 {
    later("touch", ()).await;
    let () = *unit;
    7
}

pub async fn weigh_later(loud: &Loud) -> usize {
    later("weigh later", loud.name().len()).await
}

pub async fn weigh(loud: &Loud) -> usize {
    later("weigh", ()).await;
    loud.name().len()
}

pub async fn total(loud: Loud) -> usize {
    later("total", ()).await;
    loud.name().len()
}

pub struct Conn {
    pub buffer: Vec<u8>,
}

impl Conn {
    pub async fn read(&mut self) -> usize {
        later("read", ()).await;
        self.buffer.push(1);
        self.buffer.len()
    }
}

pub struct Settings {
    pub extra: usize,
    pub name: Loud,
}

differential! {
    /// An async block that reborrows a `&mut` parameter (kept in place) and reads through a
    /// shared-reference parameter (not in place: a `Copy` reference, taken by value).
    pub async fn block_over_both_kinds_of_reference(conn: &mut Conn, settings: &Settings) -> usize {
        let first = async { conn.read().await + settings.extra }.await;
        let second = async { conn.read().await + settings.name.name().len() }.await;
        first + second + conn.buffer.len()
    }

    /// A byte source read in chunks, as a connection's read loop reads.
    pub struct Source {
        data: Vec<u8>,
        at: usize,
    }

    impl Source {
        pub fn new(data: &[u8]) -> Self {
            Source { data: data.to_vec(), at: 0 }
        }

        /// Fills `buf` with the next bytes; 0 at the end.
        pub async fn read(&mut self, buf: &mut [u8]) -> usize {
            later("read", ()).await;
            let n = buf.len().min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            n
        }
    }

    pub struct Pair {
        pub a: Loud,
        pub b: Loud,
    }

    /// A connection with a handler method on `&mut self`.
    pub struct Connection {
        pub stream: Source,
        pub buffer: [u8; 4],
        pub seen: Vec<u8>,
    }

    pub async fn reference_kept(n: u32) -> usize {
        let v = vec![Loud::new("a"), Loud::new("b")];
        let r = &v;
        later("mid", n).await;
        let first = &v[0];
        now("again", ()).await;
        log(format!("first {}", first.name()));
        r.len() + v.len()
    }

    pub async fn for_over_borrowed() -> usize {
        let v = vec![Loud::new("x"), Loud::new("y"), Loud::new("z")];
        let mut sum = 0;
        for item in &v {
            sum += later(item.name(), item.name().len()).await;
        }
        sum + v.len()
    }

    pub async fn match_and_if_let(o: Option<Loud>) -> usize {
        let label = String::from("label");
        let n = match &o {
            Some(loud) => later("some", loud.name().len()).await,
            None => later("none", label.len()).await,
        };
        if let Some(s) = &o {
            now(s.name(), ()).await;
            log(format!("still {}", s.name()));
        }
        n + label.len()
    }

    pub async fn iterators_held() -> u32 {
        let v = vec![1u32, 2, 3];
        let mut it = v.iter();
        let mut sum = 0;
        while let Some(x) = it.next() {
            sum += later("item", *x).await;
        }
        let line = String::from("a bb ccc");
        for word in line.split(' ') {
            sum += later(word, word.len() as u32).await;
        }
        sum
    }

    pub async fn read_loop(data: &'static [u8]) -> Vec<u8> {
        let mut source = Source::new(data);
        let mut buf = vec![0u8; 3];
        let mut out = Vec::new();
        loop {
            let n = source.read(&mut buf).await;
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        let mut array = [0u8; 2];
        let n = source.read(&mut array).await;
        out.push(n as u8);
        out
    }

    pub async fn fill_local() -> Vec<u32> {
        let mut v = Vec::new();
        fill(&mut v, 3).await;
        v.push(99);
        v
    }

    pub async fn temporaries_borrowed() -> usize {
        let a = len_of(&String::from("xyz")).await;
        let b = len_of(&format!("{}-{}", a, "q")).await;
        let c = touch(&mut ()).await as usize;
        a + b + c
    }

    pub async fn guards_held(cell: &RefCell<Vec<u32>>, lock: &Mutex<u32>) -> u32 {
        let mut g = cell.borrow_mut();
        g.push(later("cell", 5).await);
        drop(g);
        let mut m = lock.lock().unwrap();
        *m += later("lock", 2).await;
        *m
    }

    pub async fn local_guard() -> usize {
        let cell = RefCell::new(vec![Loud::new("c")]);
        let mut g = cell.borrow_mut();
        g.push(later("push", Loud::new("d")).await);
        let n = g.len();
        drop(g);
        let m = cell.borrow().len();
        n + m
    }

    pub async fn async_blocks_borrow(n: u32) -> u32 {
        let base = 10u32;
        let mut s = 0;
        for x in 0..n {
            s += async { later("block", x + base).await }.await;
        }
        let add = async |x: u32| x + base;
        s + add(1).await
    }

    pub async fn field_moved_before_await(pair: Labelled) -> u32 {
        let count = pair.count;
        consume(pair.label);
        later("tick", ()).await;
        count + pair.extra.name().len() as u32
    }

    pub async fn field_moved_in_a_loop(pair: Labelled, rounds: u32) -> u32 {
        let mut total = 0;
        for _ in 0..rounds {
            later("tick", ()).await;
            total += pair.count;
            if total > 4 {
                consume(pair.label);
                break;
            }
        }
        total
    }

    pub async fn pattern_moves_part(pair: (Loud, Loud, u32)) -> usize {
        let (label, _, n) = pair;
        later("tick", ()).await;
        label.name().len() + n as usize
    }

    pub async fn field_moved_then_assigned(mut pair: Labelled) -> usize {
        consume(pair.label);
        later("tick", ()).await;
        pair.label = Loud::new("again");
        now("tock", ()).await;
        pair.label.name().len()
    }

    /// A borrowed local stays where it is across suspensions (the state machine never moves).
    pub async fn address_is_stable() -> bool {
        let mut buf = [0u8; 16];
        let before = &buf as *const [u8; 16] as usize;
        let held = &mut buf;
        later("first", ()).await;
        held[0] = 1;
        later("second", ()).await;
        let after = &buf as *const [u8; 16] as usize;
        before == after && buf[0] == 1
    }

    /// The differential fuzzer's seed 7, program 198, reduced: a scrutinee that lives in place
    /// (its arms bind and await) and that the arms read again. It was moved out as the
    /// scrutinee before the arms were seen.
    pub async fn scrutinee_read_in_arms(p1: u32) -> bool {
        match p1 {
            1 => now("a", 3u32).await < p1,
            v2 => later("b", v2).await > p1,
        }
    }

    /// The differential fuzzer's seed 7, program 176, reduced: an async block uses a local that
    /// lives in place by value (it moves it, as the plain block does).
    pub async fn async_block_moves_a_local(p3: Loud, other: Loud) -> usize {
        let r = &p3;
        later("a", ()).await;
        let n = r.name().len();
        let m = async { (later("b", 1u32).await, p3).1 }.await;
        let k = (|| other)();
        n + m.name().len() + k.name().len()
    }

    /// The differential fuzzer's seed 7, program 211, reduced: a pattern binds a name that
    /// lives in place (an outer local of that name is borrowed across awaits) beside one that
    /// does not; they drop in the reverse of the pattern's order.
    pub async fn pattern_binds_in_place_and_not(p1: Loud) -> usize {
        let outer = &p1;
        later("a", ()).await;
        {
            let (p1, other) = now("pair", (Loud::new("l17"), Loud::new("l18"))).await;
            log(format!("{} {}", p1.name(), other.name()));
        }
        weigh_later(outer).await
    }

    /// The differential fuzzer's seed 7, programs 221 and 419, reduced: a `let` that hides a
    /// live local begins a state of its own, so what its initializer borrows lives in place.
    /// (The fuzzer's shape kept, unused parts and all.)
    #[allow(unused)]
    pub async fn reference_hides_what_it_borrows(p1: u32) -> Result<u32, String> {
        match ({
            let mut p1 = now("a4", 0u32).await;
            let p1 = &p1;
            *p1 + 5
        }) {
            v5 => log(format!("v5 {v5}")),
        };
        Ok(p1)
    }

    #[allow(unused)]
    pub async fn reference_hides_another_local(p1: u32) -> Result<u32, String> {
        let v4 = Loud::new("z");
        {
            {
                now("a24", 0u32).await;
            };
            let v4 = &p1;
            log(format!("v4 {}", v4));
            Ok(0)
        }
    }

    pub async fn partial_move() -> usize {
        let p = Pair { a: Loud::new("pa"), b: Loud::new("pb") };
        let n = total(p.a).await;
        n + weigh(&p.b).await
    }

    pub async fn async_fn_param<F: AsyncFn(u32) -> u32>(f: F) -> u32 {
        let a = f(1).await;
        a + f(a).await
    }

    pub async fn closure_kept(k: u32) -> u32 {
        let offset = Loud::new("offset");
        let add = |x: u32| x + offset.name().len() as u32 + k;
        let first = later("first", add(1)).await;
        first + add(2)
    }

    impl Connection {
        pub async fn handle(&mut self) -> usize {
            loop {
                let n = self.stream.read(&mut self.buffer).await;
                if n == 0 {
                    break;
                }
                self.seen.extend_from_slice(&self.buffer[..n]);
            }
            self.seen.len()
        }
    }

    pub async fn through_param(v: &mut Vec<u32>) -> usize {
        fill(v, 2).await;
        fill(v, 1).await;
        v.len()
    }
}

pub async fn call_twice<F: AsyncFn(u32) -> u32>(f: F) -> u32 {
    f(1).await + f(2).await
}

#[test]
fn references_to_locals_kept_across_awaits() {
    assert_eq!(
        same_at_every_suspension(|| classic::reference_kept(1), || runtime::reference_kept(1)),
        Outcome::Value(4)
    );
    assert_eq!(same_at_every_suspension(classic::for_over_borrowed, runtime::for_over_borrowed), Outcome::Value(6));
    for o in [|| Some(Loud::new("o")), || None] {
        same_at_every_suspension(|| classic::match_and_if_let(o()), || runtime::match_and_if_let(o()));
    }
    assert_eq!(same_at_every_suspension(classic::iterators_held, runtime::iterators_held), Outcome::Value(12));
}

#[test]
fn awaited_calls_borrow_locals() {
    let outcome = same_at_every_suspension(|| classic::read_loop(b"abcdefg"), || runtime::read_loop(b"abcdefg"));
    assert_eq!(outcome, Outcome::Value(b"abcdefg\0".to_vec()));
    assert_eq!(same_at_every_suspension(classic::fill_local, runtime::fill_local), Outcome::Value(vec![0, 1, 2, 99]));
    same_at_every_suspension(classic::temporaries_borrowed, runtime::temporaries_borrowed);
}

#[test]
fn guards_held_across_awaits() {
    let run = |classic: bool| {
        let cell = RefCell::new(vec![1]);
        let lock = Mutex::new(1);
        let value = if classic {
            futures::executor::block_on(classic::guards_held(&cell, &lock))
        } else {
            futures::executor::block_on(runtime::guards_held(&cell, &lock))
        };
        (value, cell.into_inner(), lock.into_inner().unwrap())
    };
    assert_eq!(run(true), run(false));
    same_at_every_suspension(classic::local_guard, runtime::local_guard);
}

#[test]
fn async_blocks_and_closures_borrow_locals() {
    assert_eq!(
        same_at_every_suspension(|| classic::async_blocks_borrow(3), || runtime::async_blocks_borrow(3)),
        Outcome::Value(44)
    );
    let outcome = same_at_every_suspension(
        || classic::async_fn_param(async |x: u32| later("f", x * 2).await),
        || runtime::async_fn_param(async |x: u32| later("f", x * 2).await),
    );
    assert_eq!(outcome, Outcome::Value(6));
    assert_eq!(futures::executor::block_on(call_twice(async |x| x)), 3);
    same_at_every_suspension(|| classic::closure_kept(1), || runtime::closure_kept(1));
    let settings = Settings { extra: 10, name: Loud::new("settings") };
    let outcome = same_at_every_suspension(
        || {
            let conn = Box::leak(Box::new(Conn { buffer: Vec::new() }));
            classic::block_over_both_kinds_of_reference(conn, &settings)
        },
        || {
            let conn = Box::leak(Box::new(Conn { buffer: Vec::new() }));
            runtime::block_over_both_kinds_of_reference(conn, &settings)
        },
    );
    assert_eq!(outcome, Outcome::Value(11 + 10 + 2));
}

#[test]
fn scrutinee_read_in_arms() {
    for p1 in [1, 2] {
        same_at_every_suspension(|| classic::scrutinee_read_in_arms(p1), || runtime::scrutinee_read_in_arms(p1));
    }
}

#[test]
fn blocks_and_closures_move_locals_in_place() {
    same_at_every_suspension(
        || classic::async_block_moves_a_local(Loud::new("p3"), Loud::new("other")),
        || runtime::async_block_moves_a_local(Loud::new("p3"), Loud::new("other")),
    );
}

#[test]
fn patterns_binding_in_place_and_not_drop_in_order() {
    same_at_every_suspension(
        || classic::pattern_binds_in_place_and_not(Loud::new("p1")),
        || runtime::pattern_binds_in_place_and_not(Loud::new("p1")),
    );
}

#[test]
fn lets_that_hide_a_local_and_borrow() {
    same_at_every_suspension(
        || classic::reference_hides_what_it_borrows(1),
        || runtime::reference_hides_what_it_borrows(1),
    );
    same_at_every_suspension(
        || classic::reference_hides_another_local(2),
        || runtime::reference_hides_another_local(2),
    );
}

#[test]
fn address_is_stable() {
    let outcome = same_at_every_suspension(classic::address_is_stable, runtime::address_is_stable);
    assert_eq!(outcome, Outcome::Value(true));
}

#[test]
fn partial_moves() {
    same_at_every_suspension(classic::partial_move, runtime::partial_move);
    same_at_every_suspension(
        || classic::field_moved_before_await(labelled()),
        || runtime::field_moved_before_await(labelled()),
    );
    for rounds in 0..4 {
        same_at_every_suspension(
            || classic::field_moved_in_a_loop(labelled(), rounds),
            || runtime::field_moved_in_a_loop(labelled(), rounds),
        );
    }
    let triple = || (Loud::new("first"), Loud::new("second"), 2);
    same_at_every_suspension(|| classic::pattern_moves_part(triple()), || runtime::pattern_moves_part(triple()));
    same_at_every_suspension(
        || classic::field_moved_then_assigned(labelled()),
        || runtime::field_moved_then_assigned(labelled()),
    );
}

#[test]
fn methods_on_mut_self_and_mut_params() {
    // Each run handles a connection of its own (leaked: the future borrows it).
    let outcome = same_at_every_suspension(
        || {
            let connection =
                classic::Connection { stream: classic::Source::new(b"hello world"), buffer: [0; 4], seen: Vec::new() };
            Box::leak(Box::new(connection)).handle()
        },
        || {
            let connection =
                runtime::Connection { stream: runtime::Source::new(b"hello world"), buffer: [0; 4], seen: Vec::new() };
            Box::leak(Box::new(connection)).handle()
        },
    );
    assert_eq!(outcome, Outcome::Value(11));
    let run = |classic: bool| {
        let mut v = vec![7];
        let n = if classic {
            futures::executor::block_on(classic::through_param(&mut v))
        } else {
            futures::executor::block_on(runtime::through_param(&mut v))
        };
        (n, v)
    };
    assert_eq!(run(true), run(false));
}

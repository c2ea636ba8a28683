//! Everyday idioms in classic bodies, lowered both ways and compared (results, events, drops,
//! the future dropped at every suspension): a tokenizer holding `&'a str` across awaits, a
//! protocol state machine matched through `&mut self.state`, `let ... else` and a labelled
//! block's value, a closure called after an await, a work stack, slice patterns, iterator
//! adapters in a `for`, `join_all`, format widths, a map entry held across an await, a
//! generic impl with bounds, and recursion through a boxed `dyn Future`.

use lowering_tests::*;
use std::collections::HashMap;
use std::fmt::Display;

pub async fn fetch(x: u32) -> u32 {
    later("fetch", x).await
}

differential! {
    pub struct OnDrop<F: Fn()>(pub F);
    impl<F: Fn()> Drop for OnDrop<F> {
        fn drop(&mut self) {
            (self.0)();
        }
    }

    pub struct Gate { pub state: std::cell::Cell<u32> }
    impl Gate {
        // A guard whose closure names `self.state`, held over the awaits of a loop (the slow
        // path of a published mutex): edition 2018 captures `self` whole, by reference.
        pub async fn acquire(&self, rounds: u32) -> u32 {
            self.state.set(self.state.get() + 2);
            let _undo = OnDrop(|| {
                log(format!("undo {}", self.state.get()));
                self.state.set(self.state.get() - 2);
            });
            for round in 0..rounds {
                later("wait", round).await;
                if self.state.get() % 2 == 1 {
                    return round;
                }
                self.state.set(self.state.get() + 1);
            }
            rounds
        }
    }
    pub async fn guarded(gate: &Gate, n: u32) -> u32 {
        let _undo = OnDrop(|| log(format!("undo {}", gate.state.get())));
        let pending = async { gate.state.get() + n };
        later("made", ()).await;
        match n {
            0 => 0,
            _ => {
                let read = || gate.state.get();
                later("arm", ()).await;
                read() + pending.await
            }
        }
    }
    pub struct Parser<'a> { pub input: &'a str, pub at: usize }
    impl<'a> Parser<'a> {
        pub async fn next_token(&mut self) -> Option<&'a str> {
            let rest = &self.input[self.at..];
            let rest = rest.trim_start();
            if rest.is_empty() { return None; }
            let start = self.input.len() - rest.len();
            let len = rest.find(' ').unwrap_or(rest.len());
            later("tok", ()).await;
            self.at = start + len;
            Some(&self.input[start..start + len])
        }
    }
    pub async fn tokens(input: String) -> Vec<String> {
        let mut parser = Parser { input: &input, at: 0 };
        let mut out = Vec::new();
        while let Some(token) = parser.next_token().await {
            out.push(token.to_uppercase());
        }
        out
    }

    pub enum State { Reading(Vec<u32>), Full(Vec<u32>), Done(u32) }
    pub struct Machine { pub state: State }
    impl Machine {
        pub async fn step(&mut self) -> bool {
            match &mut self.state {
                State::Reading(buf) => {
                    buf.push(fetch(buf.len() as u32).await);
                    if buf.len() == 3 { self.state = State::Full(std::mem::take(buf)); }
                    true
                }
                State::Full(buf) => { let total = buf.iter().sum(); self.state = State::Done(total); true }
                State::Done(_) => false,
            }
        }
    }
    pub async fn drive() -> u32 {
        let mut m = Machine { state: State::Reading(Vec::new()) };
        while m.step().await {}
        match m.state { State::Done(t) => t, _ => 0 }
    }

    pub async fn let_else(x: Option<u32>) -> Result<u32, String> {
        let Some(v) = x else { return Err(String::from("none")) };
        let w = 'b: {
            if v > 10 { break 'b v; }
            fetch(v).await * 2
        };
        Ok(w)
    }

    pub async fn closures(base: u32) -> u32 {
        let add = |x: u32| x + base;
        let y = fetch(1).await;
        add(y) + add(2)
    }


    /// Recursion through a boxed `dyn Future`: each level a classic task that yields during
    /// its eager start and that its parent awaits as a plain future.
    pub fn boxed(n: u32) -> std::pin::Pin<Box<dyn std::future::Future<Output = u32>>> {
        Box::pin(recurse(n))
    }
    pub async fn recurse(n: u32) -> u32 {
        if n == 0 { 0 } else { fetch(n).await + boxed(n - 1).await }
    }

    pub async fn stack(start: Vec<u32>) -> u32 {
        let mut stack = start;
        let mut sum = 0;
        while let Some(x) = stack.pop() {
            if x > 1 { stack.push(fetch(x / 2).await); }
            sum += x;
        }
        sum
    }

    pub async fn slices(buf: Vec<u32>) -> u32 {
        match &buf[..] {
            [] => 0,
            [only] => fetch(*only).await,
            [first, rest @ ..] => fetch(*first).await + rest.len() as u32,
        }
    }

    pub async fn adapters(items: Vec<i32>) -> i32 {
        let mut acc = 0;
        for (i, item) in items.iter().enumerate().filter(|(_, x)| **x > 0) {
            if i > 3 { return acc; }
            acc += fetch(*item as u32).await as i32;
        }
        acc
    }

    pub async fn join_all(items: Vec<u32>) -> Vec<u32> {
        futures::future::join_all(items.iter().map(|x| fetch(*x))).await
    }

    pub async fn formatting(x: u32) -> String {
        format!("[{:>5}|{:<3}]", fetch(x).await, later("y", "ab").await)
    }

    pub async fn entry(keys: Vec<&'static str>) -> Vec<(String, u32)> {
        let mut map: HashMap<&str, u32> = HashMap::new();
        for k in keys {
            let slot = map.entry(k).or_insert(0);
            *slot += fetch(1).await;
        }
        let mut v: Vec<_> = map.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        v.sort();
        v
    }

    pub struct Wrapper<T> { pub inner: T }
    impl<T: Display + Send> Wrapper<T> {
        pub async fn show(&self, times: u32) -> String {
            let mut s = String::new();
            for _ in 0..fetch(times).await { s += &self.inner.to_string(); }
            s
        }
    }

    // A `let` whose type each branch's value is coerced to: a boxed value of one of two
    // kinds, one branch awaiting; a `match` of three; a loop's `break` values.
    pub async fn shown(kind: u32, n: u32) -> String {
        let out: Box<dyn Display> = if kind == 0 { Box::new(fetch(n).await) } else { Box::new("none") };
        let label: Box<dyn Display> = match kind {
            0 => Box::new('z'),
            1 => Box::new(fetch(n + 1).await),
            _ => Box::new(String::from("many")),
        };
        let mut tries = 0;
        let last: Box<dyn Display> = loop {
            tries += 1;
            if fetch(tries).await > 2 {
                break Box::new(tries);
            }
            if kind == 1 {
                break Box::new("one");
            }
        };
        later("shown", ()).await;
        format!("{out} {label} {last}")
    }
    pub struct Shelf { pub name: String, pub count: u32 }
    impl Shelf {
        // The same in a method, in a loop, and as a reference to one of two locals of
        // different types, held across an await.
        pub async fn describe(&mut self, rounds: u32) -> Vec<String> {
            let mut seen = Vec::new();
            for round in 0..rounds {
                let item: Box<dyn Display> =
                    if round % 2 == 0 { Box::new(fetch(self.count).await) } else { Box::new(self.name.clone()) };
                self.count += 1;
                seen.push(item.to_string());
            }
            let text = String::from("text");
            let number = self.count;
            let chosen: &dyn Display = if rounds > 2 { &text } else { &number };
            later("chosen", ()).await;
            seen.push(chosen.to_string());
            seen
        }
    }
}

#[test]
fn a_tokenizer_and_a_state_machine() {
    let outcome =
        same_at_every_suspension(|| classic::tokens("ab  cd e".into()), || runtime::tokens("ab  cd e".into()));
    assert_eq!(outcome, Outcome::Value(vec!["AB".to_string(), "CD".into(), "E".into()]));
    assert_eq!(same_at_every_suspension(classic::drive, runtime::drive), Outcome::Value(3));
}

#[test]
fn a_typed_let_coerces_every_branch_to_its_type() {
    for kind in 0..3 {
        same_at_every_suspension(|| classic::shown(kind, 7), || runtime::shown(kind, 7));
    }
    assert_eq!(
        same_at_every_suspension(|| classic::shown(1, 7), || runtime::shown(1, 7)),
        Outcome::Value("none 8 one".to_string())
    );
    for rounds in [0, 2, 3] {
        let outcome = same_at_every_suspension(
            || async move { classic::Shelf { name: "n".into(), count: 4 }.describe(rounds).await },
            || async move { runtime::Shelf { name: "n".into(), count: 4 }.describe(rounds).await },
        );
        if rounds == 3 {
            assert_eq!(outcome, Outcome::Value(vec!["4".into(), "n".into(), "6".into(), "text".into()]));
        }
    }
}

#[test]
fn let_else_labelled_blocks_and_closures() {
    for x in [None, Some(3), Some(30)] {
        same_at_every_suspension(|| classic::let_else(x), || runtime::let_else(x));
    }
    assert_eq!(same_at_every_suspension(|| classic::closures(5), || runtime::closures(5)), Outcome::Value(13));
}

#[test]
fn a_yield_inside_a_task_awaited_as_a_plain_future_reaches_the_executor() {
    // Each level's yield ends the poll it happened in, as in the plain future; the classic
    // parent's first poll of the boxed child no longer resumes the child in the same poll.
    let outcome = same_at_every_suspension(|| classic::recurse(3), || runtime::recurse(3));
    assert_eq!(outcome, Outcome::Value(6));
}

#[test]
fn stacks_slices_and_adapters() {
    assert_eq!(
        same_at_every_suspension(|| classic::stack(vec![5, 1]), || runtime::stack(vec![5, 1])),
        Outcome::Value(9)
    );
    for v in [vec![], vec![4], vec![1, 2, 3]] {
        let w = v.clone();
        same_at_every_suspension(move || classic::slices(v.clone()), move || runtime::slices(w.clone()));
    }
    let items = || vec![1, -2, 3, 4, 5, 6];
    assert_eq!(
        same_at_every_suspension(|| classic::adapters(items()), || runtime::adapters(items())),
        Outcome::Value(8)
    );
}

#[test]
fn join_all_formatting_entries_and_generics() {
    same_at_every_suspension(|| classic::join_all(vec![1, 2]), || runtime::join_all(vec![1, 2]));
    let formatted = same_at_every_suspension(|| classic::formatting(7), || runtime::formatting(7));
    assert_eq!(formatted, Outcome::Value(String::from("[    7|ab ]")));
    let counted =
        same_at_every_suspension(|| classic::entry(vec!["a", "b", "a"]), || runtime::entry(vec!["a", "b", "a"]));
    assert_eq!(counted, Outcome::Value(vec![(String::from("a"), 2), (String::from("b"), 1)]));
    let a = classic::Wrapper { inner: 'x' };
    let b = runtime::Wrapper { inner: 'x' };
    assert_eq!(same_at_every_suspension(|| a.show(2), || b.show(2)), Outcome::Value(String::from("xx")));
}

#[test]
fn a_guard_whose_closure_borrows_a_reference_parameter() {
    for rounds in [0, 1, 3] {
        let outcome = same_at_every_suspension(
            || async move {
                let gate = classic::Gate { state: std::cell::Cell::new(4) };
                let got = gate.acquire(rounds).await;
                (got, gate.state.get())
            },
            || async move {
                let gate = runtime::Gate { state: std::cell::Cell::new(4) };
                let got = gate.acquire(rounds).await;
                (got, gate.state.get())
            },
        );
        assert_eq!(outcome, Outcome::Value((rounds.min(1), 4 + rounds.min(1))));
    }
    for n in [0, 5] {
        same_at_every_suspension(
            || async move { classic::guarded(&classic::Gate { state: std::cell::Cell::new(1) }, n).await },
            || async move { runtime::guarded(&runtime::Gate { state: std::cell::Cell::new(1) }, n).await },
        );
    }
}

//! The small idioms handler bodies are made of, lowered both ways and compared: a `&mut self`
//! method that takes its buffer with `mem::take` and is called from a loop with `break`,
//! a labelled block whose `break` carries a value past an await, a map updated through
//! `entry` in a loop over `&keys`, a `FnMut` closure borrowing a local across awaits, boxed
//! recursion, `?` on `Option`, `write!` with awaits in its arguments, a nested `async fn`
//! item, a tuple of awaits matched with guards, a `loop` whose `match` on an await
//! `break`s with a value, `RefCell` and `Mutex` guards dropped before an await, struct update
//! syntax, `if let .. else if let` chains, parameters shadowed, `return` inside an awaited
//! async block, `matches!` on awaits.

use std::sync::Arc;

use lowering_tests::fuzz::call_method;
use lowering_tests::*;

differential! {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};

    pub struct Conn { pub buf: Vec<u8>, pub out: Vec<String>, pub closed: bool }

    impl Conn {
        pub async fn flush(&mut self) -> u32 {
            let data = std::mem::take(&mut self.buf);
            let n = later("flush", data.len() as u32).await;
            self.out.push(String::from_utf8_lossy(&data).into_owned());
            n
        }

        pub async fn serve(&mut self, input: Vec<&'static str>) -> u32 {
            let mut total = 0;
            for chunk in input {
                if chunk == "quit" {
                    self.closed = true;
                    break;
                }
                self.buf.extend_from_slice(chunk.as_bytes());
                if self.buf.len() > 3 {
                    total += self.flush().await;
                }
            }
            if !self.buf.is_empty() {
                total += self.flush().await;
            }
            total
        }
    }

    pub async fn labelled(n: u32) -> u32 {
        let v = 'found: {
            if n == 0 {
                break 'found 7;
            }
            let x = later("x", n).await;
            if x > 3 {
                break 'found x * 2;
            }
            x + 1
        };
        v + later("y", 1).await
    }

    pub async fn count_keys(keys: Vec<&'static str>) -> Vec<(String, u32)> {
        let mut counts: HashMap<String, u32> = HashMap::new();
        for key in &keys {
            let c = later("c", 1).await;
            *counts.entry(key.to_string()).or_insert(0) += c;
        }
        let mut v: Vec<_> = counts.into_iter().collect();
        v.sort();
        v
    }

    pub async fn closure_across_awaits(n: u32) -> Vec<u32> {
        let mut events = Vec::new();
        let mut push = |x: u32| events.push(x);
        for i in 0..n {
            push(later("p", i).await);
        }
        events
    }

    pub async fn boxed_recursion(n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        let inner: std::pin::Pin<Box<dyn std::future::Future<Output = u32>>> = Box::pin(boxed_recursion(n - 1));
        inner.await + later("r", n).await
    }

    pub async fn first_plus_len(o: Option<Vec<u32>>) -> Option<u32> {
        let v = o?;
        let first = *v.first()?;
        Some(first + later("len", v.len() as u32).await)
    }

    pub async fn written(n: u32) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        write!(out, "{}-{}", later("w", n).await, n).unwrap();
        writeln!(&mut out, "{}", later("w2", n + 1).await).unwrap();
        out
    }

    pub async fn nested_item(n: u32) -> u32 {
        async fn doubled(x: u32) -> u32 {
            later("i", x).await * 2
        }
        doubled(n).await + doubled(n + 1).await
    }

    pub async fn tuple_of_awaits(a: u32) -> u32 {
        match (later("a", a).await, later("b", a + 1).await) {
            (0, _) => 0,
            (x, y) if x > 2 => x * y,
            (x, y) => x + y,
        }
    }

    pub async fn loop_match(n: u32) -> u32 {
        let mut i = 0;
        let mut acc = 0;
        loop {
            match later("m", i).await {
                x if x >= n => break acc,
                x if x % 2 == 0 => {
                    i += 1;
                    continue;
                }
                x => {
                    acc += x;
                    i += 1;
                }
            }
        }
    }

    pub async fn refcell_between_awaits(n: u32) -> Vec<u32> {
        let cell = RefCell::new(Vec::new());
        for i in 0..n {
            let v = later("v", i).await;
            cell.borrow_mut().push(v);
            if cell.borrow().len() > 1 {
                let x = cell.borrow_mut().remove(0);
                cell.borrow_mut().push(x * 10);
            }
        }
        cell.into_inner()
    }

    pub async fn guard_dropped_before(m: Arc<Mutex<Vec<u32>>>, n: u32) -> usize {
        let mut g = m.lock().unwrap();
        g.push(n);
        drop(g);
        let x = later("x", n).await;
        let mut g = m.lock().unwrap();
        g.push(x);
        g.len()
    }

    pub async fn struct_update(n: u32) -> (u32, u32, String) {
        #[derive(Clone)]
        struct Config { a: u32, b: u32, name: String }
        let base = Config { a: 1, b: 2, name: "base".into() };
        let c = Config { a: later("a", n).await, ..base.clone() };
        (c.a, c.b + base.b + base.a, c.name)
    }

    pub async fn if_let_chain(a: Option<u32>, b: Result<u32, String>) -> u32 {
        if let Some(x) = a {
            later("a", x).await
        } else if let Ok(y) = b {
            later("b", y).await + 1
        } else {
            0
        }
    }

    pub async fn shadowed_parameters(x: String, n: u32) -> String {
        let x = x.to_uppercase();
        let x = format!("{}{}", x, later("n", n).await);
        let n = n + 1;
        format!("{}{}", x, later("n2", n).await)
    }

    pub async fn return_inside_a_block(n: u32) -> u32 {
        let r = async {
            if n > 2 {
                return 100;
            }
            later("in", n).await
        }
        .await;
        r + 1
    }

    pub async fn matches_on_awaits(n: u32) -> bool {
        matches!(later("m", n).await, 1..=3) && !matches!(later("k", Some(n)).await, None)
    }
}

#[test]
fn a_mut_self_handler_takes_its_buffer() {
    let outcome = same_at_every_suspension(
        || {
            call_method(classic::Conn { buf: vec![], out: vec![], closed: false }, |c| {
                c.serve(vec!["ab", "cde", "f", "quit", "zz"])
            })
        },
        || {
            call_method(runtime::Conn { buf: vec![], out: vec![], closed: false }, |c| {
                c.serve(vec!["ab", "cde", "f", "quit", "zz"])
            })
        },
    );
    assert_eq!(outcome, Outcome::Value(6));
}

#[test]
fn control_flow_idioms() {
    for n in 0..6 {
        same_at_every_suspension(|| classic::labelled(n), || runtime::labelled(n));
        same_at_every_suspension(|| classic::tuple_of_awaits(n), || runtime::tuple_of_awaits(n));
        same_at_every_suspension(|| classic::return_inside_a_block(n), || runtime::return_inside_a_block(n));
        same_at_every_suspension(|| classic::matches_on_awaits(n), || runtime::matches_on_awaits(n));
    }
    same_at_every_suspension(|| classic::loop_match(6), || runtime::loop_match(6));
    for (a, b) in [(Some(1), Ok(2)), (None, Ok(3)), (None, Err("e".to_string()))] {
        same_at_every_suspension(|| classic::if_let_chain(a, b.clone()), || runtime::if_let_chain(a, b.clone()));
    }
    for o in [None, Some(vec![]), Some(vec![3, 4])] {
        same_at_every_suspension(|| classic::first_plus_len(o.clone()), || runtime::first_plus_len(o.clone()));
    }
}

#[test]
fn collections_closures_and_cells() {
    same_at_every_suspension(|| classic::count_keys(vec!["a", "b", "a"]), || runtime::count_keys(vec!["a", "b", "a"]));
    same_at_every_suspension(|| classic::closure_across_awaits(3), || runtime::closure_across_awaits(3));
    same_at_every_suspension(|| classic::refcell_between_awaits(4), || runtime::refcell_between_awaits(4));
    same_at_every_suspension(
        || classic::guard_dropped_before(Arc::new(Default::default()), 3),
        || runtime::guard_dropped_before(Arc::new(Default::default()), 3),
    );
}

#[test]
fn items_recursion_and_formatting() {
    same_at_every_suspension(|| classic::boxed_recursion(3), || runtime::boxed_recursion(3));
    same_at_every_suspension(|| classic::written(3), || runtime::written(3));
    same_at_every_suspension(|| classic::nested_item(3), || runtime::nested_item(3));
    same_at_every_suspension(|| classic::struct_update(3), || runtime::struct_update(3));
    same_at_every_suspension(
        || classic::shadowed_parameters("ab".into(), 3),
        || runtime::shadowed_parameters("ab".into(), 3),
    );
}

//! Handlers and helpers as services and codecs write them, lowered both ways and compared: a
//! connection state machine stepped through `match &mut self.state` whose arms await, a
//! pinned stream drained with `while let Some(x) = s.next().await`, a bounded channel filled
//! and drained, an async mutex guard and a `RefCell` used across awaits, `@` bindings in a
//! guard that awaits, a queue drained with `while let`, `enumerate` over a borrowed vector,
//! slices of a local passed to an awaited writer, `write!`/`format!`/`matches!` with awaits,
//! labelled blocks left from a loop, temporaries built from an await.

use std::collections::VecDeque;
use std::fmt::Write as _;

use futures::{SinkExt, StreamExt};
use lowering_tests::fuzz::weigh;
use lowering_tests::*;

pub async fn write_all(out: &mut Vec<u8>, bytes: &[u8]) -> Result<usize, String> {
    later("write", ()).await;
    out.extend_from_slice(bytes);
    Ok(bytes.len())
}

differential! {
    pub enum State { Idle, Reading(Vec<u8>), Done(u32) }

    pub struct Connection { pub state: State, pub seen: Vec<String> }

    impl Connection {
        pub async fn step(&mut self, input: u8) -> Option<u32> {
            match &mut self.state {
                State::Idle => {
                    self.seen.push(later("idle", String::from("start")).await);
                    self.state = State::Reading(vec![input]);
                    None
                }
                State::Reading(buf) => {
                    buf.push(later("read", input).await);
                    if buf.len() >= 3 {
                        let total = buf.iter().map(|b| *b as u32).sum();
                        self.state = State::Done(total);
                        Some(total)
                    } else {
                        None
                    }
                }
                State::Done(n) => Some(*n),
            }
        }

        pub async fn run(&mut self, inputs: Vec<u8>) -> Vec<Option<u32>> {
            let mut out = Vec::new();
            for b in inputs {
                out.push(self.step(b).await);
            }
            out
        }
    }

    pub async fn stream_sum(n: u32) -> u32 {
        let mut s = std::pin::pin!(futures::stream::iter(0..n).then(|x| later("s", x * 2)));
        let mut total = 0;
        while let Some(x) = s.next().await {
            total += x;
        }
        total
    }

    pub async fn channel(n: u32) -> Vec<u32> {
        let (mut tx, mut rx) = futures::channel::mpsc::channel::<u32>(4);
        for i in 0..n {
            tx.send(later("tx", i).await).await.unwrap();
        }
        drop(tx);
        let mut got = Vec::new();
        while let Some(v) = rx.next().await {
            got.push(v);
        }
        got
    }

    pub async fn locked(m: std::sync::Arc<futures::lock::Mutex<Vec<u32>>>, v: u32) -> usize {
        let mut g = m.lock().await;
        g.push(later("p", v).await);
        let len = g.len();
        drop(g);
        len + m.lock().await.len()
    }

    pub async fn refcell(c: std::rc::Rc<std::cell::RefCell<Vec<u32>>>) -> u32 {
        let n = later("n", 5u32).await;
        c.borrow_mut().push(n);
        let sum: u32 = c.borrow().iter().sum();
        sum + later("m", c.borrow().len() as u32).await
    }

    pub async fn at_binding(n: u32) -> u32 {
        match n {
            small @ 1..=5 if later("g", small % 2 == 1).await => small * 10,
            big @ 6.. => later("b", big).await,
            other => other,
        }
    }

    pub async fn queue_drain(mut q: VecDeque<Loud>) -> u32 {
        let mut total = 0;
        while let Some(item) = q.pop_front() {
            total += later("item", weigh(&item)).await;
        }
        total
    }

    pub async fn enumerate_refs(v: Vec<u32>) -> u32 {
        let mut acc = 0;
        for (i, x) in v.iter().enumerate() {
            acc += later("x", *x * i as u32).await;
        }
        acc + v.len() as u32
    }

    pub async fn slices(data: Vec<u8>) -> Result<usize, String> {
        let mut out = Vec::new();
        let n = data.len() / 2;
        let first = write_all(&mut out, &data[..n]).await?;
        let rest = write_all(&mut out, &data[n..]).await?;
        if out != data {
            return Err(String::from("mismatch"));
        }
        Ok(first + rest)
    }

    pub async fn formatting(n: u32) -> String {
        let mut s = String::new();
        write!(s, "{}-{}", later("a", n).await, n + 1).unwrap();
        let t = format!("{s}/{}", now("b", n * 2).await);
        t
    }

    pub async fn matches_macro(o: Option<u32>) -> bool {
        if matches!(later("m", o).await, Some(x) if x > 2) {
            return true;
        }
        !later("n", false).await
    }

    pub async fn labelled(n: u32) -> u32 {
        let v = 'found: {
            for i in 0..n {
                if later("i", i).await == 3 {
                    break 'found i * 100;
                }
            }
            0
        };
        v + 1
    }

    pub async fn temporary_of_an_await(n: u32) -> usize {
        let s = weigh(&Loud::new(&later("name", format!("n{n}")).await));
        s as usize + later("l", String::from(" abc ")).await.trim().len()
    }
}

#[test]
fn a_connection_state_machine() {
    let classic_steps = futures::executor::block_on(async {
        let mut connection = classic::Connection { state: classic::State::Idle, seen: vec![] };
        (connection.run(vec![1, 2, 3, 4, 5]).await, connection.seen)
    });
    let runtime_steps = futures::executor::block_on(async {
        let mut connection = runtime::Connection { state: runtime::State::Idle, seen: vec![] };
        (connection.run(vec![1, 2, 3, 4, 5]).await, connection.seen)
    });
    assert_eq!(classic_steps, runtime_steps);
    assert_eq!(classic_steps.0, [None, None, Some(6), Some(6), Some(6)]);
}

#[test]
fn streams_channels_and_locks() {
    same_at_every_suspension(|| classic::stream_sum(4), || runtime::stream_sum(4));
    same_at_every_suspension(|| classic::channel(3), || runtime::channel(3));
    let mutex = || std::sync::Arc::new(futures::lock::Mutex::new(vec![1u32]));
    same_at_every_suspension(|| classic::locked(mutex(), 3), || runtime::locked(mutex(), 3));
    let cell = || std::rc::Rc::new(std::cell::RefCell::new(vec![1u32]));
    same_at_every_suspension(|| classic::refcell(cell()), || runtime::refcell(cell()));
}

#[test]
fn patterns_loops_and_macros() {
    for n in [0, 1, 2, 3, 7] {
        same_at_every_suspension(|| classic::at_binding(n), || runtime::at_binding(n));
        same_at_every_suspension(|| classic::formatting(n), || runtime::formatting(n));
        same_at_every_suspension(|| classic::labelled(n), || runtime::labelled(n));
        same_at_every_suspension(|| classic::temporary_of_an_await(n), || runtime::temporary_of_an_await(n));
    }
    let queue = || VecDeque::from([Loud::new("a"), Loud::new("bb")]);
    same_at_every_suspension(|| classic::queue_drain(queue()), || runtime::queue_drain(queue()));
    same_at_every_suspension(|| classic::enumerate_refs(vec![3, 4, 5]), || runtime::enumerate_refs(vec![3, 4, 5]));
    same_at_every_suspension(|| classic::slices(vec![1, 2, 3, 4, 5]), || runtime::slices(vec![1, 2, 3, 4, 5]));
    for o in [None, Some(1), Some(5)] {
        same_at_every_suspension(|| classic::matches_macro(o), || runtime::matches_macro(o));
    }
}

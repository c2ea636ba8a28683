//! More async Rust in everyday shapes, lowered both ways and compared (results, events,
//! drops, and the future dropped at every suspension): a generic copy loop over traits with
//! async methods, an actor draining a channel with struct-variant messages and a one-shot
//! reply, parsing with `?` and `From` conversions, a service method on `self: Arc<Self>` with
//! a cache, an `async fn` in a trait (with a default method) and its impl, a buffer taken with
//! `mem::take` between awaits, `impl Into<String>` parameters.

use futures::StreamExt;
use futures::channel::{mpsc, oneshot};
use lowering_tests::*;
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Debug, PartialEq)]
pub enum AppError {
    Missing(u32),
    Parse(std::num::ParseIntError),
}
impl From<std::num::ParseIntError> for AppError {
    fn from(e: std::num::ParseIntError) -> Self {
        AppError::Parse(e)
    }
}

pub trait Source {
    fn read(&mut self, buf: &mut [u8]) -> impl std::future::Future<Output = Result<usize, AppError>>;
}
pub trait Sink {
    fn write(&mut self, buf: &[u8]) -> impl std::future::Future<Output = Result<(), AppError>>;
}
pub struct Mem {
    pub data: Vec<u8>,
    pub at: usize,
}
impl Source for Mem {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, AppError> {
        later("r", ()).await;
        let n = buf.len().min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
impl Sink for Vec<u8> {
    async fn write(&mut self, buf: &[u8]) -> Result<(), AppError> {
        later("w", ()).await;
        self.extend_from_slice(buf);
        Ok(())
    }
}

pub enum Msg {
    Get { id: u32, reply: oneshot::Sender<u32> },
    Bump(u32),
    Stop,
}

differential! {
    pub async fn copy<R: Source, W: Sink>(r: &mut R, w: &mut W) -> Result<u64, AppError> {
        let mut buf = [0u8; 3];
        let mut total = 0;
        loop {
            let n = r.read(&mut buf).await?;
            if n == 0 { return Ok(total); }
            w.write(&buf[..n]).await?;
            total += n as u64;
        }
    }

    pub async fn actor(mut rx: mpsc::Receiver<Msg>) -> u32 {
        let mut state = 0;
        'outer: while let Some(msg) = rx.next().await {
            match msg {
                Msg::Get { id, reply } => {
                    let value = later("compute", id + state).await;
                    let _ = reply.send(value);
                }
                Msg::Bump(x) if x > 3 => state += later("big", x).await,
                Msg::Bump(x) => state += x,
                Msg::Stop => break 'outer,
            }
        }
        state
    }

    pub async fn parse_all(lines: Vec<String>) -> Result<u32, AppError> {
        let mut sum = 0;
        for line in lines {
            let line = line.trim();
            if line.is_empty() { continue; }
            let n: u32 = line.parse()?;
            let v = match later("lookup", if n % 2 == 0 { Some(n) } else { None }).await {
                Some(v) => v,
                None => return Err(AppError::Missing(n)),
            };
            sum += v;
        }
        Ok(sum)
    }

    #[derive(Default)]
    pub struct Service { pub cache: std::sync::Mutex<HashMap<u32, String>>, pub calls: std::sync::atomic::AtomicU32 }

    #[allow(async_fn_in_trait)]
    pub trait Handle { async fn call(&self, id: u32) -> Result<String, AppError>; async fn twice(&self, id: u32) -> String { format!("{:?}{:?}", self.call(id).await, self.call(id + 1).await) } }

    impl Service {
        pub async fn run(self: Arc<Self>, id: u32) -> String {
            if let Some(hit) = self.cache.lock().unwrap().get(&id) {
                return hit.clone();
            }
            let value = later("fetch", format!("v{id}")).await;
            self.cache.lock().unwrap().insert(id, value.clone());
            self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            value
        }
    }

    impl Handle for Service {
        async fn call(&self, id: u32) -> Result<String, AppError> {
            let guard = self.cache.lock().unwrap();
            let known = guard.len();
            drop(guard);
            let v = later("call", id).await;
            Ok(format!("{v}/{known}"))
        }
    }

    pub async fn take_buffer(parts: Vec<String>) -> Vec<String> {
        let mut pending: Vec<String> = Vec::new();
        let mut out = Vec::new();
        for part in parts {
            pending.push(part);
            if pending.len() == 2 {
                let batch = std::mem::take(&mut pending);
                out.push(later("flush", batch.join("+")).await);
            }
        }
        if !pending.is_empty() { out.push(later("rest", pending.join("+")).await); }
        out
    }

    pub async fn greet(name: impl Into<String>, times: usize) -> String {
        let name: String = name.into();
        let mut s = String::new();
        for _ in 0..times { s.push_str(&later("g", name.clone()).await); }
        s
    }
}

#[test]
fn everyday_services() {
    let mut a = Mem { data: b"hello world".to_vec(), at: 0 };
    let mut wa = Vec::new();
    let mut b = Mem { data: b"hello world".to_vec(), at: 0 };
    let mut wb = Vec::new();
    let (copied, _) = same(|| classic::copy(&mut a, &mut wa), || runtime::copy(&mut b, &mut wb));
    assert_eq!((copied, wa.as_slice()), (Outcome::Value(Ok(11)), b"hello world".as_slice()));
    let msgs = || {
        let (mut tx, rx) = mpsc::channel(8);
        let (otx, _orx) = oneshot::channel();
        for m in [Msg::Bump(2), Msg::Bump(5), Msg::Get { id: 1, reply: otx }, Msg::Stop, Msg::Bump(100)] {
            tx.try_send(m).ok();
        }
        rx
    };
    // The message after `Stop` is never handled; the reply is sent and its receiver dropped.
    assert_eq!(same_at_every_suspension(|| classic::actor(msgs()), || runtime::actor(msgs())), Outcome::Value(7));
    for lines in [vec![" 2 ".to_string(), "".into(), "4".into()], vec!["3".into()], vec!["x".into()]] {
        let l2 = lines.clone();
        same_at_every_suspension(move || classic::parse_all(lines.clone()), move || runtime::parse_all(l2.clone()));
    }
    same(|| Arc::new(classic::Service::default()).run(3), || Arc::new(runtime::Service::default()).run(3));
    let s1 = classic::Service::default();
    let s2 = runtime::Service::default();
    same(
        || {
            use classic::Handle;
            s1.twice(3)
        },
        || {
            use runtime::Handle;
            s2.twice(3)
        },
    );
    let parts = || vec!["a".to_string(), "b".into(), "c".into()];
    same_at_every_suspension(|| classic::take_buffer(parts()), || runtime::take_buffer(parts()));
    let greeting = same_at_every_suspension(|| classic::greet("x", 2), || runtime::greet("x", 2));
    assert_eq!(greeting, Outcome::Value(String::from("xx")));
}

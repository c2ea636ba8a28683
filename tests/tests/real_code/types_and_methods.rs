//! Types and methods in classic bodies, lowered both ways and compared (results, events,
//! drops, the future dropped at every suspension): a constructor returning `Result<Self, _>`,
//! a method returning a borrow of `self` after an await, `join!` of two `&self` calls, a
//! generic repository behind an async mutex (`lock().await.push(..)` through `DerefMut`), a
//! struct pattern in a `let`, or-patterns over results, closures that return futures.

use lowering_tests::*;
pub async fn fetch(x: u32) -> u32 {
    later("fetch", x).await
}
pub struct Config {
    pub host: String,
    pub port: u16,
    /// Left out by the `..` of the pattern under test.
    #[allow(dead_code)]
    pub retries: u32,
}

differential! {
    pub struct Conn { pub addr: String }
    impl Conn {
        pub async fn connect(host: &str, port: u16) -> Result<Self, String> {
            let resolved = later("resolve", format!("{host}:{port}")).await;
            if port == 0 { return Err(format!("bad port for {resolved}")); }
            Ok(Self { addr: resolved })
        }
        pub async fn name<'a>(&'a self, prefix: &str) -> &'a str {
            later("name", ()).await;
            if prefix.is_empty() { &self.addr } else { &self.addr[..prefix.len().min(self.addr.len())] }
        }
        pub async fn load(&self, k: u32) -> u32 { later("load", k + self.addr.len() as u32).await }
        pub async fn both(&self) -> (u32, u32) { futures::join!(self.load(1), self.load(2)) }
    }

    pub struct Repo<T> { pub items: futures::lock::Mutex<Vec<T>> }
    impl<T> Repo<T> where T: Clone + Send + 'static {
        pub async fn add(&self, item: T) -> usize {
            self.items.lock().await.push(later("add", item).await);
            self.items.lock().await.len()
        }
        pub async fn get(&self, i: usize) -> Option<T> { self.items.lock().await.get(i).cloned() }
    }

    pub async fn from_config(cfg: Config) -> Result<u32, String> {
        let Config { host, port, .. } = cfg;
        let conn = Conn::connect(&host, port).await?;
        let (a, b) = conn.both().await;
        Ok(a + b + conn.name("").await.len() as u32)
    }

    pub async fn pairs(a: Result<u32, String>, b: Result<u32, String>) -> Result<u32, String> {
        match (later("a", a).await, later("b", b).await) {
            (Ok(x), Ok(y)) => Ok(x + y),
            (Err(e), _) | (_, Err(e)) => Err(later("e", e).await),
        }
    }

    pub async fn closure_futures(n: u32) -> u32 {
        let op = |x: u32| fetch(x + n);
        op(1).await + op(2).await
    }
}

#[test]
fn constructors_borrows_of_self_and_joins() {
    let config = |port| Config { host: "h".into(), port, retries: 1 };
    let outcome = same_at_every_suspension(|| classic::from_config(config(0)), || runtime::from_config(config(0)));
    assert_eq!(outcome, Outcome::Value(Err(String::from("bad port for h:0"))));
    let outcome = same_at_every_suspension(|| classic::from_config(config(80)), || runtime::from_config(config(80)));
    assert_eq!(outcome, Outcome::Value(Ok(5 + 6 + 4)));
}

#[test]
fn a_repository_behind_an_async_mutex() {
    let r1 = classic::Repo { items: futures::lock::Mutex::new(vec![1u32]) };
    let r2 = runtime::Repo { items: futures::lock::Mutex::new(vec![1u32]) };
    assert_eq!(same(|| r1.add(5), || r2.add(5)).0, Outcome::Value(2));
    assert_eq!(same(|| r1.get(1), || r2.get(1)).0, Outcome::Value(Some(5)));
}

#[test]
fn or_patterns_and_closures_returning_futures() {
    for (a, b) in [(Ok(1), Ok(2)), (Err("x".to_string()), Ok(2)), (Ok(1), Err("y".to_string()))] {
        let (a2, b2) = (a.clone(), b.clone());
        same_at_every_suspension(
            move || classic::pairs(a.clone(), b.clone()),
            move || runtime::pairs(a2.clone(), b2.clone()),
        );
    }
    assert_eq!(
        same_at_every_suspension(|| classic::closure_futures(3), || runtime::closure_futures(3)),
        Outcome::Value(9)
    );
}

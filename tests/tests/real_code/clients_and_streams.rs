//! Client code and stream combinators in classic bodies, lowered both ways and compared
//! (results, events, drops, the future dropped at every suspension): a request builder
//! consumed by its awaited `send` and a response by its `text`, a timeout raced with
//! `future::select`, `for_each`/`unfold`/`try_fold` over streams with async closures, drop
//! guards left by `?`, and `let ... else` in a loop.

use futures::stream::{self, StreamExt, TryStreamExt};
use lowering_tests::*;

pub async fn fetch(x: u32) -> u32 {
    later("fetch", x).await
}

pub struct Client {
    pub calls: std::cell::Cell<u32>,
}
pub struct RequestBuilder<'c> {
    pub client: &'c Client,
    pub url: String,
    pub headers: Vec<(String, String)>,
}
pub struct Response {
    pub status: u16,
    pub body: String,
}
impl Client {
    pub fn get(&self, url: &str) -> RequestBuilder<'_> {
        RequestBuilder { client: self, url: url.to_owned(), headers: Vec::new() }
    }
}
impl<'c> RequestBuilder<'c> {
    pub fn header(mut self, k: &str, v: &str) -> Self {
        self.headers.push((k.into(), v.into()));
        self
    }
    pub async fn send(self) -> Result<Response, String> {
        self.client.calls.set(self.client.calls.get() + 1);
        later("send", ()).await;
        if self.url.contains("bad") {
            return Err(format!("404 {}", self.url));
        }
        Ok(Response { status: 200, body: format!("{}:{}", self.url, self.headers.len()) })
    }
}
impl Response {
    pub async fn text(self) -> Result<String, String> {
        later("text", ()).await;
        Ok(self.body)
    }
}

pub struct Guard(pub &'static str);
impl Drop for Guard {
    fn drop(&mut self) {
        log(format!("release {}", self.0));
    }
}

differential! {
    pub async fn crawl(client: &Client, urls: Vec<&'static str>) -> Result<Vec<String>, String> {
        let mut bodies = Vec::new();
        for url in urls {
            let req = client.get(url).header("accept", "*/*");
            let resp = req.send().await?;
            if resp.status != 200 { continue; }
            bodies.push(resp.text().await?);
        }
        Ok(bodies)
    }

    pub async fn with_timeout(ready: bool) -> Result<u32, &'static str> {
        let work = Box::pin(async move { if ready { fetch(1).await } else { forever::<u32>("never").await } });
        let deadline = Box::pin(later("deadline", ()));
        match futures::future::select(work, deadline).await {
            futures::future::Either::Left((v, _)) => Ok(v),
            futures::future::Either::Right(((), _)) => Err("timed out"),
        }
    }

    pub async fn streams(n: u32) -> (u32, Vec<u32>, Result<u32, String>) {
        let mut total = 0;
        stream::iter(0..n).for_each(|x| { total += x; async move { later("each", x).await; } }).await;
        let squares: Vec<u32> = stream::unfold(0u32, |s| async move { if s < 3 { Some((s * s, s + 1)) } else { None } }).collect().await;
        let checked = stream::iter(vec![Ok::<u32, String>(1), Ok(2)]).try_fold(0, |acc, x| async move { Ok(acc + fetch(x).await) }).await;
        (total, squares, checked)
    }

    pub async fn guarded(fail: bool) -> Result<u32, String> {
        let _g = Guard("outer");
        let v = fetch(1).await;
        {
            let _inner = Guard("inner");
            if fail { Err(String::from("failed"))?; }
            fetch(2).await;
        }
        Ok(v)
    }

    pub async fn let_else_loop(items: Vec<Option<u32>>) -> u32 {
        let mut it = items.into_iter();
        let mut sum = 0;
        loop {
            let Some(next) = it.next() else { break };
            let Some(v) = next else { continue };
            sum += fetch(v).await;
        }
        sum
    }
}

#[test]
fn a_client_crawls_with_request_builders() {
    let c1 = Client { calls: Default::default() };
    let c2 = Client { calls: Default::default() };
    let outcome =
        same_at_every_suspension(|| classic::crawl(&c1, vec!["a", "b"]), || runtime::crawl(&c2, vec!["a", "b"]));
    assert_eq!(outcome, Outcome::Value(Ok(vec![String::from("a:1"), String::from("b:1")])));
    let outcome =
        same_at_every_suspension(|| classic::crawl(&c1, vec!["a", "bad"]), || runtime::crawl(&c2, vec!["a", "bad"]));
    assert_eq!(outcome, Outcome::Value(Err(String::from("404 bad"))));
}

#[test]
fn a_timeout_raced_with_select() {
    assert_eq!(
        same_at_every_suspension(|| classic::with_timeout(true), || runtime::with_timeout(true)),
        Outcome::Value(Ok(1))
    );
    assert_eq!(
        same_at_every_suspension(|| classic::with_timeout(false), || runtime::with_timeout(false)),
        Outcome::Value(Err("timed out"))
    );
}

#[test]
fn stream_combinators_with_async_closures() {
    let outcome = same_at_every_suspension(|| classic::streams(3), || runtime::streams(3));
    assert_eq!(outcome, Outcome::Value((3, vec![0, 1, 4], Ok(3))));
}

#[test]
fn guards_left_by_the_question_mark_and_let_else_loops() {
    for fail in [true, false] {
        same_at_every_suspension(|| classic::guarded(fail), || runtime::guarded(fail));
    }
    let items = || vec![Some(1), None, Some(2)];
    assert_eq!(
        same_at_every_suspension(|| classic::let_else_loop(items()), || runtime::let_else_loop(items())),
        Outcome::Value(3)
    );
}

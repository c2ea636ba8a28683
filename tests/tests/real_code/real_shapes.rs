//! Async Rust in the shapes servers, clients and codecs are written in (a connection that
//! parses frames out of its own buffer and reads more when it must, a handler loop on
//! `&mut self` racing a read against a shutdown signal, commands applied to a database and a
//! connection, a retry loop with backoff, a stream forwarded into a sink, a line protocol),
//! written here against in-memory streams, lowered both ways and compared: results, events,
//! drops, and the future dropped at every suspension.

use std::collections::HashMap;
use std::io;

use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use lowering_tests::*;

/// An in-memory byte stream: each read suspends once and yields at most `chunk` bytes.
pub struct Pipe {
    pub input: Vec<u8>,
    pub at: usize,
    pub chunk: usize,
    pub output: Vec<u8>,
}

impl Pipe {
    pub fn new(input: &str, chunk: usize) -> Self {
        Pipe { input: input.as_bytes().to_vec(), at: 0, chunk, output: Vec::new() }
    }

    /// Appends what it read to `buf`; 0 at the end of the input.
    pub async fn read_buf(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        later("read", ()).await;
        let end = (self.at + self.chunk).min(self.input.len());
        buf.extend_from_slice(&self.input[self.at..end]);
        let n = end - self.at;
        self.at = end;
        Ok(n)
    }

    pub async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        later("write", ()).await;
        if bytes.contains(&b'!') {
            return Err(io::Error::other("refused"));
        }
        self.output.extend_from_slice(bytes);
        Ok(())
    }
}

/// A client shared behind an `Arc`, whose methods borrow it.
pub struct Client {
    pub base: u32,
}

impl Client {
    pub async fn query(&self, q: u32) -> u32 {
        later("query", self.base + q).await
    }
}

#[derive(Debug, PartialEq, Clone)]
pub enum Frame {
    Simple(String),
    Bulk(Vec<u8>),
    Array(Vec<Frame>),
}

differential! {
    /// A connection: a stream and the bytes read from it but not yet parsed.
    pub struct Connection {
        pub stream: Pipe,
        pub buffer: Vec<u8>,
    }

    impl Connection {
        /// A frame is a line: `+text`, `$bytes` or `*a b c` (an array of simple frames).
        fn parse_frame(&mut self) -> io::Result<Option<Frame>> {
            let Some(end) = self.buffer.iter().position(|&b| b == b'\n') else { return Ok(None) };
            let line: Vec<u8> = self.buffer.drain(..=end).collect();
            let text = String::from_utf8_lossy(&line[1..line.len() - 1]).into_owned();
            match line[0] {
                b'+' => Ok(Some(Frame::Simple(text))),
                b'$' => Ok(Some(Frame::Bulk(text.into_bytes()))),
                b'*' => Ok(Some(Frame::Array(text.split(' ').map(|part| Frame::Simple(part.to_owned())).collect()))),
                other => Err(io::Error::new(io::ErrorKind::InvalidData, format!("bad frame type {other}"))),
            }
        }
    }

    pub enum Command {
        Get(Get),
        Set(Set),
        Unknown(String),
    }

    pub struct Get {
        pub key: String,
    }

    pub struct Set {
        pub key: String,
        pub value: Vec<u8>,
    }

    impl Command {
        pub fn from_frame(frame: Frame) -> io::Result<Command> {
            let Frame::Array(parts) = frame else {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "expected an array"));
            };
            let mut parts = parts.into_iter().map(|part| match part {
                Frame::Simple(text) => text,
                other => format!("{other:?}"),
            });
            match parts.next().as_deref() {
                Some("get") => Ok(Command::Get(Get { key: parts.next().unwrap_or_default() })),
                Some("set") => {
                    let key = parts.next().unwrap_or_default();
                    let value = parts.next().unwrap_or_default().into_bytes();
                    Ok(Command::Set(Set { key, value }))
                }
                Some(name) => Ok(Command::Unknown(name.to_owned())),
                None => Err(io::Error::new(io::ErrorKind::InvalidData, "empty command")),
            }
        }
    }

    #[derive(Default)]
    pub struct Db {
        pub entries: HashMap<String, Vec<u8>>,
    }

    /// A shutdown signal: a channel whose sender's drop (or a message) says stop.
    pub struct Shutdown {
        pub notify: mpsc::Receiver<()>,
        pub is_shutdown: bool,
    }

    impl Shutdown {
        pub async fn recv(&mut self) {
            if self.is_shutdown {
                return;
            }
            let _ = self.notify.next().await;
            self.is_shutdown = true;
        }
    }

    pub struct Handler {
        pub db: Db,
        pub connection: Connection,
        pub shutdown: Shutdown,
        pub served: u32,
    }

    impl Connection {
        /// Parse what is buffered; read more only when no whole frame is there.
        pub async fn read_frame(&mut self) -> io::Result<Option<Frame>> {
            loop {
                if let Some(frame) = self.parse_frame()? {
                    return Ok(Some(frame));
                }
                if 0 == self.stream.read_buf(&mut self.buffer).await? {
                    if self.buffer.is_empty() {
                        return Ok(None);
                    } else {
                        return Err(io::Error::new(io::ErrorKind::ConnectionReset, "connection reset by peer"));
                    }
                }
            }
        }

        pub async fn write_frame(&mut self, frame: &Frame) -> io::Result<()> {
            match frame {
                Frame::Simple(text) => {
                    self.stream.write_all(b"+").await?;
                    self.stream.write_all(text.as_bytes()).await?;
                }
                Frame::Bulk(bytes) => {
                    self.stream.write_all(format!("${}:", bytes.len()).as_bytes()).await?;
                    self.stream.write_all(bytes).await?;
                }
                Frame::Array(items) => {
                    self.stream.write_all(b"*").await?;
                    for item in items {
                        if let Frame::Simple(text) = item {
                            self.stream.write_all(text.as_bytes()).await?;
                            self.stream.write_all(b" ").await?;
                        }
                    }
                }
            }
            self.stream.write_all(b"\n").await
        }
    }

    impl Get {
        pub async fn apply(self, db: &Db, dst: &mut Connection) -> io::Result<()> {
            let response = match db.entries.get(&self.key) {
                Some(value) => Frame::Bulk(value.clone()),
                None => Frame::Simple(String::from("nil")),
            };
            dst.write_frame(&response).await
        }
    }

    impl Set {
        pub async fn apply(self, db: &mut Db, dst: &mut Connection) -> io::Result<()> {
            db.entries.insert(self.key, self.value);
            dst.write_frame(&Frame::Simple(String::from("OK"))).await
        }
    }

    impl Command {
        pub async fn apply(self, db: &mut Db, dst: &mut Connection) -> io::Result<()> {
            match self {
                Command::Get(cmd) => cmd.apply(db, dst).await,
                Command::Set(cmd) => cmd.apply(db, dst).await,
                Command::Unknown(name) => {
                    let response = Frame::Simple(format!("ERR unknown command '{name}'"));
                    dst.write_frame(&response).await
                }
            }
        }
    }

    impl Handler {
        /// Serve frames until the peer closes or shutdown is signalled.
        pub async fn run(&mut self) -> io::Result<()> {
            while !self.shutdown.is_shutdown {
                let maybe_frame = tokio::select! {
                    biased;
                    _ = self.shutdown.recv() => {
                        log("shutdown");
                        return Ok(());
                    }
                    res = self.connection.read_frame() => res?,
                };
                let frame = match maybe_frame {
                    Some(frame) => frame,
                    None => return Ok(()),
                };
                let cmd = Command::from_frame(frame)?;
                cmd.apply(&mut self.db, &mut self.connection).await?;
                self.served += 1;
            }
            Ok(())
        }
    }

    /// A shared client queried at its last use: `Arc`'s methods borrow, never consume.
    pub async fn ask(client: std::sync::Arc<Client>, q: u32) -> u32 {
        let first = client.query(q).await;
        first + client.query(q + 1).await
    }

    /// Retry with a doubling backoff while the error is one worth retrying.
    pub async fn with_retries(failures: u32, max_attempts: u32) -> Result<u32, String> {
        let mut attempt = 0;
        let mut backoff = 1;
        loop {
            attempt += 1;
            let outcome: Result<u32, String> =
                if attempt <= failures { Err(format!("busy {attempt}")) } else { Ok(later("ok", attempt).await) };
            match outcome {
                Ok(value) => return Ok(value * 10 + backoff),
                Err(error) if attempt < max_attempts && error.starts_with("busy") => {
                    later("backoff", backoff).await;
                    backoff *= 2;
                }
                Err(error) => return Err(format!("gave up after {attempt}: {error}")),
            }
        }
    }

    /// Forward a stream into a sink, stopping at the first refusal.
    pub async fn forward(items: Vec<u32>, capacity: usize) -> (u32, Vec<u32>) {
        let (mut tx, mut rx) = mpsc::channel::<u32>(capacity);
        let mut source = futures::stream::iter(items);
        let mut forwarded = 0;
        while let Some(item) = source.next().await {
            if item == 0 {
                continue;
            }
            if let Err(error) = tx.send(item).await {
                log(format!("send failed: {error}"));
                break;
            }
            forwarded += 1;
            if forwarded == capacity as u32 {
                break;
            }
        }
        drop(tx);
        let received: Vec<u32> = rx.by_ref().collect().await;
        (forwarded, received)
    }

    /// A line protocol over a text held across awaits: commands split off each line.
    pub async fn line_protocol(text: String) -> Result<Vec<String>, String> {
        let mut db: HashMap<&str, String> = HashMap::new();
        let mut replies = Vec::new();
        for line in text.lines() {
            let mut parts = line.splitn(3, ' ');
            match (parts.next(), parts.next(), parts.next()) {
                (Some("SET"), Some(key), Some(value)) => {
                    let stored = later("store", value.to_uppercase()).await;
                    db.insert(key, stored);
                    replies.push(String::from("OK"));
                }
                (Some("GET"), Some(key), None) => {
                    let value = db.get(key).cloned().ok_or_else(|| format!("no key {key}"))?;
                    replies.push(later("fetch", value).await);
                }
                (Some(""), None, None) => continue,
                _ => return Err(format!("bad line: {line}")),
            }
        }
        Ok(replies)
    }
}

/// A handler of module `$variant` over `input` (read `chunk` bytes at a time), with its
/// shutdown already signalled or not, and the signal's sender.
macro_rules! handler {
    ($variant:ident, $input:expr, $chunk:expr, $shutdown:expr) => {{
        let (mut tx, rx) = mpsc::channel(1);
        if $shutdown {
            tx.try_send(()).unwrap_or(());
        }
        let handler = $variant::Handler {
            db: $variant::Db::default(),
            connection: $variant::Connection { stream: Pipe::new($input, $chunk), buffer: Vec::new() },
            shutdown: $variant::Shutdown { notify: rx, is_shutdown: false },
            served: 0,
        };
        (handler, tx)
    }};
}

/// Runs `run` on a fresh handler in each lowering; what it wrote and how many it served.
fn served(input: &str, chunk: usize, shutdown: bool) -> (String, u32) {
    let (mut a, _a_tx) = handler!(classic, input, chunk, shutdown);
    let (mut b, _b_tx) = handler!(runtime, input, chunk, shutdown);
    let classic_outcome = run(Stop::AtEnd, || a.run()).0;
    let runtime_outcome = run(Stop::AtEnd, || b.run()).0;
    let written = |pipe: &Pipe| String::from_utf8_lossy(&pipe.output).into_owned();
    let classic = (format!("{classic_outcome:?}"), written(&a.connection.stream), a.served);
    let runtime = (format!("{runtime_outcome:?}"), written(&b.connection.stream), b.served);
    assert_eq!(classic, runtime, "classic (left) and runtime (right) differ");
    (classic.1, classic.2)
}

/// An I/O result with its error as text (`io::Error` has no `PartialEq`).
async fn text<T>(result: impl std::future::Future<Output = io::Result<T>>) -> Result<T, String> {
    result.await.map_err(|error| format!("{:?}: {error}", error.kind()))
}

const SESSION: &str = "*set a 1\n*get a\n*get b\n*ping\n";

#[test]
fn a_connection_reads_frames_out_of_its_buffer() {
    for chunk in [1, 3, 64] {
        for input in ["+hello\n$bytes\n", "+cut", "", "?bad\n"] {
            let mut a = classic::Connection { stream: Pipe::new(input, chunk), buffer: Vec::new() };
            let mut b = runtime::Connection { stream: Pipe::new(input, chunk), buffer: Vec::new() };
            same(|| text(a.read_frame()), || text(b.read_frame()));
        }
    }
}

#[test]
fn a_handler_serves_commands_until_the_peer_closes() {
    for chunk in [2, 5, 100] {
        let (written, count) = served(SESSION, chunk, false);
        assert_eq!(written, "+OK\n$1:1\n+nil\n+ERR unknown command 'ping'\n");
        assert_eq!(count, 4);
    }
    let (written, count) = served("*set a 1\n+not an array\n", 4, false);
    assert_eq!((written.as_str(), count), ("+OK\n", 1));
}

#[test]
fn a_handler_stops_on_shutdown() {
    let (written, count) = served(SESSION, 3, true);
    assert_eq!((written.as_str(), count), ("", 0));
}

#[test]
fn a_handler_dropped_at_every_suspension() {
    // The handler borrowed for the call: a new one per run, leaked (it outlives the futures).
    same_at_every_suspension(
        || text(Box::leak(Box::new(handler!(classic, SESSION, 4, false))).0.run()),
        || text(Box::leak(Box::new(handler!(runtime, SESSION, 4, false))).0.run()),
    );
}

#[test]
fn a_shared_client_queried_at_its_last_use() {
    let client = std::sync::Arc::new(Client { base: 10 });
    let outcome = same_at_every_suspension(|| classic::ask(client.clone(), 1), || runtime::ask(client.clone(), 1));
    assert_eq!(outcome, Outcome::Value(23));
}

#[test]
fn a_retry_loop_with_backoff() {
    for (failures, max) in [(0, 3), (2, 3), (3, 3), (5, 2)] {
        same_at_every_suspension(|| classic::with_retries(failures, max), || runtime::with_retries(failures, max));
    }
}

#[test]
fn a_stream_forwarded_into_a_sink() {
    for capacity in [1, 2, 8] {
        let items = || vec![3, 0, 4, 5];
        same_at_every_suspension(|| classic::forward(items(), capacity), || runtime::forward(items(), capacity));
    }
}

#[test]
fn a_line_protocol_over_a_borrowed_text() {
    for text in ["SET a one\nGET a\n\nSET b two words\nGET b", "GET missing", "SET a x\nDEL a"] {
        same_at_every_suspension(
            || classic::line_protocol(text.to_owned()),
            || runtime::line_protocol(text.to_owned()),
        );
    }
}

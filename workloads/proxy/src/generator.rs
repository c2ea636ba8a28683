//! The load generator: hyper's HTTP/1.1 client over a fixed set of keep-alive connections
//! (through the proxy, or straight to the origin for the control), plain async Rust.
//!
//! An operation sends `requests` requests, spread over the connections as each becomes free,
//! and checks every response (status, the request it answers, the `via` the origin saw, body
//! length and checksum). Every wait is bounded: a proxy that stops answering is an error
//! within [`RESPONSE_TIMEOUT`], never a hang.

use std::cell::{Cell, RefCell};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{HOST, HeaderValue};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::time::timeout;

use crate::error::ProxyError;
use crate::head::VIA;

/// Bound on connecting, and on each request's whole exchange.
pub const RESPONSE_TIMEOUT: Duration = Duration::from_secs(10);

/// Bytes of the request (and echoed response) body in the 8 KiB case.
pub const BODY_BYTES: usize = 8 * 1024;

/// Request `i`'s body starts at `i % OFFSETS` in the shared pattern, so bodies differ.
const OFFSETS: usize = 256;

/// The two request shapes of fluxzy's benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// `GET /empty`: no body either way.
    Empty,
    /// `POST /echo` with 8 KiB, echoed back: a body streamed both ways.
    Body8k,
}

impl Case {
    pub const BOTH: [Case; 2] = [Case::Empty, Case::Body8k];

    pub fn body_len(self) -> usize {
        match self {
            Case::Empty => 0,
            Case::Body8k => BODY_BYTES,
        }
    }
}

/// FNV-1a, 64 bits: the body checksum.
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

/// What an operation of `requests` requests of `case` sums up to: the body checksum and the
/// index of each request, from plain arithmetic.
pub fn expected_checksum(case: Case, requests: usize) -> u64 {
    let pattern = pattern();
    (0..requests)
        .map(|index| {
            let body = &pattern[index % OFFSETS..index % OFFSETS + case.body_len()];
            checksum(body) ^ index as u64
        })
        .fold(0, u64::wrapping_add)
}

fn pattern() -> Vec<u8> {
    (0..BODY_BYTES + OFFSETS).map(|at| (at * 7 + at / 251) as u8).collect()
}

/// One operation's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The sum over requests of `checksum(body) ^ index`: [`expected_checksum`].
    pub checksum: u64,
}

pub struct Generator {
    senders: Vec<SendRequest<Full<Bytes>>>,
    proxied: bool,
    host: HeaderValue,
    empty: Uri,
    echo: Uri,
    pattern: Bytes,
    /// The checksum of each body offset's 8 KiB, computed once.
    sums: Vec<u64>,
    /// Each request's latency in ns, of the last operation (kept to reuse its memory).
    latencies: RefCell<Vec<u64>>,
}

impl Generator {
    /// Opens `connections` keep-alive connections to `to`: the proxy (requests in absolute
    /// form, for `origin`) or, when `to == origin`, the origin itself (the control).
    pub async fn connect(to: SocketAddr, origin: SocketAddr, connections: usize) -> Result<Generator, ProxyError> {
        let proxied = to != origin;
        let mut senders = Vec::with_capacity(connections);
        for _ in 0..connections {
            let stream = timeout(RESPONSE_TIMEOUT, TcpStream::connect(to))
                .await
                .map_err(|_| ProxyError::Timeout("connecting the generator"))?
                .map_err(ProxyError::io("connecting the generator"))?;
            let _ = stream.set_nodelay(true);
            let (sender, connection) =
                http1::handshake(TokioIo::new(stream)).await.map_err(|error| ProxyError::Check(error.to_string()))?;
            // The connection ends when its sender is dropped; its errors surface as the
            // sender's.
            tokio::spawn(connection);
            senders.push(sender);
        }
        let uri = |path: &str| -> Result<Uri, ProxyError> {
            let text = if proxied { format!("http://{origin}{path}") } else { path.to_owned() };
            text.parse().map_err(|error| ProxyError::Check(format!("bad uri {text}: {error}")))
        };
        let pattern = Bytes::from(pattern());
        let sums = (0..OFFSETS).map(|offset| checksum(&pattern[offset..offset + BODY_BYTES])).collect();
        Ok(Generator {
            senders,
            proxied,
            host: HeaderValue::from_str(&origin.to_string()).map_err(|error| ProxyError::Check(error.to_string()))?,
            empty: uri("/empty")?,
            echo: uri("/echo")?,
            pattern,
            sums,
            latencies: RefCell::new(Vec::new()),
        })
    }

    /// Sends `requests` requests of `case`, with every connection busy while requests are
    /// left, and checks every response.
    pub async fn operation(&mut self, case: Case, requests: usize) -> Result<Operation, ProxyError> {
        self.latencies.borrow_mut().clear();
        let next = Cell::new(0usize);
        let total = Cell::new(0u64);
        let mut senders = std::mem::take(&mut self.senders);
        let this = &*self;
        let workers = senders.iter_mut().map(|sender| {
            let (next, total) = (&next, &total);
            async move {
                loop {
                    let index = next.get();
                    if index >= requests {
                        return Ok::<(), ProxyError>(());
                    }
                    next.set(index + 1);
                    let sum = this.exchange(sender, case, index).await?;
                    total.set(total.get().wrapping_add(sum));
                }
            }
        });
        let results = futures::future::join_all(workers).await;
        self.senders = senders;
        results.into_iter().collect::<Result<Vec<()>, ProxyError>>()?;
        Ok(Operation { checksum: total.get() })
    }

    /// One request, checked; returns `checksum(body) ^ index`.
    async fn exchange(
        &self,
        sender: &mut SendRequest<Full<Bytes>>,
        case: Case,
        index: usize,
    ) -> Result<u64, ProxyError> {
        let started = Instant::now();
        let (method, uri, body, expected) = match case {
            Case::Empty => (Method::GET, self.empty.clone(), Bytes::new(), checksum(b"")),
            Case::Body8k => {
                let offset = index % OFFSETS;
                (Method::POST, self.echo.clone(), self.pattern.slice(offset..offset + BODY_BYTES), self.sums[offset])
            }
        };
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .header(HOST, self.host.clone())
            .header("x-request", index)
            .body(Full::new(body))
            .map_err(|error| ProxyError::Check(error.to_string()))?;
        let exchange = async {
            sender.ready().await.map_err(|error| ProxyError::Check(format!("connection lost: {error}")))?;
            let response = sender
                .send_request(request)
                .await
                .map_err(|error| ProxyError::Check(format!("request {index}: {error}")))?;
            let (parts, body) = response.into_parts();
            let body = body.collect().await.map_err(|error| ProxyError::Check(format!("body {index}: {error}")))?;
            Ok::<_, ProxyError>((parts, body.to_bytes()))
        };
        let (parts, body) =
            timeout(RESPONSE_TIMEOUT, exchange).await.map_err(|_| ProxyError::Timeout("waiting for a response"))??;
        let fail = |what: String| Err(ProxyError::Check(format!("request {index} ({case:?}): {what}")));
        if parts.status != StatusCode::OK {
            return fail(format!("status {}: {}", parts.status, String::from_utf8_lossy(&body)));
        }
        let answers = parts.headers.get("x-request").and_then(|value| value.to_str().ok()?.parse::<usize>().ok());
        if answers != Some(index) {
            return fail(format!("answers {:?}", parts.headers.get("x-request")));
        }
        let via = parts.headers.get("x-via").and_then(|value| value.to_str().ok());
        if via != self.proxied.then_some(VIA) {
            return fail(format!("the origin saw via {via:?}"));
        }
        if body.len() != case.body_len() {
            return fail(format!("body of {} bytes, expected {}", body.len(), case.body_len()));
        }
        let sum = checksum(&body);
        if sum != expected {
            return fail(format!("body checksum {sum:x}, expected {expected:x}"));
        }
        self.latencies.borrow_mut().push(started.elapsed().as_nanos() as u64);
        Ok(sum ^ index as u64)
    }

    /// Each request's latency (ns) in the last operation, in completion order.
    pub fn latencies(&self) -> Vec<u64> {
        self.latencies.borrow().clone()
    }
}

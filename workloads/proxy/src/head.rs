//! Request and response heads: parsed with `httparse` and rewritten for the next hop.
//!
//! Plain synchronous code, shared by every configuration: the lowering only concerns the async
//! functions around it. Each function parses the head in the connection's buffer and writes
//! the rewritten head into the caller's reusable buffer in one pass (the parsed headers
//! borrow the input, so nothing is kept but a small summary).

use std::fmt;
use std::io::Write as _;
use std::net::SocketAddr;

/// Headers a head may carry; more is refused (431), as a head larger than the buffer is.
pub const MAX_HEADERS: usize = 64;

/// What the proxy adds to every forwarded head (RFC 9110, 7.6.3).
pub const VIA: &str = "1.1 lowering-proxy";

/// The prefix of the paths the proxy answers itself (interception), never forwarded.
pub const LOCAL_PREFIX: &str = "/__proxy/";

/// Headers that concern one connection only (RFC 9110, 7.6.1): never forwarded.
/// `transfer-encoding` is refused before it could be dropped (bodies need a length here).
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "upgrade",
];

/// A head the proxy will not forward, with the status the client is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadError {
    pub status: u16,
    pub message: String,
}

impl HeadError {
    fn bad(message: impl Into<String>) -> HeadError {
        HeadError { status: 400, message: message.into() }
    }

    fn unsupported(message: impl Into<String>) -> HeadError {
        HeadError { status: 501, message: message.into() }
    }

    pub fn too_large() -> HeadError {
        HeadError { status: 431, message: "request head too large".to_owned() }
    }
}

impl fmt::Display for HeadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.status)
    }
}

/// Where a request goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// To the origin named by the absolute-form target.
    Forward(SocketAddr),
    /// Answered by the proxy itself.
    Local(Local),
}

/// What the proxy answers itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Local {
    /// `GET /__proxy/health`: 200, `ok`.
    Health,
    /// Any other path under `/__proxy/`: 404.
    Unknown,
}

/// What the proxy keeps of a request once its head is rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub route: Route,
    /// Bytes of body after the head (`content-length`, 0 without one).
    pub body_len: u64,
    /// Does the client keep the connection open after this exchange?
    pub keep_alive: bool,
    /// A `HEAD` request: the response carries no body whatever its length says.
    pub is_head: bool,
}

/// What the proxy keeps of a response once its head is rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub body_len: u64,
    /// Does the origin keep the connection open after this exchange?
    pub keep_alive: bool,
}

/// The offset just past the blank line ending a head in `bytes`, if it is complete. `from`
/// is where to resume a search that found nothing in a shorter prefix.
pub fn head_end(bytes: &[u8], from: usize) -> Option<usize> {
    let start = from.saturating_sub(3);
    bytes.get(start..)?.windows(4).position(|window| window == b"\r\n\r\n").map(|at| start + at + 4)
}

/// Headers common to both directions: the body length and what the `connection` header says.
struct Framing {
    content_length: Option<u64>,
    close: bool,
    keep_alive: bool,
}

fn framing(headers: &[httparse::Header<'_>]) -> Result<Framing, HeadError> {
    let mut framing = Framing { content_length: None, close: false, keep_alive: false };
    for header in headers {
        if header.name.eq_ignore_ascii_case("content-length") {
            let text = std::str::from_utf8(header.value).map_err(|_| HeadError::bad("content-length is not text"))?;
            let length: u64 = text
                .trim()
                .parse()
                .map_err(|_| HeadError::bad(format!("content-length `{}` is not a length", text.trim())))?;
            if framing.content_length.is_some_and(|seen| seen != length) {
                return Err(HeadError::bad("two different content-length headers"));
            }
            framing.content_length = Some(length);
        } else if header.name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(HeadError::unsupported(
                "transfer-encoding (chunked bodies) is not supported; send content-length",
            ));
        } else if header.name.eq_ignore_ascii_case("connection") {
            for token in header.value.split(|&byte| byte == b',') {
                let token = token.trim_ascii();
                framing.close |= token.eq_ignore_ascii_case(b"close");
                framing.keep_alive |= token.eq_ignore_ascii_case(b"keep-alive");
            }
        }
    }
    Ok(framing)
}

/// Is `name` dropped on the way through: hop-by-hop, or named by a `connection` header?
fn dropped(name: &str, headers: &[httparse::Header<'_>]) -> bool {
    HOP_BY_HOP.iter().any(|hop| name.eq_ignore_ascii_case(hop))
        || headers.iter().filter(|header| header.name.eq_ignore_ascii_case("connection")).any(|connection| {
            connection
                .value
                .split(|&byte| byte == b',')
                .any(|token| token.trim_ascii().eq_ignore_ascii_case(name.as_bytes()))
        })
}

/// Writes the headers that go on, then `via`, then the blank line.
fn write_headers(headers: &[httparse::Header<'_>], out: &mut Vec<u8>) {
    for header in headers {
        if dropped(header.name, headers) {
            continue;
        }
        out.extend_from_slice(header.name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(header.value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"via: ");
    out.extend_from_slice(VIA.as_bytes());
    out.extend_from_slice(b"\r\n\r\n");
}

/// `http://IP:PORT/path` split into the origin's address and the origin-form target. The
/// proxy resolves no names: a host that is not an IP address is refused.
fn absolute_target(target: &str) -> Result<(SocketAddr, &str), HeadError> {
    let rest = target.strip_prefix("http://").ok_or_else(|| {
        HeadError::bad(format!("target `{target}` is neither absolute (http://..) nor under {LOCAL_PREFIX}"))
    })?;
    let (authority, path) = match rest.find('/') {
        Some(slash) => (&rest[..slash], &rest[slash..]),
        None => (rest, "/"),
    };
    let address = authority.parse::<SocketAddr>().map_err(|_| {
        HeadError::bad(format!("authority `{authority}` is not IP:PORT (this proxy resolves no host names)"))
    })?;
    Ok((address, path))
}

/// Parses the request head `head` (complete, ending with its blank line) and writes the head
/// to forward into `out` (cleared first): origin-form target, hop-by-hop headers dropped,
/// `via` added. For a local route `out` is left empty.
pub fn forward_request(head: &[u8], out: &mut Vec<u8>) -> Result<Request, HeadError> {
    out.clear();
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    match parsed.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(HeadError::bad("incomplete request head")),
        Err(httparse::Error::TooManyHeaders) => return Err(HeadError::too_large()),
        Err(error) => return Err(HeadError::bad(format!("malformed request head: {error}"))),
    }
    let (Some(method), Some(target), Some(version)) = (parsed.method, parsed.path, parsed.version) else {
        return Err(HeadError::bad("incomplete request line"));
    };
    let headers = parsed.headers;
    let framing = framing(headers)?;
    let keep_alive = if version == 1 { !framing.close } else { framing.keep_alive && !framing.close };
    let body_len = framing.content_length.unwrap_or(0);
    let is_head = method == "HEAD";
    if method == "CONNECT" {
        return Err(HeadError::unsupported("CONNECT (tunnels) is not supported"));
    }
    if let Some(local) = target.strip_prefix(LOCAL_PREFIX) {
        let local = if local == "health" && (method == "GET" || is_head) { Local::Health } else { Local::Unknown };
        return Ok(Request { route: Route::Local(local), body_len, keep_alive, is_head });
    }
    let (origin, path) = absolute_target(target)?;
    out.extend_from_slice(method.as_bytes());
    out.push(b' ');
    out.extend_from_slice(path.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\n");
    if !headers.iter().any(|header| header.name.eq_ignore_ascii_case("host")) {
        let _ = write!(out, "host: {origin}\r\n");
    }
    write_headers(headers, out);
    Ok(Request { route: Route::Forward(origin), body_len, keep_alive, is_head })
}

/// Parses the origin's response head and writes the head to send the client into `out`
/// (cleared first): hop-by-hop headers dropped, `via` added. A response whose body has no
/// length (chunked, or delimited by the connection's end) is refused: 502 to the client.
pub fn forward_response(head: &[u8], is_head: bool, out: &mut Vec<u8>) -> Result<Response, HeadError> {
    out.clear();
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Response::new(&mut headers);
    let upstream = |message: String| HeadError { status: 502, message };
    match parsed.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(upstream("incomplete response head from the origin".to_owned())),
        Err(error) => return Err(upstream(format!("malformed response head from the origin: {error}"))),
    }
    let (Some(status), Some(version)) = (parsed.code, parsed.version) else {
        return Err(upstream("incomplete status line from the origin".to_owned()));
    };
    let headers = parsed.headers;
    let framing = framing(headers).map_err(|error| upstream(format!("origin response: {}", error.message)))?;
    let no_body = is_head || status < 200 || status == 204 || status == 304;
    let body_len = match (no_body, framing.content_length) {
        (true, _) => 0,
        (false, Some(length)) => length,
        (false, None) => return Err(upstream("origin response has no content-length".to_owned())),
    };
    if status < 200 {
        return Err(upstream(format!("interim response {status} from the origin is not supported")));
    }
    let keep_alive = if version == 1 { !framing.close } else { framing.keep_alive && !framing.close };
    let _ = write!(out, "HTTP/1.1 {status} {}\r\n", parsed.reason.unwrap_or(""));
    write_headers(headers, out);
    Ok(Response { status, body_len, keep_alive })
}

/// A complete response the proxy writes itself (interception, or an error).
pub fn local_response(status: u16, body: &str, close: bool, out: &mut Vec<u8>) {
    out.clear();
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        504 => "Gateway Timeout",
        _ => "",
    };
    let _ = write!(out, "HTTP/1.1 {status} {reason}\r\ncontent-length: {}\r\nvia: {VIA}\r\n", body.len());
    if close {
        out.extend_from_slice(b"connection: close\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body.as_bytes());
}

//! The library layer (the standard library's role in seed 001): a connection with its own
//! read buffer, and the codec operations the application awaits. One source, lowered twice by
//! `lowering::both!`: `library::classic` and `library::runtime`, each with its own
//! `Connection` type.
//!
//! Every operation is a `&mut self` method that reads into the connection's buffer across its
//! awaits, as connection code in Rust is written; most of its awaits complete at once (the
//! bytes are already there, or the socket takes the write), a few really wait for the peer.

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::error::ProxyError;
use crate::head::{HeadError, head_end};

/// The read buffer of a connection: a head must fit in it.
pub const BUFFER_BYTES: usize = 16 * 1024;

lowering::both! {
    /// A TCP connection and the bytes read from it but not yet used.
    pub struct Connection {
        stream: TcpStream,
        buf: Box<[u8]>,
        /// Unused bytes are `buf[start..end]`.
        start: usize,
        end: usize,
    }

    impl Connection {
        pub fn new(stream: TcpStream) -> Connection {
            // Heads and bodies go out in separate writes: without this, Nagle's algorithm
            // holds the second one for the peer's delayed ACK (tens of milliseconds).
            let _ = stream.set_nodelay(true);
            Connection { stream, buf: vec![0; BUFFER_BYTES].into_boxed_slice(), start: 0, end: 0 }
        }

        /// Connects to `address`.
        pub async fn connect(address: SocketAddr) -> Result<Connection, ProxyError> {
            let stream = TcpStream::connect(address).await.map_err(ProxyError::io("connecting to the origin"))?;
            Ok(Connection::new(stream))
        }

        /// Waits until a complete head is at the front of the buffer and returns its length;
        /// `None` when the peer closed the connection cleanly between two messages.
        /// Cancel-safe: bytes read before a cancellation stay in the buffer.
        pub async fn read_head(&mut self) -> Result<Option<usize>, ProxyError> {
            let mut searched = 0;
            loop {
                if let Some(end) = head_end(&self.buf[self.start..self.end], searched) {
                    return Ok(Some(end));
                }
                searched = self.end - self.start;
                if self.end == self.buf.len() {
                    if self.start == 0 {
                        return Err(ProxyError::Head(HeadError::too_large()));
                    }
                    self.buf.copy_within(self.start..self.end, 0);
                    self.end -= self.start;
                    self.start = 0;
                }
                let n = self.stream.read(&mut self.buf[self.end..]).await.map_err(ProxyError::io("reading a head"))?;
                if n == 0 {
                    return if self.start == self.end { Ok(None) } else { Err(ProxyError::Closed("in the middle of a head")) };
                }
                self.end += n;
            }
        }

        /// The head `read_head` found, `len` bytes.
        pub fn head(&self, len: usize) -> &[u8] {
            &self.buf[self.start..self.start + len]
        }

        /// Marks `len` buffered bytes as used.
        pub fn consume(&mut self, len: usize) {
            self.start += len;
            if self.start == self.end {
                self.start = 0;
                self.end = 0;
            }
        }

        /// Writes all of `bytes`.
        pub async fn write_all(&mut self, bytes: &[u8]) -> Result<(), ProxyError> {
            self.stream.write_all(bytes).await.map_err(ProxyError::io("writing"))
        }

        /// Copies the next `len` bytes of this connection (a body) to `to`: what is buffered
        /// first, then each read, into this connection's buffer, written on at once.
        pub async fn copy_body(&mut self, to: &mut Connection, len: u64) -> Result<(), ProxyError> {
            let mut left = len;
            while left > 0 {
                if self.start == self.end {
                    let n = self.stream.read(&mut self.buf[..]).await.map_err(ProxyError::io("reading a body"))?;
                    if n == 0 {
                        return Err(ProxyError::Closed("in the middle of a body"));
                    }
                    self.start = 0;
                    self.end = n;
                }
                let chunk = (self.end - self.start).min(usize::try_from(left).unwrap_or(usize::MAX));
                to.write_all(&self.buf[self.start..self.start + chunk]).await?;
                self.consume(chunk);
                left -= chunk as u64;
            }
            Ok(())
        }

        /// Reads and drops the next `len` bytes (the body of a request the proxy answers).
        pub async fn skip_body(&mut self, len: u64) -> Result<(), ProxyError> {
            let mut left = len;
            while left > 0 {
                if self.start == self.end {
                    let n = self.stream.read(&mut self.buf[..]).await.map_err(ProxyError::io("reading a body"))?;
                    if n == 0 {
                        return Err(ProxyError::Closed("in the middle of a body"));
                    }
                    self.start = 0;
                    self.end = n;
                }
                let chunk = (self.end - self.start).min(usize::try_from(left).unwrap_or(usize::MAX));
                self.consume(chunk);
                left -= chunk as u64;
            }
            Ok(())
        }
    }
}

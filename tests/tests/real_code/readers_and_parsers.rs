//! Readers and parsers as protocol code writes them, lowered both ways and compared: a read
//! loop into a slice of a local array with `?` and an early `break`, a line parser that
//! shadows, `continue`s and leaves through `let .. else`, a parser struct with a lifetime
//! whose `&mut self` method returns a borrow of its input, a `Cow` chosen before an await,
//! a queue refilled while it is drained, slice patterns whose arms await.

use lowering_tests::fuzz::call_method;
use lowering_tests::*;

/// An in-memory stream with an async `read`, as an I/O trait's implementor has.
pub struct Reader {
    pub data: Vec<u8>,
    pub pos: usize,
}

impl Reader {
    pub fn new(data: &[u8]) -> Self {
        Reader { data: data.to_vec(), pos: 0 }
    }

    pub async fn read(&mut self, buf: &mut [u8]) -> Result<usize, String> {
        later("read", ()).await;
        let n = buf.len().min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        log(format!("drop reader at {}", self.pos));
    }
}

differential! {
    use super::Reader;

    pub struct Body { pub reader: Reader, pub status: u16 }
    impl Body {
        pub async fn read_all(&mut self, buf: &mut Vec<u8>) -> Result<usize, String> {
            let mut chunk = [0u8; 2];
            let mut total = 0;
            loop {
                let n = self.reader.read(&mut chunk).await?;
                if n == 0 {
                    return if self.status == 0 { Err("no status".to_owned()) } else { Ok(total) };
                }
                buf.extend_from_slice(&chunk[..n]);
                total += n;
            }
        }
        // `mut self` lent to an awaited `&mut self` method at its last use (a published HTTP
        // crate's `Body::into_bytes`): the method borrows it, it is not taken.
        pub async fn into_bytes(mut self) -> Result<Vec<u8>, String> {
            let mut buf = Vec::with_capacity(16);
            self.read_all(&mut buf)
                .await
                .map_err(|error| format!("422 {error}"))?;
            Ok(buf)
        }
        pub async fn into_string(mut self) -> Result<String, String> {
            let mut text = String::with_capacity(self.reader.data.len());
            let mut buf = Vec::new();
            match self.read_all(&mut buf).await {
                Ok(_) => text.push_str(&String::from_utf8_lossy(&buf)),
                Err(error) => return Err(error),
            }
            Ok(text)
        }
        pub async fn into_parts(mut self, rounds: usize) -> Vec<usize> {
            let mut sizes = Vec::new();
            for _ in 0..rounds {
                let mut buf = Vec::new();
                sizes.push(self.read_all(&mut buf).await.unwrap_or(0));
            }
            sizes
        }
    }
    use std::borrow::Cow;
    use std::collections::VecDeque;

    pub async fn copy_all(r: &mut Reader) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut buf = [0u8; 3];
        loop {
            let n = r.read(&mut buf[..]).await?;
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        Ok(out)
    }

    pub async fn key_values(text: String) -> Vec<String> {
        let mut out = Vec::new();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                out.push(later("bad", line.to_string()).await);
                continue;
            };
            out.push(format!("{}->{}", key, later("kv", value).await));
        }
        out
    }

    pub struct Words<'a> { pub input: &'a str, pub pos: usize }

    impl<'a> Words<'a> {
        pub async fn next_word(&mut self) -> Option<&'a str> {
            let rest = &self.input[self.pos..];
            let trimmed = rest.trim_start();
            if trimmed.is_empty() {
                return None;
            }
            let start = self.pos + (rest.len() - trimmed.len());
            let len = trimmed.find(' ').unwrap_or(trimmed.len());
            later("word", ()).await;
            self.pos = start + len;
            Some(&self.input[start..start + len])
        }
    }

    pub async fn words(s: String) -> Vec<String> {
        let mut words = Words { input: &s, pos: 0 };
        let mut out = vec![];
        while let Some(word) = words.next_word().await {
            out.push(word.to_uppercase());
        }
        out
    }

    pub async fn read_into(mut r: Reader, mut sink: Vec<u8>) -> (usize, Vec<u8>) {
        let buf = &mut sink;
        buf.clear();
        let mut tmp = [0u8; 2];
        let n = r.read(&mut tmp).await.unwrap();
        buf.extend_from_slice(&tmp[..n]);
        (r.pos, sink)
    }

    pub async fn escaped(s: &'static str, n: u32) -> String {
        let text: Cow<'_, str> = if s.contains(' ') { Cow::Owned(s.replace(' ', "_")) } else { Cow::Borrowed(s) };
        let suffix = later("suffix", n).await;
        format!("{}{}", text, suffix)
    }

    pub async fn drain_refilling(mut queue: VecDeque<u32>) -> u32 {
        let mut total = 0;
        while let Some(x) = queue.pop_front() {
            if x % 2 == 0 {
                queue.push_back(later("half", x / 2).await);
            }
            total += x;
        }
        total
    }

    pub async fn ends(v: Vec<Loud>) -> u32 {
        match v.as_slice() {
            [] => 0,
            [only] => later("only", only.0.len() as u32).await,
            [first, .., last] => later("first", first.0.len() as u32).await + later("last", last.0.len() as u32).await,
        }
    }
}

#[test]
fn a_read_loop_into_a_slice_of_a_local_array() {
    let outcome = same_at_every_suspension(
        || call_method(Reader::new(b"hello world"), |r| classic::copy_all(r)),
        || call_method(Reader::new(b"hello world"), |r| runtime::copy_all(r)),
    );
    assert_eq!(outcome, Outcome::Value(Ok(b"hello world".to_vec())));
}

#[test]
fn a_line_parser_that_shadows_and_leaves_through_let_else() {
    let text = "a=1\n\n bad \nc=3";
    let outcome = same_at_every_suspension(|| classic::key_values(text.into()), || runtime::key_values(text.into()));
    assert_eq!(outcome, Outcome::Value(vec!["a->1".to_string(), "bad".into(), "c->3".into()]));
}

#[test]
fn a_parser_method_returns_a_borrow_of_its_input() {
    let outcome =
        same_at_every_suspension(|| classic::words("  ab cd  e ".into()), || runtime::words("  ab cd  e ".into()));
    assert_eq!(outcome, Outcome::Value(vec!["AB".to_string(), "CD".into(), "E".into()]));
}

#[test]
fn a_borrowed_parameter_filled_from_a_read() {
    same_at_every_suspension(
        || classic::read_into(Reader::new(b"xyz"), vec![9]),
        || runtime::read_into(Reader::new(b"xyz"), vec![9]),
    );
}

#[test]
fn a_cow_chosen_before_an_await() {
    for text in ["a b", "ab"] {
        same_at_every_suspension(|| classic::escaped(text, 1), || runtime::escaped(text, 1));
    }
}

#[test]
fn a_queue_refilled_while_drained() {
    let outcome = same_at_every_suspension(
        || classic::drain_refilling([4, 3, 8].into()),
        || runtime::drain_refilling([4, 3, 8].into()),
    );
    assert_eq!(outcome, Outcome::Value(4 + 3 + 8 + 2 + 4 + 1 + 2 + 1));
}

#[test]
fn slice_patterns_whose_arms_await() {
    for len in 0..4 {
        let make = || (0..len).map(|i| Loud::new(&"x".repeat(i + 1))).collect::<Vec<_>>();
        same_at_every_suspension(|| classic::ends(make()), || runtime::ends(make()));
    }
}

#[test]
fn a_mut_self_lent_to_an_awaited_method_at_its_last_use() {
    for status in [0, 200] {
        same_at_every_suspension(
            || classic::Body { reader: Reader::new(b"abcde"), status }.into_bytes(),
            || runtime::Body { reader: Reader::new(b"abcde"), status }.into_bytes(),
        );
        same_at_every_suspension(
            || classic::Body { reader: Reader::new(b"xyz"), status }.into_string(),
            || runtime::Body { reader: Reader::new(b"xyz"), status }.into_string(),
        );
    }
    let outcome = same_at_every_suspension(
        || classic::Body { reader: Reader::new(b"abc"), status: 1 }.into_parts(2),
        || runtime::Body { reader: Reader::new(b"abc"), status: 1 }.into_parts(2),
    );
    assert_eq!(outcome, Outcome::Value(vec![3, 0]));
}

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

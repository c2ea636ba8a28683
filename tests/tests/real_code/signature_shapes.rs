//! Signatures as published crates write them, lowered both ways and compared: `#[async_trait]`
//! traits and impls (a default method, `?Send`, pattern and reference parameters), results of
//! `impl Trait` type (an iterator borrowing a parameter, a future, `Vec<impl Display>`),
//! parameters under `#[cfg]`, a reader generic over its I/O type with a lifetime bound
//! (`impl<'a, R: Source + 'a> Reader<'a, R>`), a blanket impl of a trait that declares
//! `fn .. -> impl Future + Send`, `self: Pin<&mut Self>`, and a type parameter with no bound
//! at all that a borrowed local names.

use lowering_tests::*;

differential! {
    use std::fmt::Display;
    use std::future::Future;
    use std::pin::Pin;

    #[async_trait::async_trait]
    pub trait Repository: Send + Sync {
        async fn get(&self, key: &str) -> Option<u32>;

        async fn get_or(&self, key: &str, default: u32) -> u32 {
            match self.get(key).await {
                Some(value) => value,
                None => later("default", default).await,
            }
        }

        async fn put(&mut self, (key, value): (String, u32)) -> usize;
    }

    pub struct Memory {
        pub entries: Vec<(String, u32)>,
        pub _guard: Loud,
    }

    #[async_trait::async_trait]
    impl Repository for Memory {
        async fn get(&self, key: &str) -> Option<u32> {
            let found = self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| *v);
            later("get", found).await
        }

        async fn put(&mut self, (key, value): (String, u32)) -> usize {
            let _entry = Loud::new(format!("put {key}"));
            later("put", ()).await;
            self.entries.push((key, value));
            self.entries.len()
        }
    }

    #[async_trait::async_trait(?Send)]
    pub trait Local {
        async fn shared(&self) -> std::rc::Rc<u32>;
    }

    #[async_trait::async_trait(?Send)]
    impl Local for Memory {
        async fn shared(&self) -> std::rc::Rc<u32> {
            let shared = std::rc::Rc::new(self.entries.len() as u32);
            later("shared", ()).await;
            shared
        }
    }

    pub async fn use_repository(repository: &mut dyn Repository, n: u32) -> u32 {
        let mut total = 0;
        for i in 0..n {
            let size = repository.put((format!("k{i}"), i * 10)).await;
            total += repository.get_or(&format!("k{}", i / 2), 7).await + size as u32;
        }
        total + repository.get_or("missing", 1).await
    }

    pub async fn digits(n: u32) -> impl Display {
        later("digits", ()).await;
        format!("<{n}>")
    }

    pub async fn evens<'a>(values: &'a [u32], min: u32) -> impl Iterator<Item = &'a u32> + 'a {
        later("evens", ()).await;
        values.iter().filter(move |v| *v % 2 == 0 && **v >= min)
    }

    pub async fn deferred(n: u32) -> impl Future<Output = u32> {
        let base = later("base", n).await;
        async move { base + later("deferred", 1).await }
    }

    pub async fn labels(n: u32) -> Vec<impl Display> {
        let _guard = Loud::new("labels");
        if later("early", n > 2).await {
            return vec![n];
        }
        vec![n, n + 1]
    }

    pub async fn use_opaque(values: &[u32], n: u32) -> String {
        let shown = digits(n).await;
        let count = evens(values, n).await.count();
        let later_value = deferred(n).await.await;
        let labels: Vec<String> = labels(n).await.iter().map(|l| l.to_string()).collect();
        format!("{shown} {count} {later_value} {}", labels.join(","))
    }

    pub async fn configured(a: u32, #[cfg(any())] never: u32, #[cfg(all())] always: u32) -> u32 {
        #[cfg(any())]
        {
            return never;
        }
        later("configured", a).await + always
    }

    pub trait Source {
        fn next_byte(&mut self) -> Option<u8>;
    }

    pub struct Bytes(pub Vec<u8>);

    impl Source for Bytes {
        fn next_byte(&mut self) -> Option<u8> {
            if self.0.is_empty() { None } else { Some(self.0.remove(0)) }
        }
    }

    pub struct Reader<'a, R: Source + 'a> {
        pub inner: &'a mut R,
        pub seen: Vec<u8>,
    }

    impl<'a, R: Source + Unpin + 'a> Reader<'a, R> {
        pub async fn read_byte(&mut self) -> Option<u8> {
            let byte = self.inner.next_byte();
            later("byte", ()).await;
            if let Some(byte) = byte {
                self.seen.push(byte);
            }
            byte
        }

        pub async fn fill(&mut self, out: &mut [u8]) -> usize {
            let mut filled = 0;
            for slot in out.iter_mut() {
                match self.read_byte().await {
                    Some(byte) => {
                        *slot = byte;
                        filled += 1;
                    }
                    None => break,
                }
            }
            filled
        }
    }

    pub async fn read_all<R: Source + Unpin>(source: &mut R, chunk: usize) -> Vec<u8> {
        let mut reader = Reader { inner: source, seen: Vec::new() };
        let mut buffer = vec![0u8; chunk];
        while reader.fill(&mut buffer).await == chunk {}
        reader.seen
    }

    pub trait Lookup {
        fn lookup(&self, key: u32) -> u32;
    }

    pub struct Table;

    impl Lookup for Table {
        fn lookup(&self, key: u32) -> u32 {
            key * 3
        }
    }

    pub trait LookupExt {
        fn fetch(&self, key: u32) -> impl Future<Output = u32> + Send;
    }

    impl<T: Lookup + Sync> LookupExt for T {
        async fn fetch(&self, key: u32) -> u32 {
            later("fetch", ()).await;
            self.lookup(key)
        }
    }

    pub struct Counter {
        pub count: u32,
    }

    impl Counter {
        pub async fn bump(mut self: Pin<&mut Self>, by: u32) -> u32 {
            self.count += later("bump", by).await;
            self.count
        }
    }

    /// An entry selector that borrows its cache, as a cache crate writes one: the impl's
    /// lifetime is named by `Self` alone, which edition 2021's opaque types do not capture
    /// unless told (E0700 "hidden type .. captures lifetime that does not appear in bounds").
    pub struct Selector<'a> {
        pub key: String,
        pub cache: &'a Vec<u32>,
    }

    impl<'a> Selector<'a> {
        pub async fn and_compute<F: FnOnce(u32) -> u32>(self, f: F) -> u32 {
            let n = self.cache.len() as u32;
            later("compute", ()).await;
            f(n) + self.key.len() as u32 + self.cache[0]
        }

        pub async fn or_insert(self, fallback: u32) -> (String, u32) {
            let found = self.cache.first().copied();
            let value = match found {
                Some(value) => value,
                None => later("insert", fallback).await,
            };
            (self.key, value)
        }
    }

    /// A trait's method implemented by calling the type's inherent method of the same name,
    /// as a web framework's listener does: `Self::accept(self)` and `self.accept()` are the
    /// inherent method there, not a recursive call (inherent methods come first).
    pub struct Acceptor {
        pub queue: Vec<u32>,
    }

    impl Acceptor {
        pub async fn accept(&mut self) -> Result<u32, String> {
            later("inherent", ()).await;
            self.queue.pop().ok_or_else(|| "empty".to_owned())
        }

        // A method that does call itself, both ways a method can.
        pub async fn drain(&mut self, n: u32) -> u32 {
            if n == 0 {
                return 0;
            }
            let first = self.queue.pop().unwrap_or(1);
            later("drain", ()).await;
            let rest = if n % 2 == 0 { Box::pin(self.drain(n - 1)).await } else { Box::pin(Self::drain(self, n - 1)).await };
            first * 10 + rest
        }
    }

    pub trait Listener {
        fn accept(&mut self) -> impl Future<Output = u32>;
        fn accept_twice(&mut self) -> impl Future<Output = u32>;
    }

    impl Listener for Acceptor {
        async fn accept(&mut self) -> u32 {
            loop {
                match Self::accept(self).await {
                    Ok(n) => return n,
                    Err(error) => {
                        self.queue.push(error.len() as u32);
                        later("retry", ()).await
                    }
                }
            }
        }

        async fn accept_twice(&mut self) -> u32 {
            let first = self.accept().await.unwrap_or(0);
            first + Listener::accept(self).await
        }
    }

    /// A mail session's fetch, as an IMAP client writes it: the result names an opaque type
    /// and an elided lifetime (`Result<impl Iterator + '_, String>`), and `Ok(res)` needs the
    /// error type the signature gives (E0282 when the lowering left the whole result to
    /// inference); the stub's signature names the parameters' elided lifetimes, and so the
    /// result's too (`mismatched_lifetime_syntaxes` otherwise, which the plain function never
    /// draws).
    pub struct Mailbox {
        pub items: Vec<u32>,
    }

    impl Mailbox {
        #[deny(mismatched_lifetime_syntaxes)]
        pub async fn fetch(&mut self, base: u32) -> Result<impl Iterator<Item = u32> + '_ + Send, String> {
            let id = later("id", base).await;
            if id == 0 {
                return Err("no mail".to_owned());
            }
            let res = self.items.iter().map(move |x| x + id);
            Ok(res)
        }
    }

    #[deny(mismatched_lifetime_syntaxes)]
    pub async fn first_word(text: &str, pause: bool) -> Option<&str> {
        if pause {
            later("pause", ()).await;
        }
        text.split(' ').next()
    }

    pub async fn hold<T>(value: T, pause: bool) -> T {
        let kept = &value;
        if pause {
            later("hold", ()).await;
        }
        let _ = kept;
        value
    }
}

#[test]
fn async_trait_methods() {
    for n in [0, 1, 3] {
        let outcome = same_at_every_suspension(
            || async move {
                let mut repository = classic::Memory { entries: Vec::new(), _guard: Loud::new("repo") };
                classic::use_repository(&mut repository, n).await
            },
            || async move {
                let mut repository = runtime::Memory { entries: Vec::new(), _guard: Loud::new("repo") };
                runtime::use_repository(&mut repository, n).await
            },
        );
        let expected: u32 = (0..n).map(|i| (i / 2) * 10 + i + 1).sum::<u32>() + 1;
        assert_eq!(outcome, Outcome::Value(expected));
    }
    let classic_memory = classic::Memory { entries: Vec::new(), _guard: Loud::new("c") };
    let runtime_memory = runtime::Memory { entries: Vec::new(), _guard: Loud::new("r") };
    use classic::Local as _;
    let outcome = same(|| classic_memory.shared(), || runtime::Local::shared(&runtime_memory)).0;
    assert_eq!(outcome, Outcome::Value(std::rc::Rc::new(0)));
}

#[test]
fn results_of_impl_trait_type() {
    let values = [1, 2, 3, 4, 6, 8];
    for n in [1, 3, 5] {
        let outcome = same_at_every_suspension(|| classic::use_opaque(&values, n), || runtime::use_opaque(&values, n));
        let Outcome::Value(text) = outcome else { panic!("{:?}", outcome) };
        assert!(text.starts_with(&format!("<{n}>")), "{}", text);
    }
}

#[test]
fn parameters_under_cfg() {
    let outcome = same_at_every_suspension(|| classic::configured(2, 5), || runtime::configured(2, 5));
    assert_eq!(outcome, Outcome::Value(7));
}

#[test]
fn generic_readers_blanket_impls_and_pinned_receivers() {
    for chunk in [1, 2, 4] {
        let outcome = same_at_every_suspension(
            || async move {
                let mut source = classic::Bytes(vec![1, 2, 3, 4, 5]);
                classic::read_all(&mut source, chunk).await
            },
            || async move {
                let mut source = runtime::Bytes(vec![1, 2, 3, 4, 5]);
                runtime::read_all(&mut source, chunk).await
            },
        );
        assert_eq!(outcome, Outcome::Value(vec![1, 2, 3, 4, 5]));
    }
    use classic::LookupExt as _;
    let outcome =
        same_at_every_suspension(|| classic::Table.fetch(4), || runtime::LookupExt::fetch(&runtime::Table, 4));
    assert_eq!(outcome, Outcome::Value(12));
    let outcome = same_at_every_suspension(
        || async {
            let mut counter = Box::pin(classic::Counter { count: 1 });
            counter.as_mut().bump(2).await
        },
        || async {
            let mut counter = Box::pin(runtime::Counter { count: 1 });
            counter.as_mut().bump(2).await
        },
    );
    assert_eq!(outcome, Outcome::Value(3));
    for pause in [false, true] {
        let outcome = same_at_every_suspension(
            || classic::hold(Loud::new("held"), pause),
            || runtime::hold(Loud::new("held"), pause),
        );
        assert_eq!(outcome, Outcome::Value(Loud("held".to_owned())));
    }
}

#[test]
fn a_method_of_an_impl_whose_lifetime_only_self_names() {
    let cache = vec![7u32, 8];
    let empty = Vec::new();
    let outcome = same_at_every_suspension(
        || classic::Selector { key: "k".to_owned(), cache: &cache }.and_compute(|n| n * 10),
        || runtime::Selector { key: "k".to_owned(), cache: &cache }.and_compute(|n| n * 10),
    );
    assert_eq!(outcome, Outcome::Value(28));
    for cache in [&cache, &empty] {
        same_at_every_suspension(
            || classic::Selector { key: "k".to_owned(), cache }.or_insert(3),
            || runtime::Selector { key: "k".to_owned(), cache }.or_insert(3),
        );
    }
}

#[test]
fn a_trait_method_calling_the_inherent_method_of_its_name() {
    use classic::Listener as _;
    same_at_every_suspension(
        || async { classic::Acceptor { queue: vec![2, 3, 4] }.drain(4).await },
        || async { runtime::Acceptor { queue: vec![2, 3, 4] }.drain(4).await },
    );
    for queue in [vec![], vec![4, 5]] {
        same_at_every_suspension(
            || {
                let queue = queue.clone();
                async move { classic::Listener::accept(&mut classic::Acceptor { queue }).await }
            },
            || {
                let queue = queue.clone();
                async move { runtime::Listener::accept(&mut runtime::Acceptor { queue }).await }
            },
        );
        same_at_every_suspension(
            || {
                let queue = queue.clone();
                async move { classic::Acceptor { queue }.accept_twice().await }
            },
            || {
                let queue = queue.clone();
                async move { runtime::Listener::accept_twice(&mut runtime::Acceptor { queue }).await }
            },
        );
    }
}

#[test]
fn a_result_naming_an_opaque_type_and_an_elided_lifetime() {
    for base in [0, 5] {
        same_at_every_suspension(
            || async move {
                let mut mailbox = classic::Mailbox { items: vec![1, 2] };
                mailbox.fetch(base).await.map(|items| items.collect::<Vec<_>>())
            },
            || async move {
                let mut mailbox = runtime::Mailbox { items: vec![1, 2] };
                mailbox.fetch(base).await.map(|items| items.collect::<Vec<_>>())
            },
        );
    }
    for pause in [false, true] {
        let outcome = same_at_every_suspension(
            || classic::first_word("one two", pause),
            || runtime::first_word("one two", pause),
        );
        assert_eq!(outcome, Outcome::Value(Some("one")));
    }
}

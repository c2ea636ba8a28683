//! Signatures as libraries write them, lowered both ways and compared: an `async fn` in a
//! trait with a default method that awaits the required one, `&dyn Trait` and `?Sized`
//! generics with `where` clauses on associated types, const generics, elided and named
//! lifetimes with a borrowed output, `async unsafe fn`, an `Arc<Self>` receiver, a generic
//! future and a closure as parameters, `impl AsyncFn`, `Box<dyn Error>` filled by `?`.

use std::sync::Arc;

use lowering_tests::*;

differential! {
    use std::collections::HashMap;
    use std::future::Future;
    use std::sync::Arc;

    #[allow(async_fn_in_trait)]
    pub trait Handler {
        async fn call(&self, x: u32) -> u32;

        async fn twice(&self, x: u32) -> u32 {
            let a = self.call(x).await;
            a + self.call(a).await
        }
    }

    pub struct Add(pub u32);

    impl Handler for Add {
        async fn call(&self, x: u32) -> u32 {
            later("add", x + self.0).await
        }
    }

    pub async fn run_handler<H: Handler>(handler: H, n: u32) -> u32 {
        let mut total = 0;
        for i in 0..n {
            total += handler.twice(i).await;
        }
        total
    }

    pub trait Store {
        fn get(&self, key: &str) -> Option<u32>;
    }

    pub struct Memory(pub HashMap<String, u32>);

    impl Store for Memory {
        fn get(&self, key: &str) -> Option<u32> {
            self.0.get(key).copied()
        }
    }

    pub async fn sum_dyn(store: &dyn Store, keys: &[&str]) -> u32 {
        let mut total = 0;
        for key in keys {
            match store.get(key) {
                Some(v) if v > later("limit", 1).await => total += v,
                Some(v) => total += later("small", v).await,
                None => continue,
            }
        }
        total
    }

    pub async fn get_all<S, I>(store: &S, keys: I) -> Vec<Option<u32>>
    where
        S: Store + ?Sized,
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut out = Vec::new();
        for key in keys {
            let key = key.as_ref();
            out.push(later("get", store.get(key)).await);
        }
        out
    }

    pub async fn sum_array<const N: usize>(bytes: [u8; N]) -> usize {
        let mut total = 0usize;
        for b in bytes.iter() {
            total += later("b", *b as usize).await;
        }
        total + N
    }

    pub async fn elided(x: &u32, out: &mut Vec<u32>) -> u32 {
        out.push(*x);
        let v = later("e", *x).await;
        out.push(v);
        out.iter().sum()
    }

    pub async fn largest<'a, 'b>(values: &'a [u32], note: &'b mut String) -> &'a u32 {
        note.push('x');
        later("largest", ()).await;
        note.push_str(&values.len().to_string());
        values.iter().max().unwrap()
    }

    /// # Safety
    /// `p` points to a live `u32`.
    pub async unsafe fn read_raw(p: *const u32) -> u32 {
        let v = unsafe { *p };
        later("raw", v).await + 1
    }

    pub struct Service { pub name: String, pub hits: u32 }

    impl Service {
        pub async fn handle(self: Arc<Self>, request: u32) -> String {
            let v = later("handle", request).await;
            format!("{}:{}:{}", self.name, v, self.hits)
        }
    }

    pub async fn then_apply<F: Future<Output = u32>, G>(f: F, g: G) -> u32
    where
        G: FnOnce(u32) -> u32,
    {
        let v = f.await;
        g(v) + later("after", 1).await
    }

    pub async fn sum_calls(f: impl AsyncFn(u32) -> u32, n: u32) -> u32 {
        let mut total = 0;
        for i in 0..n {
            total += f(i).await;
        }
        total
    }

    pub async fn parse_boxed(x: &str) -> Result<u32, Box<dyn std::error::Error + Send + Sync>> {
        let s = later("s", x.to_string()).await;
        let n: u32 = s.parse()?;
        Ok(n + later("n", 1).await)
    }

    pub async fn parse_message(x: &'static str) -> Result<u32, String> {
        parse_boxed(x).await.map_err(|e| e.to_string())
    }
}

#[test]
fn a_trait_default_method_awaits_the_required_one() {
    let outcome = same_at_every_suspension(
        || classic::run_handler(classic::Add(1), 3),
        || runtime::run_handler(runtime::Add(1), 3),
    );
    assert_eq!(outcome, Outcome::Value(3 + 5 + 7));
}

fn memory<M>(make: impl FnOnce(std::collections::HashMap<String, u32>) -> M) -> &'static M {
    Box::leak(Box::new(make(std::collections::HashMap::from([("a".to_string(), 3), ("b".to_string(), 1)]))))
}

#[test]
fn dyn_and_unsized_generic_stores() {
    let keys: &[&str] = &["a", "b", "z"];
    same_at_every_suspension(
        || classic::sum_dyn(memory(classic::Memory), keys),
        || runtime::sum_dyn(memory(runtime::Memory), keys),
    );
    same_at_every_suspension(
        || classic::get_all(memory(classic::Memory), vec!["a".to_string(), "q".to_string()]),
        || runtime::get_all(memory(runtime::Memory), vec!["a".to_string(), "q".to_string()]),
    );
}

#[test]
fn const_generic_array() {
    same_at_every_suspension(|| classic::sum_array([1u8, 2, 3]), || runtime::sum_array([1u8, 2, 3]));
}

#[test]
fn elided_and_named_lifetimes() {
    same_at_every_suspension(
        || classic::elided(&3, Box::leak(Box::default())),
        || runtime::elided(&3, Box::leak(Box::default())),
    );
    let outcome = same_at_every_suspension(
        || classic::largest(&[1, 5, 2], Box::leak(Box::default())),
        || runtime::largest(&[1, 5, 2], Box::leak(Box::default())),
    );
    assert_eq!(outcome, Outcome::Value(&5));
}

#[test]
fn async_unsafe_fn() {
    static X: u32 = 5;
    // SAFETY: `X` is a live `u32`.
    same_at_every_suspension(|| unsafe { classic::read_raw(&X) }, || unsafe { runtime::read_raw(&X) });
}

#[test]
fn an_arc_self_receiver() {
    same_at_every_suspension(
        || classic::Service::handle(Arc::new(classic::Service { name: "s".into(), hits: 2 }), 4),
        || runtime::Service::handle(Arc::new(runtime::Service { name: "s".into(), hits: 2 }), 4),
    );
}

#[test]
fn futures_closures_and_async_closures_as_parameters() {
    same_at_every_suspension(
        || classic::then_apply(later("f", 3), |x| x * 2),
        || runtime::then_apply(later("f", 3), |x| x * 2),
    );
    same_at_every_suspension(
        || classic::sum_calls(async |x| later("f", x).await + 1, 3),
        || runtime::sum_calls(async |x| later("f", x).await + 1, 3),
    );
}

#[test]
fn a_boxed_error_filled_by_the_question_mark() {
    for input in ["12", "x"] {
        same_at_every_suspension(|| classic::parse_message(input), || runtime::parse_message(input));
    }
}

//! Borrows that reach a local through a value stored into it, then held across an await: a
//! cache's `invalidate_entries` collects borrowed entries of a `&mut` parameter into a vector
//! (`candidates.push(k)` in a loop over `deqs.write_order`), awaits a call that takes the
//! vector, then changes the parameter. The classic state machine saved the parameter between
//! states, and the vector's borrow of it (E0502/E0499 "cannot borrow `*deqs` as mutable") could
//! not survive that; the parameter now stays in place. The shapes: a `for` loop, an iterator a
//! `let` borrows with `if let` in a `while`, a map's `insert`, a `let` between, a method of a
//! `&mut self`, and in a loop of rounds. Each runs under both lowerings, to the end and dropped
//! at every suspension.

use std::collections::BTreeMap;

use lowering_tests::*;

pub struct Deques {
    pub write_order: Vec<Loud>,
}

pub async fn scan(candidates: Vec<&Loud>) -> usize {
    let names: Vec<&str> = candidates.iter().map(|loud| loud.name()).collect();
    later("scan", names.len() + names.concat().len()).await
}

pub async fn scan_map(candidates: BTreeMap<usize, &Loud>) -> usize {
    later("scan_map", candidates.values().map(|loud| loud.name().len()).sum()).await
}

fn deques(names: &[&str]) -> Deques {
    Deques { write_order: names.iter().map(|name| Loud::new(*name)).collect() }
}

differential! {
    // The cache's shape: an iterator a `let` borrows, read by `if let` in a `while`.
    pub async fn invalidate_entries(deqs: &mut Deques, batch: usize) -> usize {
        let mut candidates = Vec::new();
        let has_next;
        {
            let iter = &mut deqs.write_order.iter().peekable();
            while candidates.len() < batch {
                if let Some(entry) = iter.next() {
                    candidates.push(entry);
                } else {
                    break;
                }
            }
            has_next = iter.peek().is_some();
        }
        let scanned = scan(candidates).await;
        deqs.write_order.truncate(1);
        scanned + usize::from(has_next) + deqs.write_order.len()
    }

    // A `for` loop, and a `let` between the loop's binding and the push.
    pub async fn collected_in_a_for(deqs: &mut Deques) -> usize {
        let mut candidates = Vec::new();
        for entry in deqs.write_order.iter() {
            let same = entry;
            candidates.push(same);
        }
        let scanned = scan(candidates).await;
        deqs.write_order.push(Loud::new("added"));
        scanned + deqs.write_order.len()
    }

    // A map's `insert`, of an owned local borrowed (not a parameter).
    pub async fn inserted_into_a_map(names: Vec<String>) -> usize {
        let mut owned: Vec<Loud> = names.into_iter().map(Loud::new).collect();
        let mut candidates = BTreeMap::new();
        for (index, entry) in owned.iter().enumerate() {
            candidates.insert(index, entry);
        }
        let scanned = scan_map(candidates).await;
        owned.clear();
        scanned + owned.len()
    }

    // In rounds of a loop whose body awaits.
    pub async fn in_rounds(deqs: &mut Deques, rounds: usize) -> usize {
        let mut total = 0;
        for _ in 0..rounds {
            let mut candidates = Vec::new();
            for entry in deqs.write_order.iter() {
                candidates.push(entry);
            }
            total += scan(candidates).await;
            deqs.write_order.pop();
        }
        total
    }

    pub struct Cache {
        pub deqs: Deques,
    }

    impl Cache {
        // A method: the entries of a field of `&mut self`.
        pub async fn invalidate(&mut self) -> usize {
            let mut candidates = Vec::new();
            for entry in self.deqs.write_order.iter() {
                candidates.push(entry);
            }
            let scanned = scan(candidates).await;
            self.deqs.write_order.clear();
            scanned
        }
    }
}

#[test]
fn borrows_stored_into_a_vector_then_awaited() {
    for batch in 0..4 {
        same_at_every_suspension(
            || {
                let mut deqs = deques(&["a", "bb", "ccc"]);
                async move { classic::invalidate_entries(&mut deqs, batch).await }
            },
            || {
                let mut deqs = deques(&["a", "bb", "ccc"]);
                async move { runtime::invalidate_entries(&mut deqs, batch).await }
            },
        );
    }
    let outcome = same_at_every_suspension(
        || {
            let mut deqs = deques(&["a", "bb"]);
            async move { classic::collected_in_a_for(&mut deqs).await }
        },
        || {
            let mut deqs = deques(&["a", "bb"]);
            async move { runtime::collected_in_a_for(&mut deqs).await }
        },
    );
    assert_eq!(outcome, Outcome::Value(2 + 3 + 3));
}

#[test]
fn borrows_stored_into_a_map_in_rounds_and_in_a_method() {
    let names = || vec!["x".to_owned(), "yy".to_owned()];
    let outcome =
        same_at_every_suspension(|| classic::inserted_into_a_map(names()), || runtime::inserted_into_a_map(names()));
    assert_eq!(outcome, Outcome::Value(3));
    for rounds in 0..3 {
        same_at_every_suspension(
            || {
                let mut deqs = deques(&["a", "bb", "ccc"]);
                async move { classic::in_rounds(&mut deqs, rounds).await }
            },
            || {
                let mut deqs = deques(&["a", "bb", "ccc"]);
                async move { runtime::in_rounds(&mut deqs, rounds).await }
            },
        );
    }
    same_at_every_suspension(
        || {
            let mut cache = classic::Cache { deqs: deques(&["a", "bb"]) };
            async move { cache.invalidate().await }
        },
        || {
            let mut cache = runtime::Cache { deqs: deques(&["a", "bb"]) };
            async move { cache.invalidate().await }
        },
    );
}

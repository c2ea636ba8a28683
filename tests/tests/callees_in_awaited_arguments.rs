//! A local called inside the arguments of an awaited call (an actor system's
//! `self.create_actor_path(path.clone(), actor_fn()).await`, `actor_fn: F` with `F: FnOnce() ->
//! A`): the call is over before the await and its value holds no borrow of the closure, so the
//! closure is not kept in place for that await (kept in place, an `FnOnce` could not be called:
//! E0507 "cannot move out of a raw pointer"). An async closure called there is: its future may
//! borrow it. Each shape runs under both lowerings, to the end and dropped at every suspension.

use lowering_tests::*;

pub struct System {
    pub name: Loud,
}

impl System {
    pub async fn get(&self, path: &str) -> Option<u32> {
        later("get", if path.is_empty() { Some(1) } else { None }).await
    }

    pub async fn create(&self, path: String, actor: u32) -> Result<u32, String> {
        later("create", Ok(actor + path.len() as u32 + self.name.name().len() as u32)).await
    }
}

pub async fn run(value: u32, other: u32) -> u32 {
    later("run", value + other).await
}

differential! {
    // The crate's shape (a method of the system there), in a `match` arm after an await.
    pub async fn get_or_create<F>(system: &System, path: &str, actor_fn: F) -> Result<u32, String>
    where
        F: FnOnce() -> u32,
    {
        match system.get(path).await {
            Some(actor) => Ok(actor),
            None => system.create(path.to_string(), actor_fn()).await,
        }
    }

    // As the only statement, and with an owned value the closure captured.
    pub async fn created<F: FnOnce() -> u32>(system: &System, make: F) -> Result<u32, String> {
        system.create("p".to_string(), make()).await
    }

    pub async fn from_a_moved_capture(value: Loud) -> u32 {
        let make = move || value.name().len() as u32;
        run(make(), 1).await
    }

    // An `FnMut` called in each round's argument, and read after the loop.
    pub async fn in_a_loop(rounds: u32) -> u32 {
        let mut count = 0;
        let mut next = || {
            count += 1;
            count
        };
        let mut total = 0;
        for _ in 0..rounds {
            total += run(next(), total).await;
        }
        total + count
    }

    // An async closure called in an argument: its future borrows it, across the await.
    pub async fn async_closure_in_an_argument(value: u32) -> u32 {
        let prefix = Loud::new("prefix");
        let add = async |x: u32| later("add", x + prefix.name().len() as u32).await;
        run(add(value).await, add(1).await).await
    }
}

fn system() -> System {
    System { name: Loud::new("sys") }
}

#[test]
fn an_fn_once_parameter_called_in_an_awaited_argument() {
    for path in ["", "ab"] {
        let outcome = same_at_every_suspension(
            || {
                let system = system();
                async move { classic::get_or_create(&system, path, || 5).await }
            },
            || {
                let system = system();
                async move { runtime::get_or_create(&system, path, || 5).await }
            },
        );
        let expected = if path.is_empty() { Ok(1) } else { Ok(5 + 2 + 3) };
        assert_eq!(outcome, Outcome::Value(expected));
    }
    same_at_every_suspension(
        || {
            let system = system();
            async move { classic::created(&system, || 4).await }
        },
        || {
            let system = system();
            async move { runtime::created(&system, || 4).await }
        },
    );
}

#[test]
fn closures_called_in_awaited_arguments() {
    let outcome = same_at_every_suspension(
        || classic::from_a_moved_capture(Loud::new("v")),
        || runtime::from_a_moved_capture(Loud::new("v")),
    );
    assert_eq!(outcome, Outcome::Value(2));
    for rounds in 0..3 {
        same_at_every_suspension(|| classic::in_a_loop(rounds), || runtime::in_a_loop(rounds));
    }
    same_at_every_suspension(|| classic::async_closure_in_an_argument(3), || runtime::async_closure_in_an_argument(3));
}

//! The hints a user (or `inspect crate`) gives where the macro cannot know how a method call
//! takes its receiver, which rustc's error says: `moves(cmd)` where a kept local's consuming
//! method was E0507, `keeps(tx)` where a `&self` method at the local's last use was E0597.
//! Each hinted function behaves as the plain one; a wrong hint is a compile error
//! (`tests/ui/hint_*.rs`).

use lowering_tests::*;

pub struct Cmd(pub Loud);

impl Cmd {
    pub async fn peek(&self) -> u32 {
        later("peek", self.0.name().len() as u32).await
    }

    pub async fn apply(self, db: u32) -> u32 {
        later("apply", db).await + self.0.name().len() as u32
    }
}

pub struct Tx(pub Loud);

impl Tx {
    pub async fn send(&self, value: u32) -> u32 {
        later("send", value + self.0.name().len() as u32).await
    }
}

mod moves {
    use super::*;

    #[lowering::lowering(classic, moves(cmd))]
    pub async fn classic(db: u32) -> u32 {
        let cmd = Cmd(Loud::new("cmd"));
        let seen = cmd.peek().await;
        cmd.apply(db).await + seen
    }

    #[lowering::lowering(runtime)]
    pub async fn runtime(db: u32) -> u32 {
        let cmd = Cmd(Loud::new("cmd"));
        let seen = cmd.peek().await;
        cmd.apply(db).await + seen
    }
}

mod keeps {
    use super::*;

    #[lowering::lowering(classic, keeps(tx))]
    pub async fn classic(value: u32) -> u32 {
        let tx = Tx(Loud::new("tx"));
        let first = later("first", value).await;
        tx.send(first).await
    }

    #[lowering::lowering(runtime)]
    pub async fn runtime(value: u32) -> u32 {
        let tx = Tx(Loud::new("tx"));
        let first = later("first", value).await;
        tx.send(first).await
    }
}

#[test]
fn a_moves_hint_takes_a_kept_local_at_its_last_use() {
    let outcome = same_at_every_suspension(|| moves::classic(4), || moves::runtime(4));
    assert_eq!(outcome, Outcome::Value(4 + 3 + 3));
}

#[test]
fn a_keeps_hint_borrows_a_local_at_its_last_use() {
    let outcome = same_at_every_suspension(|| keeps::classic(1), || keeps::runtime(1));
    assert_eq!(outcome, Outcome::Value(1 + 2));
}

/// A wrapper whose consuming methods hand a field to that field's consuming method (a
/// connection pool's `Transaction::commit(self) { self.txn.commit().await }`).
pub struct Wrapper {
    pub cmd: Cmd,
    pub tag: Loud,
}

mod field_of_self {
    use super::*;

    impl Wrapper {
        #[lowering::lowering(classic, moves(self.cmd))]
        pub async fn classic_apply(self, db: u32) -> u32 {
            self.cmd.apply(db).await
        }

        #[lowering::lowering(runtime)]
        pub async fn runtime_apply(self, db: u32) -> u32 {
            self.cmd.apply(db).await
        }

        // The rest of `self` (`tag`) is read after the field moved, and drops at the end.
        #[lowering::lowering(classic, moves(self.cmd))]
        pub async fn classic_apply_then_tag(self, db: u32) -> (u32, usize) {
            let seen = self.cmd.peek().await;
            (self.cmd.apply(db + seen).await, self.tag.name().len())
        }

        #[lowering::lowering(runtime)]
        pub async fn runtime_apply_then_tag(self, db: u32) -> (u32, usize) {
            let seen = self.cmd.peek().await;
            (self.cmd.apply(db + seen).await, self.tag.name().len())
        }
    }
}

mod field_of_a_local {
    use super::*;

    #[lowering::lowering(classic, moves(wrapper.cmd))]
    pub async fn classic(db: u32) -> u32 {
        let wrapper = Wrapper { cmd: Cmd(Loud::new("cmd")), tag: Loud::new("tag") };
        let seen = wrapper.cmd.peek().await;
        wrapper.cmd.apply(db).await + seen
    }

    #[lowering::lowering(runtime)]
    pub async fn runtime(db: u32) -> u32 {
        let wrapper = Wrapper { cmd: Cmd(Loud::new("cmd")), tag: Loud::new("tag") };
        let seen = wrapper.cmd.peek().await;
        wrapper.cmd.apply(db).await + seen
    }
}

/// A server whose `serve(self)` splits a field it owns (`self.loopback.split()`, a consuming
/// method not awaited) and awaits with the halves, then reads another field, whose method
/// (`name(&self)`) the hint, which names `self.loopback` only, leaves borrowing it: it drops
/// with `self`, after the locals, as in the plain function.
pub struct Loopback(pub Loud, pub Loud);

impl Loopback {
    pub fn split(self) -> (Loud, Loud) {
        (self.0, self.1)
    }
}

pub struct Server {
    pub loopback: Loopback,
    pub name: Loud,
}

mod split_field {
    use super::*;

    impl Server {
        #[lowering::lowering(classic, moves(self.loopback))]
        pub async fn classic_serve(self) -> usize {
            let (requests, responses) = self.loopback.split();
            let n = later("serve", requests.name().len()).await;
            n + responses.name().len() + self.name.name().len()
        }

        #[lowering::lowering(runtime)]
        pub async fn runtime_serve(self) -> usize {
            let (requests, responses) = self.loopback.split();
            let n = later("serve", requests.name().len()).await;
            n + responses.name().len() + self.name.name().len()
        }
    }
}

mod split_field_by_path {
    use super::*;

    impl Server {
        #[lowering::lowering(classic)]
        pub async fn classic_serve_by_path(self) -> usize {
            let (requests, responses) = Loopback::split(self.loopback);
            let n = later("serve", requests.name().len()).await;
            n + responses.name().len() + self.name.name().len()
        }

        #[lowering::lowering(runtime)]
        pub async fn runtime_serve_by_path(self) -> usize {
            let (requests, responses) = Loopback::split(self.loopback);
            let n = later("serve", requests.name().len()).await;
            n + responses.name().len() + self.name.name().len()
        }
    }
}

#[test]
fn the_field_moved_by_a_call_of_the_method_as_a_function() {
    let outcome = same_at_every_suspension(|| server().classic_serve_by_path(), || server().runtime_serve_by_path());
    assert_eq!(outcome, Outcome::Value(2 + 3 + 6));
}

fn server() -> Server {
    Server { loopback: Loopback(Loud::new("in"), Loud::new("out")), name: Loud::new("server") }
}

#[test]
fn a_moves_hint_on_self_takes_a_field_a_let_splits() {
    let outcome = same_at_every_suspension(|| server().classic_serve(), || server().runtime_serve());
    assert_eq!(outcome, Outcome::Value(2 + 3 + 6));
}

fn wrapper() -> Wrapper {
    Wrapper { cmd: Cmd(Loud::new("cmd")), tag: Loud::new("tag") }
}

#[test]
fn a_moves_hint_on_self_takes_its_field_at_the_last_use() {
    let outcome = same_at_every_suspension(|| wrapper().classic_apply(4), || wrapper().runtime_apply(4));
    assert_eq!(outcome, Outcome::Value(4 + 3));
    let outcome =
        same_at_every_suspension(|| wrapper().classic_apply_then_tag(4), || wrapper().runtime_apply_then_tag(4));
    assert_eq!(outcome, Outcome::Value((4 + 3 + 3, 3)));
}

#[test]
fn a_moves_hint_on_a_local_takes_its_field_at_the_last_use() {
    let outcome = same_at_every_suspension(|| field_of_a_local::classic(4), || field_of_a_local::runtime(4));
    assert_eq!(outcome, Outcome::Value(4 + 3 + 3));
}

/// Consumed by a method the lowering does not know (`go(self)`), inside another call's argument,
/// then an await: the lowering saved the local across the await after the call had moved it
/// (E0382 "use of moved value", "moved due to this method call", an AMQP client's connector:
/// `conn.io_loop.register(io_loop.start()?)`). `moves(lp)` says the call takes it, and
/// `inspect crate` reads that hint from the error.
pub struct Loop(pub Loud);

impl Loop {
    pub fn go(self) -> u32 {
        self.0.name().len() as u32
    }
}

mod moved_in_an_argument {
    use super::*;

    #[lowering::lowering(classic, moves(lp))]
    pub async fn classic(name: &'static str) -> u32 {
        let total = std::cell::Cell::new(1);
        let lp = Loop(Loud::new(name));
        total.set(lp.go());
        later("after", ()).await;
        total.get()
    }

    #[lowering::lowering(runtime)]
    pub async fn runtime(name: &'static str) -> u32 {
        let total = std::cell::Cell::new(1);
        let lp = Loop(Loud::new(name));
        total.set(lp.go());
        later("after", ()).await;
        total.get()
    }
}

#[test]
fn a_moves_hint_takes_a_local_a_call_consumes_in_an_argument() {
    let outcome =
        same_at_every_suspension(|| moved_in_an_argument::classic("lp"), || moved_in_an_argument::runtime("lp"));
    assert_eq!(outcome, Outcome::Value(2));
}

/// A consuming method called on a call's value (an FTP client's
/// `data_stream.into_inner().finish().await`, a SOCKS5 server's
/// `Proto::start(self.inner).negotiate_auth(..).await`, an AMQP client's
/// `Connection::for_reconnect(..).start(..).await`): the lowering keeps a call's value that a
/// method is called on in a place of its own, for a method that borrows it, which a consuming
/// one cannot move out of (E0507). `moves(wire.to_frame())` names the call: the method takes it.
pub struct Wire(pub Loud);

impl Wire {
    pub fn to_frame(&self) -> Frame {
        Frame(Loud::new(format!("{}-frame", self.0.name())))
    }
}

pub struct Frame(pub Loud);

impl Frame {
    pub fn start(name: &str) -> Frame {
        Frame(Loud::new(name))
    }

    pub async fn finish(self) -> u32 {
        later("finish", self.0.name().len() as u32).await
    }
}

mod consumed_call_value {
    use super::*;

    #[lowering::lowering(classic, moves(wire.to_frame(), Frame::start(name)))]
    pub async fn classic(name: &'static str) -> u32 {
        let wire = Wire(Loud::new(name));
        let first = wire.to_frame().finish().await;
        first + Frame::start(name).finish().await + wire.0.name().len() as u32
    }

    #[lowering::lowering(runtime)]
    pub async fn runtime(name: &'static str) -> u32 {
        let wire = Wire(Loud::new(name));
        let first = wire.to_frame().finish().await;
        first + Frame::start(name).finish().await + wire.0.name().len() as u32
    }
}

#[test]
fn a_moves_hint_takes_a_call_s_value() {
    let outcome = same_at_every_suspension(|| consumed_call_value::classic("w"), || consumed_call_value::runtime("w"));
    assert_eq!(outcome, Outcome::Value(7 + 1 + 1));
}

/// A consuming method called on an awaited value (a SOCKS5 server's
/// `Proto::start(inner).negotiate_auth(..).await?.read_username_password().await?`): the
/// lowering keeps an awaited value that a later await's method is called on in place, for a
/// method that borrows it (`self.control().await?.read_response(code).await`);
/// `moves(Handshake::open(name).await?)` says the method takes it.
pub struct Handshake(pub Loud);

impl Handshake {
    pub async fn open(name: &str) -> Result<Handshake, String> {
        Ok(Handshake(later("open", Loud::new(name)).await))
    }

    pub async fn finish(self) -> Result<u32, String> {
        Ok(later("finish", self.0.name().len() as u32).await)
    }
}

mod consumed_awaited_value {
    use super::*;

    #[lowering::lowering(classic, moves(Handshake::open(name).await?))]
    pub async fn classic(name: &'static str) -> Result<u32, String> {
        let n = Handshake::open(name).await?.finish().await?;
        Ok(n + 1)
    }

    #[lowering::lowering(runtime)]
    pub async fn runtime(name: &'static str) -> Result<u32, String> {
        let n = Handshake::open(name).await?.finish().await?;
        Ok(n + 1)
    }
}

#[test]
fn a_moves_hint_takes_an_awaited_value() {
    let outcome =
        same_at_every_suspension(|| consumed_awaited_value::classic("abc"), || consumed_awaited_value::runtime("abc"));
    assert_eq!(outcome, Outcome::Value(Ok(4)));
}

/// A local called as a function that takes it by value (an `FnOnce`), inside a closure that
/// is handed on (a cache's `try_compute`: `catch_unwind(AssertUnwindSafe(|| f(maybe_entry)))`,
/// moka 0.12.16), and one called directly at its last use: the call borrowed it (rustc's E0507
/// "cannot move out of a raw pointer", with the hint too); `moves(f)` now has the call take
/// it, and the closure take it when it is made, as Rust does.
mod a_called_local {
    use super::*;
    use std::future::Future;
    use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

    macro_rules! try_compute {
        ($name:ident, $($lowering:tt)*) => {
            #[lowering::lowering($($lowering)*)]
            pub async fn $name<F, Fut, G>(f: F, then: G, key: &'static str) -> u32
            where
                F: FnOnce(Option<Loud>) -> Fut,
                Fut: Future<Output = u32>,
                G: FnOnce(u32) -> u32,
            {
                let maybe_entry = later("lookup", (!key.is_empty()).then(|| Loud::new(key))).await;
                let seen = maybe_entry.as_ref().map_or(0, |entry| entry.name().len() as u32);
                let fut = match catch_unwind(AssertUnwindSafe(|| f(maybe_entry))) {
                    Ok(fut) => fut,
                    Err(payload) => resume_unwind(payload),
                };
                let value = fut.await + seen;
                then(later("then", value).await)
            }
        };
    }

    try_compute!(classic, classic, moves(f, then));
    try_compute!(runtime, runtime);
}

#[test]
fn a_moves_hint_has_a_call_take_the_local_it_calls() {
    for key in ["key", ""] {
        let compute = |guard: Loud| {
            move |entry: Option<Loud>| async move {
                let n = entry.map_or(0, |entry| entry.name().len() as u32);
                later("compute", n + guard.name().len() as u32).await
            }
        };
        let then = |base: Loud| move |value: u32| value * 10 + base.name().len() as u32;
        let outcome = same_at_every_suspension(
            || a_called_local::classic(compute(Loud::new("g")), then(Loud::new("b")), key),
            || a_called_local::runtime(compute(Loud::new("g")), then(Loud::new("b")), key),
        );
        let expected = if key.is_empty() { 11 } else { 71 };
        assert_eq!(outcome, Outcome::Value(expected));
    }
}

//! `Send` and `Sync` of classic tasks against the plain `async fn`'s future, shape by shape.
//!
//! A task's auto traits come from its witness, the type of the body as rustc checks it (the
//! twin), so they are the plain future's, with one documented exception: a task stores its
//! result, so a classic call whose result type is not `Send` makes a caller that holds the
//! pending task across an await not `Send` either, where the plain caller (which holds only
//! the callee's future, not its result) may be (`a_pending_call_with_a_result_that_is_not_send`).
//!
//! Each check asks rustc, for the very type each variant returns, whether it is `Send`
//! (`is_send!`: an inherent method that exists only when the type is `Send` takes precedence
//! over a trait method that always does), so a test compares what the compiler decided.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Mutex;

use futures::executor::block_on;
use lowering_tests::{differential, later, take_log};

struct Probe<'a, T>(PhantomData<&'a T>);

trait Fallback {
    fn send(&self) -> bool {
        false
    }
    fn sync(&self) -> bool {
        false
    }
}

impl<T> Fallback for Probe<'_, T> {}

impl<T: Send> Probe<'_, T> {
    #[allow(dead_code)]
    fn send(&self) -> bool {
        true
    }
}

struct SyncProbe<'a, T>(PhantomData<&'a T>);

impl<T> Fallback for SyncProbe<'_, T> {}

impl<T: Sync> SyncProbe<'_, T> {
    #[allow(dead_code)]
    fn sync(&self) -> bool {
        true
    }
}

fn probe<T>(_: &T) -> Probe<'_, T> {
    Probe(PhantomData)
}

fn sync_probe<T>(_: &T) -> SyncProbe<'_, T> {
    SyncProbe(PhantomData)
}

/// Whether the value's type is `Send`, as rustc decides for that concrete type.
macro_rules! is_send {
    ($value:expr) => {{
        let value = $value;
        let sent = probe(&value).send();
        drop(value);
        sent
    }};
}

macro_rules! is_sync {
    ($value:expr) => {{
        let value = $value;
        let shared = sync_probe(&value).sync();
        drop(value);
        shared
    }};
}

/// `Send` under both lowerings, for the same call: (classic, runtime).
macro_rules! both_send {
    ($call:ident ( $($arg:expr),* )) => {{
        let pair = (is_send!(classic::$call($($arg),*)), is_send!(runtime::$call($($arg),*)));
        take_log();
        pair
    }};
}

pub struct NotSync(pub Cell<u32>);

differential! {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    use std::sync::Mutex;
    use lowering_tests::{later, log};

    pub async fn plain(n: u32) -> u32 {
        later("a", n).await + 1
    }

    pub async fn rc_in_a_scope_that_ends_first(n: u32) -> u32 {
        {
            let local = Rc::new(n);
            log(format!("rc {local}"));
        }
        later("a", n).await
    }

    pub async fn rc_dropped_before_the_await(n: u32) -> u32 {
        let local = Rc::new(n);
        let value = *local;
        drop(local);
        later("a", value).await
    }

    pub async fn rc_held_across_an_await(n: u32) -> u32 {
        let local = Rc::new(n);
        later("a", n).await + *local
    }

    pub async fn rc_borrowed_across_an_await(n: u32) -> u32 {
        let local = Rc::new(n);
        let shared = &local;
        later("a", n).await + **shared
    }

    pub async fn refcell_guard_across_an_await(cell: &RefCell<u32>) -> u32 {
        let guard = cell.borrow();
        later("a", *guard).await
    }

    pub async fn refcell_guard_released_first(cell: &RefCell<u32>) -> u32 {
        let value = *cell.borrow();
        later("a", value).await
    }

    pub async fn mutex_guard_across_an_await(lock: &Mutex<u32>) -> u32 {
        let guard = lock.lock().unwrap();
        later("a", *guard).await
    }

    pub async fn mutex_guard_released_first(lock: &Mutex<u32>) -> u32 {
        let value = *lock.lock().unwrap();
        later("a", value).await
    }

    pub async fn shared_reference_to_a_cell(cell: &Cell<u32>) -> u32 {
        later("a", cell.get()).await + cell.get()
    }

    pub async fn owns_a_cell(cell: Cell<u32>) -> u32 {
        later("a", cell.get()).await + cell.get()
    }

    pub async fn generic<T: Clone>(value: T) -> T {
        later("a", 1).await;
        value.clone()
    }

    pub async fn callee_holds_an_rc(n: u32) -> u32 {
        rc_held_across_an_await(n).await + 1
    }

    pub async fn callee_is_send(n: u32) -> u32 {
        plain(n).await + rc_in_a_scope_that_ends_first(n).await
    }

    pub async fn closure_capturing_an_rc(n: u32) -> u32 {
        let local = Rc::new(n);
        let read = move || *local;
        later("a", n).await + read()
    }

    pub async fn async_block_holding_an_rc(n: u32) -> u32 {
        async move {
            let local = Rc::new(n);
            later("a", n).await + *local
        }
        .await
    }

    pub async fn joined(n: u32) -> u32 {
        let (a, b) = futures::join!(later("a", n), plain(n));
        a + b
    }

    pub async fn rc_result(n: u32) -> Rc<u32> {
        later("a", n).await;
        Rc::new(n)
    }

    pub async fn awaits_an_rc_result(n: u32) -> u32 {
        *rc_result(n).await
    }

    pub struct Counter {
        pub count: u32,
    }

    impl Counter {
        pub async fn bump(&mut self) -> u32 {
            self.count += later("a", 1).await;
            self.count
        }

        pub async fn read(&self) -> u32 {
            later("a", self.count).await
        }
    }

    pub struct Shared {
        pub cell: Cell<u32>,
    }

    impl Shared {
        pub async fn read(&self) -> u32 {
            later("a", self.cell.get()).await
        }
    }
}

#[test]
fn what_is_send_in_both() {
    assert_eq!(both_send!(plain(1)), (true, true));
    assert_eq!(both_send!(rc_in_a_scope_that_ends_first(1)), (true, true));
    assert_eq!(both_send!(callee_is_send(1)), (true, true));
    assert_eq!(both_send!(joined(1)), (true, true));
    assert_eq!(both_send!(generic(5u32)), (true, true));
    assert_eq!(both_send!(generic(String::from("x"))), (true, true));
    let lock = Mutex::new(3);
    assert_eq!(both_send!(mutex_guard_released_first(&lock)), (true, true));
    let mut counter = classic::Counter { count: 0 };
    let mut plain_counter = runtime::Counter { count: 0 };
    assert_eq!((is_send!(counter.bump()), is_send!(plain_counter.bump())), (true, true));
    assert_eq!((is_send!(counter.read()), is_send!(plain_counter.read())), (true, true));
    take_log();
}

#[test]
fn what_is_not_send_in_either() {
    assert_eq!(both_send!(rc_held_across_an_await(1)), (false, false));
    // rustc counts a binding whose scope spans the await as held there, even when its value
    // was moved out before it (`drop(local)`): the plain future is not `Send`, nor the task.
    assert_eq!(both_send!(rc_dropped_before_the_await(1)), (false, false));
    assert_eq!(both_send!(rc_borrowed_across_an_await(1)), (false, false));
    assert_eq!(both_send!(callee_holds_an_rc(1)), (false, false));
    assert_eq!(both_send!(closure_capturing_an_rc(1)), (false, false));
    assert_eq!(both_send!(async_block_holding_an_rc(1)), (false, false));
    assert_eq!(both_send!(generic(Rc::new(1))), (false, false));
    let cell = RefCell::new(2);
    // A `&RefCell` is not `Send` (the cell is not `Sync`), whether or not a guard is held.
    assert_eq!(both_send!(refcell_guard_across_an_await(&cell)), (false, false));
    assert_eq!(both_send!(refcell_guard_released_first(&cell)), (false, false));
    let lock = Mutex::new(3);
    assert_eq!(both_send!(mutex_guard_across_an_await(&lock)), (false, false));
    let shared = Cell::new(4);
    assert_eq!(both_send!(shared_reference_to_a_cell(&shared)), (false, false));
    let classic_shared = classic::Shared { cell: Cell::new(1) };
    let runtime_shared = runtime::Shared { cell: Cell::new(1) };
    assert_eq!((is_send!(classic_shared.read()), is_send!(runtime_shared.read())), (false, false));
    take_log();
}

#[test]
fn a_cell_owned_is_send_in_both() {
    // `Cell` is `Send` (not `Sync`): a future that owns one may move.
    assert_eq!(both_send!(owns_a_cell(Cell::new(1))), (true, true));
}

#[test]
fn a_pending_call_with_a_result_that_is_not_send() {
    // The one difference: the task of `rc_result` will hold its `Rc` result, so the classic
    // caller that awaits it is not `Send`; the plain caller holds `rc_result`'s future, which
    // holds no `Rc` across its await.
    assert_eq!(both_send!(rc_result(1)), (false, true));
    assert_eq!(both_send!(awaits_an_rc_result(1)), (false, true));
}

#[test]
fn tasks_are_sync_exactly_when_send() {
    assert!(is_sync!(classic::plain(1)));
    assert!(!is_sync!(classic::rc_held_across_an_await(1)));
    take_log();
}

#[test]
fn a_send_task_runs_on_another_thread() {
    let task = classic::callee_is_send(2);
    let handle = std::thread::spawn(move || block_on(task));
    assert_eq!(handle.join().unwrap(), 2 + 1 + 2);
    let suspended = classic::joined(3);
    assert!(!suspended.is_completed());
    assert_eq!(std::thread::spawn(move || block_on(suspended)).join().unwrap(), 3 + 4);
    take_log();
}

#[test]
fn the_generic_function_follows_its_argument() {
    assert!(is_send!(classic::generic(NotSyncButSend(Cell::new(1)))));
    assert!(!is_send!(classic::generic(Rc::new(1))));
    let _ = later("unused", 0);
    take_log();
}

/// Only its type is looked at: `Send`, not `Sync`.
#[derive(Clone)]
#[allow(dead_code)]
struct NotSyncButSend(Cell<u32>);

#[test]
fn not_sync_values_are_reported_as_such() {
    let value = NotSync(Cell::new(1));
    assert!(!sync_probe(&value).sync());
    assert!(probe(&value).send());
}

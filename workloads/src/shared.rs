//! The one workload source. `lowering::both!` compiles it twice: into [`classic`] under
//! `#[lowering(classic)]` and into [`runtime`] under `#[lowering(runtime)]`. No body exists
//! twice in the repository; the host calls `classic::f` and `runtime::f` directly.
//!
//! Names follow the benchmark rows (`LAB.md`): the `chainN` functions of one scenario call
//! each other level by level; level 1 is the leaf, so `value_chain10` is ten calls. Inputs are parameters, so that nothing folds
//! to a constant; results are chosen outside the small-result cache (`+ 1000`), as in the
//! seeds, except where a row is about the cache.

use lowering::leaf::{
    CancellationToken, Cancelled, Gate, Receiver, Sender, ambient, ready, with_cancellation, yield_now,
};

use crate::probe;

lowering::both! {
    // ---- Leaves ---------------------------------------------------------------------------

    /// Returns synchronously, without awaiting (B3, B9).
    pub async fn leaf_value(x: u64) -> u64 {
        x + 1000
    }

    /// B16: a read loop into a local buffer, which each awaited read borrows. The classic
    /// state machine keeps the buffer (and the source) in place: it is pinned in its heap task
    /// from the start, one allocation even though every read completes at once.
    pub async fn read_loop(len: u64) -> u64 {
        let mut source = crate::source::Source::new(len);
        let mut buf = [0u8; 16];
        let mut total = 0u64;
        loop {
            let n = source.read(&mut buf).await;
            if n == 0 {
                break;
            }
            total += buf[..n].iter().map(|&byte| u64::from(byte)).sum::<u64>();
        }
        total + 1000
    }

    /// Awaits an already-complete future (C#'s `await Task.FromResult(..)`) (B2, B11).
    pub async fn leaf_completed(x: u64) -> u64 {
        ready(x).await + 1000
    }

    /// Suspends until the caller opens `gate` (B12, C2).
    pub async fn leaf_gate(gate: Gate<u64>, token: CancellationToken) -> Result<u64, Cancelled> {
        let value = gate.wait().await;
        if token.is_cancelled() {
            return Err(Cancelled { token: token.id() });
        }
        Ok(value + 1000)
    }

    // ---- B2 CompletedChain10: ten levels over an already-complete leaf ---------------------

    pub async fn completed_chain10(x: u64) -> u64 { completed_chain9(x).await + 1 }
    pub async fn completed_chain9(x: u64) -> u64 { completed_chain8(x).await + 1 }
    pub async fn completed_chain8(x: u64) -> u64 { completed_chain7(x).await + 1 }
    pub async fn completed_chain7(x: u64) -> u64 { completed_chain6(x).await + 1 }
    pub async fn completed_chain6(x: u64) -> u64 { completed_chain5(x).await + 1 }
    pub async fn completed_chain5(x: u64) -> u64 { completed_chain4(x).await + 1 }
    pub async fn completed_chain4(x: u64) -> u64 { completed_chain3(x).await + 1 }
    pub async fn completed_chain3(x: u64) -> u64 { completed_chain2(x).await + 1 }
    pub async fn completed_chain2(x: u64) -> u64 { completed_chain1(x).await + 1 }
    pub async fn completed_chain1(x: u64) -> u64 { ready(x).await + 1000 }

    // ---- B3 ValueChain10: ten levels over a leaf that returns synchronously ----------------

    pub async fn value_chain10(x: u64) -> u64 { value_chain9(x).await + 1 }
    pub async fn value_chain9(x: u64) -> u64 { value_chain8(x).await + 1 }
    pub async fn value_chain8(x: u64) -> u64 { value_chain7(x).await + 1 }
    pub async fn value_chain7(x: u64) -> u64 { value_chain6(x).await + 1 }
    pub async fn value_chain6(x: u64) -> u64 { value_chain5(x).await + 1 }
    pub async fn value_chain5(x: u64) -> u64 { value_chain4(x).await + 1 }
    pub async fn value_chain4(x: u64) -> u64 { value_chain3(x).await + 1 }
    pub async fn value_chain3(x: u64) -> u64 { value_chain2(x).await + 1 }
    pub async fn value_chain2(x: u64) -> u64 { value_chain1(x).await + 1 }
    pub async fn value_chain1(x: u64) -> u64 { x + 1000 }

    // ---- B4 ValueTaskChain10: the same chain in the value-task shape -------------------------

    #[value_task] pub async fn vt_chain10(x: u64) -> u64 { vt_chain9(x).await + 1 }
    #[value_task] pub async fn vt_chain9(x: u64) -> u64 { vt_chain8(x).await + 1 }
    #[value_task] pub async fn vt_chain8(x: u64) -> u64 { vt_chain7(x).await + 1 }
    #[value_task] pub async fn vt_chain7(x: u64) -> u64 { vt_chain6(x).await + 1 }
    #[value_task] pub async fn vt_chain6(x: u64) -> u64 { vt_chain5(x).await + 1 }
    #[value_task] pub async fn vt_chain5(x: u64) -> u64 { vt_chain4(x).await + 1 }
    #[value_task] pub async fn vt_chain4(x: u64) -> u64 { vt_chain3(x).await + 1 }
    #[value_task] pub async fn vt_chain3(x: u64) -> u64 { vt_chain2(x).await + 1 }
    #[value_task] pub async fn vt_chain2(x: u64) -> u64 { vt_chain1(x).await + 1 }
    #[value_task] pub async fn vt_chain1(x: u64) -> u64 { x + 1000 }

    // ---- B5 CacheHitLoop: 100 awaits of a method that answers from a cache -----------------

    /// A cache hit: completes synchronously with a value outside the small-result cache, so
    /// that the classic call allocates its completed task (C#'s `Task<int>` for a large int).
    /// The read is opaque to the optimizer, as a real cache's would be; otherwise the plain
    /// loop below folds into a closed formula and measures nothing.
    pub async fn cache_lookup(key: u64) -> u64 {
        std::hint::black_box(key) * 7 + 1000
    }

    pub async fn cache_hit_loop(base: u64) -> u64 {
        let mut total = 0;
        for key in base..base + 100 {
            total += cache_lookup(key).await;
        }
        total
    }

    // ---- B6 YieldAtBottomChain10: the innermost level suspends once --------------------------

    pub async fn yield_chain10(x: u64) -> u64 { yield_chain9(x).await + 1 }
    pub async fn yield_chain9(x: u64) -> u64 { yield_chain8(x).await + 1 }
    pub async fn yield_chain8(x: u64) -> u64 { yield_chain7(x).await + 1 }
    pub async fn yield_chain7(x: u64) -> u64 { yield_chain6(x).await + 1 }
    pub async fn yield_chain6(x: u64) -> u64 { yield_chain5(x).await + 1 }
    pub async fn yield_chain5(x: u64) -> u64 { yield_chain4(x).await + 1 }
    pub async fn yield_chain4(x: u64) -> u64 { yield_chain3(x).await + 1 }
    pub async fn yield_chain3(x: u64) -> u64 { yield_chain2(x).await + 1 }
    pub async fn yield_chain2(x: u64) -> u64 { yield_chain1(x).await + 1 }
    pub async fn yield_chain1(x: u64) -> u64 {
        yield_now().await;
        x + 1000
    }

    // ---- B7 TenYieldsInOneMethod --------------------------------------------------------------

    pub async fn ten_yields(x: u64) -> u64 {
        let mut total = x;
        for step in 0..10 {
            yield_now().await;
            total += step;
        }
        total + 1000
    }

    // ---- B8 PanicThroughChain10 and ErrThroughChain10 ----------------------------------------

    pub async fn panic_chain10(x: u64) -> u64 { panic_chain9(x).await + 1 }
    pub async fn panic_chain9(x: u64) -> u64 { panic_chain8(x).await + 1 }
    pub async fn panic_chain8(x: u64) -> u64 { panic_chain7(x).await + 1 }
    pub async fn panic_chain7(x: u64) -> u64 { panic_chain6(x).await + 1 }
    pub async fn panic_chain6(x: u64) -> u64 { panic_chain5(x).await + 1 }
    pub async fn panic_chain5(x: u64) -> u64 { panic_chain4(x).await + 1 }
    pub async fn panic_chain4(x: u64) -> u64 { panic_chain3(x).await + 1 }
    pub async fn panic_chain3(x: u64) -> u64 { panic_chain2(x).await + 1 }
    pub async fn panic_chain2(x: u64) -> u64 { panic_chain1(x).await + 1 }
    pub async fn panic_chain1(x: u64) -> u64 {
        if x != u64::MAX {
            panic!("leaf failed for {x}");
        }
        x
    }

    pub async fn err_chain10(x: u64) -> Result<u64, String> { Ok(err_chain9(x).await? + 1) }
    pub async fn err_chain9(x: u64) -> Result<u64, String> { Ok(err_chain8(x).await? + 1) }
    pub async fn err_chain8(x: u64) -> Result<u64, String> { Ok(err_chain7(x).await? + 1) }
    pub async fn err_chain7(x: u64) -> Result<u64, String> { Ok(err_chain6(x).await? + 1) }
    pub async fn err_chain6(x: u64) -> Result<u64, String> { Ok(err_chain5(x).await? + 1) }
    pub async fn err_chain5(x: u64) -> Result<u64, String> { Ok(err_chain4(x).await? + 1) }
    pub async fn err_chain4(x: u64) -> Result<u64, String> { Ok(err_chain3(x).await? + 1) }
    pub async fn err_chain3(x: u64) -> Result<u64, String> { Ok(err_chain2(x).await? + 1) }
    pub async fn err_chain2(x: u64) -> Result<u64, String> { Ok(err_chain1(x).await? + 1) }
    pub async fn err_chain1(x: u64) -> Result<u64, String> {
        if x != u64::MAX {
            return Err(format!("leaf refused {x}"));
        }
        Ok(x)
    }

    // ---- B9 HotPath12: twelve levels, every await completes synchronously ------------------

    pub async fn hot_path12(x: u64) -> u64 { hot_path11(x).await + 1 }
    pub async fn hot_path11(x: u64) -> u64 { hot_path10(x).await + 1 }
    pub async fn hot_path10(x: u64) -> u64 { hot_path9(x).await + 1 }
    pub async fn hot_path9(x: u64) -> u64 { hot_path8(x).await + 1 }
    pub async fn hot_path8(x: u64) -> u64 { hot_path7(x).await + 1 }
    pub async fn hot_path7(x: u64) -> u64 { hot_path6(x).await + 1 }
    pub async fn hot_path6(x: u64) -> u64 { hot_path5(x).await + 1 }
    pub async fn hot_path5(x: u64) -> u64 { hot_path4(x).await + 1 }
    pub async fn hot_path4(x: u64) -> u64 { hot_path3(x).await + 1 }
    pub async fn hot_path3(x: u64) -> u64 { hot_path2(x).await + 1 }
    pub async fn hot_path2(x: u64) -> u64 { hot_path1(x).await + 1 }
    pub async fn hot_path1(x: u64) -> u64 { ready(x).await + 1000 }

    // ---- B10 SuspendPingPong: each hop goes through twelve levels whose innermost await parks

    pub async fn recv_chain12(rx: &Receiver<u64>) -> Option<u64> { Some(recv_chain11(rx).await? + 1) }
    pub async fn recv_chain11(rx: &Receiver<u64>) -> Option<u64> { Some(recv_chain10(rx).await? + 1) }
    pub async fn recv_chain10(rx: &Receiver<u64>) -> Option<u64> { Some(recv_chain9(rx).await? + 1) }
    pub async fn recv_chain9(rx: &Receiver<u64>) -> Option<u64> { Some(recv_chain8(rx).await? + 1) }
    pub async fn recv_chain8(rx: &Receiver<u64>) -> Option<u64> { Some(recv_chain7(rx).await? + 1) }
    pub async fn recv_chain7(rx: &Receiver<u64>) -> Option<u64> { Some(recv_chain6(rx).await? + 1) }
    pub async fn recv_chain6(rx: &Receiver<u64>) -> Option<u64> { Some(recv_chain5(rx).await? + 1) }
    pub async fn recv_chain5(rx: &Receiver<u64>) -> Option<u64> { Some(recv_chain4(rx).await? + 1) }
    pub async fn recv_chain4(rx: &Receiver<u64>) -> Option<u64> { Some(recv_chain3(rx).await? + 1) }
    pub async fn recv_chain3(rx: &Receiver<u64>) -> Option<u64> { Some(recv_chain2(rx).await? + 1) }
    pub async fn recv_chain2(rx: &Receiver<u64>) -> Option<u64> { Some(recv_chain1(rx).await? + 1) }
    pub async fn recv_chain1(rx: &Receiver<u64>) -> Option<u64> { rx.recv().await }

    /// One side of a ping-pong pair: receive through the chain, send the value back, `hops`
    /// times. Returns the last value it saw (each receive adds 11, one per level above the leaf). The caller
    /// owns the receiver: a classic state machine could not lend its own field to the
    /// awaited chain (see the README).
    pub async fn ping_pong_side(rx: &Receiver<u64>, tx: Sender<u64>, hops: u64) -> u64 {
        let mut last = 0;
        for _ in 0..hops {
            match recv_chain12(rx).await {
                Some(value) => {
                    last = value;
                    tx.send(value);
                }
                None => break,
            }
        }
        last
    }

    /// The control row: the same pair without the chain.
    pub async fn ping_pong_side_direct(rx: &Receiver<u64>, tx: Sender<u64>, hops: u64) -> u64 {
        let mut last = 0;
        for _ in 0..hops {
            match rx.recv().await {
                Some(value) => {
                    last = value;
                    tx.send(value);
                }
                None => break,
            }
        }
        last
    }

    // ---- B11 Chain3 (three completed awaits in a row) and Leaf -----------------------------

    // Three awaits, each bound by a `let`: the shape B11 measures, not a tail call.
    #[allow(clippy::let_and_return)]
    pub async fn chain3(x: u64) -> u64 {
        let a = leaf_completed(x).await;
        let b = leaf_completed(a).await;
        let c = leaf_completed(b).await;
        c
    }

    // ---- B12 GateChain3 (seed 003's SuspendedChain): 17 -> 1019 once the gate opens -----------

    pub async fn gate_chain3(gate: Gate<u64>, token: CancellationToken) -> Result<u64, Cancelled> {
        Ok(gate_chain2(gate, token).await? + 1)
    }
    pub async fn gate_chain2(gate: Gate<u64>, token: CancellationToken) -> Result<u64, Cancelled> {
        Ok(leaf_gate(gate, token).await? + 1)
    }

    /// Seed 003's TaskChain: 17 -> 1019, completing synchronously.
    pub async fn task_chain3(x: u64) -> u64 { task_middle(x).await + 1 }
    pub async fn task_middle(x: u64) -> u64 { leaf_completed(x).await + 1 }

    // ---- B13 RetainedTask and B14 SuspendOnceLoop --------------------------------------------

    /// The outer operation the host keeps in a ring of 64 (B13).
    pub async fn retained(x: u64) -> u64 {
        task_chain3(x).await
    }

    /// A call that suspends once, task shape (B14).
    pub async fn suspend_once(x: u64) -> u64 {
        yield_now().await;
        x + 1000
    }

    /// A call that suspends once, value-task shape (B14).
    #[value_task]
    pub async fn suspend_once_value(x: u64) -> u64 {
        yield_now().await;
        x + 1000
    }

    // ---- B15 SyncLoop: awaits of a method that completes at once, in one loop -----------------

    pub async fn completed_method(i: u64) -> u64 {
        ready(()).await;
        i & 1
    }

    pub async fn sync_loop(n: u64) -> u64 {
        let mut total = 0;
        for i in 0..n {
            total += completed_method(i).await;
        }
        total
    }

    // ---- Behaviour checks: cancellation, failure after suspension, ambient context ----------

    /// C3: the token is checked after the gate; the error carries it.
    pub async fn cancellable(gate: Gate<u64>, token: CancellationToken) -> Result<u64, Cancelled> {
        let _resource = crate::tracked::Tracked::new("cancellable");
        gate_chain3(gate, token).await
    }

    /// C3: an operation that ends early when its token is cancelled while it waits.
    pub async fn watch_token(gate: Gate<u64>, token: CancellationToken) -> Result<u64, Cancelled> {
        let _resource = crate::tracked::Tracked::new("watch_token");
        let value = with_cancellation(gate.wait(), &token).await?;
        Ok(value + 1000)
    }

    /// C4: fails after a real suspension.
    pub async fn fail_after_gate(gate: Gate<u64>, fail: bool) -> Result<u64, String> {
        let value = gate.wait().await;
        if fail {
            panic!("failed after the gate with {value}");
        }
        Err(format!("refused {value} after the gate"))
    }

    /// C5: sets a value before suspending and reads it after; a callee's value stays in its
    /// scope. Returns (seen after the suspension, seen by the callee, seen after the callee).
    pub async fn ambient_flow(gate: Gate<u64>, value: u64) -> (Option<u64>, Option<u64>, Option<u64>) {
        ambient::set(value);
        gate.wait().await;
        let after_suspension = ambient::get();
        let in_callee = ambient::scope(move || ambient_callee(value + 1)).await;
        (after_suspension, in_callee, ambient::get())
    }

    pub async fn ambient_callee(value: u64) -> Option<u64> {
        ambient::set(value);
        yield_now().await;
        ambient::get()
    }

    // ---- Diagnostics D1-D4: live stacks and reports ---------------------------------------------

    /// D1: a three-level chain that records its live stack at the innermost level.
    pub async fn diag_chain3(x: u64) -> u64 { diag_chain2(x).await + 1 }
    pub async fn diag_chain2(x: u64) -> u64 { diag_chain1(x).await + 1 }
    pub async fn diag_chain1(x: u64) -> u64 {
        probe::capture("chain3");
        ready(x).await + 1000
    }

    /// D2: recursion to `depth`, recording the live stack at the bottom.
    pub async fn diag_recursive(depth: u64) -> u64 {
        if depth == 0 {
            probe::capture("recursive");
            return 0;
        }
        ready(()).await;
        Box::pin(diag_recursive(depth - 1)).await + 1
    }

    /// D3: the live stack right after a real suspension resumes.
    pub async fn diag_after_yield(x: u64) -> u64 {
        yield_now().await;
        probe::capture("after_yield");
        x + 1000
    }

    /// D4: a panic three levels down, after a suspension or not.
    pub async fn diag_panic3(suspend: bool) -> u64 { diag_panic2(suspend).await + 1 }
    pub async fn diag_panic2(suspend: bool) -> u64 { diag_panic1(suspend).await + 1 }
    pub async fn diag_panic1(suspend: bool) -> u64 {
        if suspend {
            yield_now().await;
        }
        panic!("diagnostic panic three levels down (suspended first: {suspend})")
    }

    /// D4: an error three levels down, propagated with `?`.
    pub async fn diag_err3(x: u64) -> Result<u64, std::num::ParseIntError> { Ok(diag_err2(x).await? + 1) }
    pub async fn diag_err2(x: u64) -> Result<u64, std::num::ParseIntError> { Ok(diag_err1(x).await? + 1) }
    // `?` where the error arises: the frame D4 names, not a returned `Result`.
    #[allow(clippy::needless_question_mark)]
    pub async fn diag_err1(x: u64) -> Result<u64, std::num::ParseIntError> {
        let text = format!("{x}x");
        Ok(ready(text).await.parse::<u64>()?)
    }
}

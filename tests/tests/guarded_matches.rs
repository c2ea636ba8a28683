//! `matches!` with a guard that names a local living in place (borrowed across an await, or
//! used by value and named again after one): the guard reads the local's value, as the plain
//! function's does, in the body, in a closure and where a pattern's binding hides the local.

use std::net::{Ipv4Addr, SocketAddr};

use lowering_tests::*;

pub fn address(port: u16) -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, port))
}

differential! {
    // The proxy workload's `ask`: `origin` is used by value before an await and after it.
    pub async fn reuses(upstream: Option<(SocketAddr, u32)>, origin: SocketAddr) -> (bool, Option<(SocketAddr, u32)>) {
        let mut upstream = upstream;
        let reuse = matches!(upstream, Some((address, _)) if address == origin);
        if !reuse {
            let connecting = later("connect", origin);
            let connected = connecting.await;
            upstream = Some((connected, 1));
        }
        later("ask", ()).await;
        (reuse, upstream)
    }

    // `limit` is borrowed across an await: it lives in place.
    pub async fn counts_above(values: Vec<u32>, limit: u32) -> usize {
        let held = &limit;
        later("held", ()).await;
        let above = values.iter().filter(|value| matches!(value, v if **v > limit)).count();
        let first = matches!(values.first(), Some(v) if *v > *held);
        above + usize::from(first)
    }

    // The pattern's binding `limit` hides the local in the guard.
    pub async fn hidden_by_the_pattern(pair: Option<u32>, limit: u32) -> bool {
        let held = &limit;
        later("held", ()).await;
        matches!(pair, Some(limit) if limit > 2,) && *held > 0
    }
}

#[test]
fn a_guard_reads_a_local_used_by_value_before_an_await() {
    for upstream in [None, Some((address(1), 7)), Some((address(2), 7))] {
        let outcome = same_at_every_suspension(
            || classic::reuses(upstream, address(1)),
            || runtime::reuses(upstream, address(1)),
        );
        let reused = upstream.is_some_and(|(at, _)| at == address(1));
        let expected = if reused { upstream } else { Some((address(1), 1)) };
        assert_eq!(outcome, Outcome::Value((reused, expected)));
    }
}

#[test]
fn a_guard_reads_a_local_borrowed_across_an_await() {
    for values in [vec![], vec![1, 5, 9], vec![9]] {
        same_at_every_suspension(
            || classic::counts_above(values.clone(), 4),
            || runtime::counts_above(values.clone(), 4),
        );
    }
    for pair in [None, Some(1), Some(3)] {
        same_at_every_suspension(
            || classic::hidden_by_the_pattern(pair, 1),
            || runtime::hidden_by_the_pattern(pair, 1),
        );
    }
}

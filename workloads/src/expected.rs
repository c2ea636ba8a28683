//! Expected results, computed by plain synchronous code: never by either variant.

/// A chain of `levels` calls: the leaf (level 1) adds 1000, each level above it adds 1.
pub fn chain(x: u64, levels: u64) -> u64 {
    x + 1000 + levels - 1
}

/// `chain3`: three completed leaves in a row.
pub fn chain3(x: u64) -> u64 {
    x + 3000
}

/// `cache_hit_loop`: the sum of 100 lookups.
pub fn cache_hit_loop(base: u64) -> u64 {
    (base..base + 100).map(|key| key * 7 + 1000).sum()
}

/// `ten_yields`.
pub fn ten_yields(x: u64) -> u64 {
    x + (0..10).sum::<u64>() + 1000
}

/// `sync_loop`: the odd numbers below `n`.
pub fn sync_loop(n: u64) -> u64 {
    n / 2
}

/// One ping-pong side's last value after `hops` hops of `levels` each, starting from `start`:
/// the value grows by `levels` per receive, on both sides.
pub fn ping_pong_last(start: u64, hops: u64, levels: u64, first_side: bool) -> u64 {
    // Receives alternate: side A gets hop 1, 3, 5...; side B gets 2, 4, 6...
    let received = if first_side { 2 * hops - 1 } else { 2 * hops };
    start + received * levels
}

/// `diag_recursive`.
pub fn recursive(depth: u64) -> u64 {
    depth
}

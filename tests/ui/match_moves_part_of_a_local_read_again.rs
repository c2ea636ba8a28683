//! A `match` by value on a local kept in place (it lives across the await) whose arm moves a
//! part of it out (`other`, a `String`), with the part the arm leaves read again after the
//! `match` (`both.0`), which Rust allows: the classic lowering takes the value whole for such an
//! arm and cannot give back what it leaves, so it asks rustc that the arm's bindings be `Copy`,
//! at the arm's pattern. Bind the moved part by reference (`Some(ref other)`) and clone what
//! the arm keeps, or move it out in a `let` of its own before the `match`.

use lowering::lowering;

async fn tick() {}

#[lowering(classic)]
async fn lengths(first: Option<&u32>, owned: Option<String>) -> usize {
    let both = (first, owned);
    let len = match both {
        (Some(a), Some(other)) => *a as usize + other.len(),
        (Some(a), _) => *a as usize,
        _ => 0,
    };
    tick().await;
    len + both.0.map_or(0, |a| *a as usize)
}

fn main() {}

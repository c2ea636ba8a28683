// A function with more than 4 distinct `#[cfg(..)]` conditions: the classic lowering lowers it
// once per combination of them (a proc macro cannot evaluate a `cfg`), and stops at 16 copies.
use lowering::lowering;

#[lowering(classic)]
async fn configured(n: u32) -> u32 {
    #[cfg(test)]
    let n = n + 1;
    #[cfg(debug_assertions)]
    let n = n + 2;
    #[cfg(unix)]
    let n = n + 3;
    #[cfg(windows)]
    let n = n + 4;
    #[cfg(target_pointer_width = "64")]
    let n = n + 5;
    n
}

fn main() {}

//! Items declared in a block the state machine cuts (one that awaits, or whose paths move a
//! local): the classic lowering declares them for the whole function, under a name of their
//! own where their name would mean another item outside the block or would be declared twice.
//! Each function calls the same-named items on both sides of a split, so that an item taken
//! for another shows in the result.

use lowering_tests::fuzz::{Pair, weigh};
use lowering_tests::*;

pub fn helper() -> u32 {
    1
}

pub mod other {
    pub fn helper() -> u32 {
        20
    }
}

pub const LIMIT: u32 = 7;

differential! {
    // A block that does not await, cut because its loop's `break` moves a local: its own
    // `helper`, named in the states after the cut, is not the module's, named outside.
    pub async fn item_named_outside_too(n: u32) -> u32 {
        let v = Loud::new("v");
        let a = helper();
        later("before", 1).await;
        let r = {
            fn helper() -> u32 {
                2
            }
            let mut k = 0u32;
            'l: loop {
                if k == n {
                    break 'l Pair { a: v, b: helper() }.b;
                }
                k += 1;
            }
        };
        a + r + helper() + later("after", 2).await
    }

    // A block that awaits `use`s another `helper` than the function's.
    pub async fn use_in_an_awaiting_block(c: bool) -> u32 {
        let first = helper();
        if c {
            use other::helper;
            later("in", 1).await;
            return first + helper();
        }
        first + helper()
    }

    // The body's `f` and a block's own `f`, each named on both sides of the block's await.
    pub async fn body_item_and_block_item(c: bool) -> u32 {
        fn f(x: u32) -> u32 {
            x + 1
        }
        let a = f(1);
        let b = if c {
            let before = f(3);
            fn f(x: u32) -> u32 {
                x + 10
            }
            before + later("in", f(2)).await + f(4)
        } else {
            0
        };
        a + b + f(0)
    }

    // Two branches that each declare their own `f` and await.
    pub async fn two_awaiting_blocks(c: bool) -> u32 {
        if c {
            fn f(x: u32) -> u32 {
                x + 10
            }
            later("then", f(2)).await + f(1)
        } else {
            fn f(x: u32) -> u32 {
                x + 20
            }
            later("else", f(2)).await + f(1)
        }
    }

    // A struct, its `impl`, a constant matched as a pattern and a nested function that names
    // them, in a block that awaits, beside another block's items of the same names.
    pub async fn types_constants_and_patterns(n: u32) -> u32 {
        let outside = {
            struct Meter(u32);
            const LIMIT: u32 = 1;
            Meter(LIMIT).0
        };
        let inside = {
            #[derive(Clone, Copy)]
            struct Meter(u32);
            impl Meter {
                fn double(self) -> Meter {
                    Meter(self.0 * 2)
                }
            }
            const LIMIT: u32 = 3;
            fn limited(m: Meter) -> u32 {
                m.0.min(LIMIT * 10)
            }
            let m = Meter(later("n", n).await).double();
            let kind = match m.0 {
                LIMIT => 100,
                _ => 0,
            };
            limited(m) + kind + LIMIT
        };
        outside + inside + LIMIT
    }

    // A braced struct and a function of one name (one in each namespace) in one block, which
    // another block's `Meter` makes rename: both get the one new name.
    #[allow(non_snake_case)]
    pub async fn one_name_in_two_namespaces(n: u32) -> u32 {
        let first = {
            struct Meter(u32);
            Meter(1).0
        };
        let second = {
            struct Meter {
                v: u32,
            }
            fn Meter(v: u32) -> Meter {
                Meter { v: v + 1 }
            }
            let m: Meter = Meter(later("n", n).await);
            m.v
        };
        first + second
    }

    // The same `use` in two blocks that await is declared once, under its own name.
    pub async fn one_use_in_two_blocks(c: bool) -> u32 {
        let a = if c {
            use std::cmp::max;
            max(later("a", 3).await, 1)
        } else {
            use std::cmp::max;
            max(later("b", 0).await, 2)
        };
        a
    }

    // A block's own item named inside a closure and a macro of the block, after the await.
    pub async fn named_in_a_closure_and_a_macro(n: u32) -> u32 {
        let a = helper();
        let b = {
            fn helper() -> u32 {
                5
            }
            let m = later("m", n).await;
            let add = |x: u32| x + helper();
            let text = format!("{}-{}", helper(), add(m));
            weigh(&Loud::new(&text)) + add(0)
        };
        a + b
    }
}

#[test]
fn an_item_named_outside_its_block_keeps_its_meaning_on_both_sides() {
    for n in [0, 2] {
        same_at_every_suspension(|| classic::item_named_outside_too(n), || runtime::item_named_outside_too(n));
    }
    for c in [true, false] {
        same_at_every_suspension(|| classic::use_in_an_awaiting_block(c), || runtime::use_in_an_awaiting_block(c));
    }
}

#[test]
fn items_of_one_name_in_several_blocks_stay_apart() {
    for c in [true, false] {
        same_at_every_suspension(|| classic::body_item_and_block_item(c), || runtime::body_item_and_block_item(c));
        same_at_every_suspension(|| classic::two_awaiting_blocks(c), || runtime::two_awaiting_blocks(c));
        same_at_every_suspension(|| classic::one_use_in_two_blocks(c), || runtime::one_use_in_two_blocks(c));
    }
}

#[test]
fn renamed_items_are_renamed_wherever_the_block_names_them() {
    for n in [3, 6] {
        same_at_every_suspension(
            || classic::types_constants_and_patterns(n),
            || runtime::types_constants_and_patterns(n),
        );
        same_at_every_suspension(
            || classic::named_in_a_closure_and_a_macro(n),
            || runtime::named_in_a_closure_and_a_macro(n),
        );
        same_at_every_suspension(|| classic::one_name_in_two_namespaces(n), || runtime::one_name_in_two_namespaces(n));
    }
}

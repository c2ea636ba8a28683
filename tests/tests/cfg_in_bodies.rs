//! Code under `#[cfg(..)]` inside a body (statements, struct literal fields, match arms) and
//! among the parameters: the classic lowering is lowered once per combination of the
//! predicates, and the copy rustc keeps has exactly the code rustc keeps. `cfg(test)` holds in
//! this crate and `cfg(not(test))` does not: a name declared under the one that does not hold
//! exists nowhere (E0425 if the lowering named it).

use lowering_tests::*;

pub struct Shape {
    pub a: u32,
    #[cfg(test)]
    pub b: u32,
    #[cfg(not(test))]
    pub c: String,
}

differential! {
    pub async fn metered(n: u32) -> u32 {
        #[cfg(test)]
        let timer = Loud::new("timer");
        #[cfg(not(test))]
        let only_elsewhere = Loud::new("never");
        let value = later("first", n).await;
        #[cfg(test)]
        log(format!("timer {}", timer.name()));
        #[cfg(not(test))]
        log(format!("never {}", only_elsewhere.name()));
        let shape = Shape {
            a: value,
            #[cfg(test)]
            b: 1,
            #[cfg(not(test))]
            c: String::new(),
        };
        later("second", ()).await;
        match shape.a {
            #[cfg(test)]
            0 => 100,
            #[cfg(not(test))]
            0 => 200,
            v => v + shape.b,
        }
    }

    pub async fn with_cfg_param(a: u32, #[cfg(test)] b: u32, #[cfg(not(test))] c: Loud) -> u32 {
        let first = later("first", a).await;
        #[cfg(test)]
        let first = first + b;
        first
    }
}

#[test]
fn statements_fields_and_arms_under_cfg() {
    for n in [0, 3] {
        same_at_every_suspension(|| classic::metered(n), || runtime::metered(n));
    }
    same_at_every_suspension(|| classic::with_cfg_param(1, 2), || runtime::with_cfg_param(1, 2));
}

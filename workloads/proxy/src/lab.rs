//! The mixed configuration M1 in the lab rows seed 001 used: B9 (the 12-deep hot path) and
//! B10 (56 ping-pong pairs, a chain of 12 per hop). The library is the shared workloads' leaf
//! (`hot_path1`, `recv_chain1`: an awaited complete future, a channel receive), in the lowering
//! of `workloads::classic` or `workloads::runtime`; the eleven levels above it and the
//! ping-pong side are the application, written here once by `lab!` into four modules. The
//! levels have the shape of the shared source's B9 and B10 functions (`workloads/src/shared.rs`),
//! which cannot take a library as a parameter: `classic` and `runtime` here measure what B9
//! and B10 measure there.

use lowering::leaf::{Receiver, Sender};

/// `lab! { lowering module over library; .. }`: the application levels below, once per line.
macro_rules! lab {
    ($($lowering:ident $module:ident over $library:ident;)*) => {$(
        #[lowering::lowering($lowering)]
        pub mod $module {
            use super::*;
            use workloads::$library as library;

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
            pub async fn hot_path2(x: u64) -> u64 { library::hot_path1(x).await + 1 }

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
            pub async fn recv_chain2(rx: &Receiver<u64>) -> Option<u64> { Some(library::recv_chain1(rx).await? + 1) }

            /// One side of a pair: receive through the chain, send the value back, `hops` times;
            /// returns the last value received.
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
        }
    )*};
}

lab! {
    classic classic_over_classic over classic;
    runtime runtime_over_runtime over runtime;
    classic classic_over_runtime over runtime;
    runtime runtime_over_classic over classic;
}

/// `for_each_config!(config, module => body)`: `body` with `module` bound to the lab module of
/// `config` (a [`crate::Config`] other than the control), as a `match`: direct calls.
#[macro_export]
macro_rules! for_each_config {
    ($config:expr, $module:ident => $body:expr) => {
        match $config {
            $crate::Config::Classic => {
                use $crate::lab::classic_over_classic as $module;
                $body
            }
            $crate::Config::Runtime => {
                use $crate::lab::runtime_over_runtime as $module;
                $body
            }
            $crate::Config::ClassicOverRuntime => {
                use $crate::lab::classic_over_runtime as $module;
                $body
            }
            $crate::Config::RuntimeOverClassic => {
                use $crate::lab::runtime_over_classic as $module;
                $body
            }
            $crate::Config::Control => unreachable!("the lab rows have no control"),
        }
    };
}

/// What the artifact says the lab row's `function` (the application's top) and `leaf` (the
/// library's) were lowered as, named as the configurations are.
pub fn measured(config: crate::Config, function: &str, leaf: &str) -> String {
    let application = match config {
        crate::Config::Classic => "lowering_proxy::lab::classic_over_classic",
        crate::Config::Runtime => "lowering_proxy::lab::runtime_over_runtime",
        crate::Config::ClassicOverRuntime => "lowering_proxy::lab::classic_over_runtime",
        crate::Config::RuntimeOverClassic => "lowering_proxy::lab::runtime_over_classic",
        crate::Config::Control => return "none (no async)".to_owned(),
    };
    let library = match config.layers() {
        Some((_, lowering::Lowering::Classic)) => "workloads::shared::classic",
        _ => "workloads::shared::runtime",
    };
    let lowering_of = |module: &str, function: &str| lowering::records_of(module, function).next().map(|r| r.lowering);
    crate::config::name_of(lowering_of(application, function), lowering_of(library, leaf))
}

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

            /// What a call of `hot_path12` calls, by defining paths: itself and the library's
            /// `hot_path1`, named through the `library` alias `hot_path2` calls it by.
            pub fn hot_path_called() -> crate::config::Called {
                crate::config::Called {
                    application: std::any::type_name_of_val(&hot_path12).to_owned(),
                    library: std::any::type_name_of_val(&library::hot_path1).to_owned(),
                }
            }

            /// What a `ping_pong_side` calls, as `hot_path_called` says it for `hot_path12`.
            pub fn ping_pong_called() -> crate::config::Called {
                crate::config::Called {
                    application: std::any::type_name_of_val(&ping_pong_side).to_owned(),
                    library: std::any::type_name_of_val(&library::recv_chain1).to_owned(),
                }
            }

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

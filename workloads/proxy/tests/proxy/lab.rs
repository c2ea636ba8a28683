//! The mixed lab rows (B9, B10) compute the same values in every configuration, those plain
//! arithmetic gives (`workloads::expected`), and the functions each configuration calls have
//! the records of its layers; a row pointed at another configuration's functions is refused.

use futures::FutureExt as _;
use lowering::leaf::channel;
use lowering_proxy::{Config, application, for_each_config, lab};

const CONFIGS: [Config; 4] = [Config::Classic, Config::ClassicOverRuntime, Config::Runtime, Config::RuntimeOverClassic];

#[test]
fn the_hot_path_is_the_same_in_every_configuration() {
    for config in CONFIGS {
        let called = for_each_config!(config, m => m::hot_path_called());
        assert_eq!(config.prove(Some(&called)).as_deref(), Ok(config.name()));
        for x in [0, 17, 1 << 40] {
            let value = for_each_config!(config, m => futures::executor::block_on(m::hot_path12(x)));
            assert_eq!(value, workloads::expected::chain(x, 12), "{}", config.name());
        }
    }
}

#[test]
fn ping_pong_is_the_same_in_every_configuration() {
    const PAIRS: u64 = 3;
    const HOPS: u64 = 4;
    for config in CONFIGS {
        let called = for_each_config!(config, m => m::ping_pong_called());
        assert_eq!(config.prove(Some(&called)).as_deref(), Ok(config.name()));
        let mut channels = Vec::new();
        for pair in 0..PAIRS {
            let (to_b, from_a) = channel();
            let (to_a, from_b) = channel();
            to_b.send(pair);
            channels.push((from_a, to_a, from_b, to_b));
        }
        let sides: Vec<_> = channels
            .iter()
            .flat_map(|(from_a, to_a, from_b, to_b)| {
                for_each_config!(config, m => [
                    m::ping_pong_side(from_b, to_b.clone(), HOPS).boxed_local(),
                    m::ping_pong_side(from_a, to_a.clone(), HOPS).boxed_local(),
                ])
            })
            .collect();
        let lasts = futures::executor::block_on(futures::future::join_all(sides));
        let expected: Vec<u64> = (0..PAIRS)
            .flat_map(|pair| {
                [
                    workloads::expected::ping_pong_last(pair, HOPS, 11, false),
                    workloads::expected::ping_pong_last(pair, HOPS, 11, true),
                ]
            })
            .collect();
        assert_eq!(lasts, expected, "{}", config.name());
    }
}

/// The proof of what a row ran is the called functions' own records: a row whose code called
/// another configuration's functions (here, each configuration's functions under every other
/// configuration's label) is refused, with what it called, before anything is timed.
#[test]
fn a_row_pointed_at_another_configurations_functions_is_refused() {
    let lab_rows = [
        (Config::Classic, lab::classic_over_classic::hot_path_called()),
        (Config::ClassicOverRuntime, lab::classic_over_runtime::hot_path_called()),
        (Config::Runtime, lab::runtime_over_runtime::hot_path_called()),
        (Config::RuntimeOverClassic, lab::runtime_over_classic::ping_pong_called()),
    ];
    let proxies = [
        (Config::Classic, application::classic_over_classic::called()),
        (Config::ClassicOverRuntime, application::classic_over_runtime::called()),
        (Config::Runtime, application::runtime_over_runtime::called()),
        (Config::RuntimeOverClassic, application::runtime_over_classic::called()),
    ];
    for rows in [lab_rows, proxies] {
        for (owner, called) in &rows {
            assert_eq!(owner.prove(Some(called)).as_deref(), Ok(owner.name()), "{called:?}");
            for label in CONFIGS.into_iter().filter(|label| label != owner) {
                let refused = label.prove(Some(called)).expect_err("a crossed row must be refused");
                assert!(
                    refused.contains(&called.application)
                        && refused.contains(&format!("say {}", owner.name()))
                        && refused.ends_with("not timing it"),
                    "{refused}"
                );
            }
            assert!(Config::Control.prove(Some(called)).is_err());
        }
    }
    assert!(Config::Classic.prove(None).is_err());
    assert_eq!(Config::Control.prove(None).as_deref(), Ok("none (no proxy)"));
}

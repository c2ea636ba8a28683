//! The mixed lab rows (B9, B10) compute the same values in every configuration, those plain
//! arithmetic gives (`workloads::expected`), and their records say what each layer got.

use futures::FutureExt as _;
use lowering::leaf::channel;
use lowering_proxy::{Config, for_each_config};

const CONFIGS: [Config; 4] = [Config::Classic, Config::ClassicOverRuntime, Config::Runtime, Config::RuntimeOverClassic];

#[test]
fn the_hot_path_is_the_same_in_every_configuration() {
    for config in CONFIGS {
        assert_eq!(lowering_proxy::lab::measured(config, "hot_path12", "hot_path1"), config.name());
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
        assert_eq!(lowering_proxy::lab::measured(config, "ping_pong_side", "recv_chain1"), config.name());
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

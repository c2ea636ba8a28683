//! A few requests of each case through every configuration, over real loopback TCP: every
//! response checked by the generator, and the same results required of every configuration.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::time::Duration;

use lowering_proxy::application::Settings;
use lowering_proxy::generator::expected_checksum;
use lowering_proxy::{Case, Config, Stack};

const CONNECTIONS: usize = 4;
const REQUESTS: usize = 24;

#[test]
fn every_configuration_answers_every_case_identically() {
    for config in Config::ALL {
        let mut stack = Stack::start(config, CONNECTIONS, Settings::default()).unwrap();
        let proven = stack.proven().unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(proven, if config == Config::Control { "none (no proxy)" } else { config.name() });
        for case in Case::BOTH {
            for _ in 0..2 {
                let operation =
                    stack.operation(case, REQUESTS).unwrap_or_else(|error| panic!("{}: {error}", config.name()));
                assert_eq!(operation.checksum, expected_checksum(case, REQUESTS), "{} {case:?}", config.name());
            }
        }
        if config != Config::Control {
            assert_eq!(stack.stats().requests.load(Ordering::Relaxed), 4 * REQUESTS as u64, "{}", config.name());
        }
        let accepted = stack.shutdown().unwrap();
        assert_eq!(accepted, if config == Config::Control { 0 } else { CONNECTIONS as u64 }, "{}", config.name());
    }
}

#[test]
fn bad_requests_get_a_clear_status_and_local_routes_are_answered() {
    for config in Config::ALL.into_iter().filter(|config| *config != Config::Control) {
        let stack = Stack::start(config, 1, Settings::default()).unwrap();
        // The stack's runtime runs only inside `block_on`: the blocking client runs beside it.
        let run = |request: &'static [u8]| {
            let address = stack.proxy_address().unwrap();
            let client = std::thread::spawn(move || {
                let mut stream = TcpStream::connect(address).unwrap();
                stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                stream.write_all(request).unwrap();
                let mut answer = String::new();
                stream.read_to_string(&mut answer).unwrap();
                answer
            });
            stack.block_on(async {
                while !client.is_finished() {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            });
            client.join().unwrap()
        };
        let health = run(b"GET /__proxy/health HTTP/1.1\r\nconnection: close\r\n\r\n");
        assert!(health.starts_with("HTTP/1.1 200 OK\r\n") && health.ends_with("\r\n\r\nok\n"), "{health}");
        let bad = run(b"GET http://example.com/ HTTP/1.1\r\n\r\n");
        assert!(bad.starts_with("HTTP/1.1 400 Bad Request\r\n") && bad.contains("resolves no host names"), "{bad}");
        let chunked = run(b"POST http://127.0.0.1:1/ HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n");
        assert!(chunked.starts_with("HTTP/1.1 501 "), "{chunked}");
        let refused = run(b"GET http://127.0.0.1:1/ HTTP/1.1\r\n\r\n");
        assert!(refused.starts_with("HTTP/1.1 502 "), "{refused}");
        // Three refused requests, each counted; the stack reports them at shutdown.
        assert_eq!(stack.stats().errors.load(Ordering::Relaxed), 3, "{}", config.name());
        assert!(stack.shutdown().is_err());
    }
}

#[test]
fn an_idle_connection_is_closed() {
    for config in Config::ALL.into_iter().filter(|config| *config != Config::Control) {
        let settings = Settings { idle_timeout: Duration::from_millis(50), ..Settings::default() };
        let stack = Stack::start(config, 1, settings).unwrap();
        let address = stack.proxy_address().unwrap();
        let client = std::thread::spawn(move || {
            let mut stream = TcpStream::connect(address).unwrap();
            stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut byte = [0u8; 1];
            // Closed by the proxy: end of stream, not the read timeout.
            stream.read(&mut byte).unwrap()
        });
        stack.block_on(async {
            while !client.is_finished() {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        });
        assert_eq!(client.join().unwrap(), 0, "{}", config.name());
        assert_eq!(stack.shutdown().unwrap(), 2, "{}", config.name());
    }
}

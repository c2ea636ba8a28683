//! A `match` on a local kept in place whose value holds references, with a pattern that reaches
//! its bindings through one (a database client's `connect`: `match host { Some(Host::Tcp(host))
//! => .. }` on an `Option<&Host>`): a match by value binds them by reference too (`&String`),
//! where the lowering's probe of the value, through a reference to it, reads the same type. The
//! copy the probe gives was typed as the referent (`String`), and the arm's other path as the
//! binding (`&String`): E0308 "`match` arms have incompatible types". Now the copy takes the
//! binding's type from that other path. With its neighbours: a `Copy` part reached through a
//! reference (`Some((a, b))` on an `Option<&(u32, u32)>`), a plain `Copy` part and an owned one,
//! in a loop, in a method, and in an arm of an outer `match`. Each runs under both lowerings, to
//! the end and dropped at every suspension.

use lowering_tests::*;

#[derive(Clone, Debug, PartialEq)]
pub enum Host {
    Tcp(String),
    Unix(std::rc::Rc<Loud>),
}

pub struct Config {
    pub host: Vec<Host>,
    pub hostaddr: Vec<u32>,
}

pub async fn connect_host(addr: Host, hostname: Option<String>) -> Result<String, String> {
    let said = format!("{addr:?} {hostname:?}");
    later("connect_host", if hostname.as_deref() == Some("up") { Ok(said) } else { Err(said) }).await
}

differential! {
    // The client's shape.
    pub async fn connect(config: &Config) -> Result<String, String> {
        let mut error = None;
        for i in 0..config.host.len().max(config.hostaddr.len()) {
            let host = config.host.get(i);
            let hostaddr = config.hostaddr.get(i);
            let hostname = match host {
                Some(Host::Tcp(host)) => Some(host.clone()),
                #[cfg(unix)]
                Some(Host::Unix(_)) => None,
                #[cfg(not(unix))]
                Some(Host::Unix(_)) => None,
                None => None,
            };
            let addr = match hostaddr {
                Some(ipaddr) => Host::Tcp(ipaddr.to_string()),
                None => host.cloned().unwrap(),
            };
            match connect_host(addr, hostname).await {
                Ok(client) => return Ok(client),
                Err(e) => error = Some(e),
            }
        }
        Err(error.unwrap_or_default())
    }

    // A `Copy` part reached through a reference: a match by value binds `&u32`.
    pub async fn through_a_reference_to_copies(pairs: &[(u32, u32)]) -> u32 {
        let mut total = 0;
        for i in 0..pairs.len() + 1 {
            let pair = pairs.get(i);
            let (a, b) = match pair {
                Some((a, b)) => (a, b),
                None => (&0, &0),
            };
            total += later("pair", *a + *b).await;
            if let Some(&(x, _)) = pair {
                total += x;
            }
        }
        total
    }

    pub struct Hosts {
        pub all: Vec<Host>,
    }

    impl Hosts {
        // In a method, a plain `Copy` part beside one reached through the reference.
        pub async fn name_of(&self, at: Option<(usize, u32)>) -> String {
            let picked = at.map(|(i, n)| (self.all.get(i), n));
            let name = match picked {
                Some((Some(Host::Tcp(name)), n)) => format!("{name}{n}"),
                Some((Some(Host::Unix(loud)), n)) => format!("{}{n}", loud.name()),
                Some((None, n)) => n.to_string(),
                None => String::new(),
            };
            later("name", ()).await;
            match picked {
                Some((Some(host), _)) => format!("{name}:{host:?}"),
                _ => name,
            }
        }
    }

    // In an arm of an outer `match`, an owned value beside the borrowed one, which the first arm
    // moves out (the local is not read again: `ui/match_moves_part_of_a_local_read_again.rs`).
    pub async fn owned_and_borrowed(hosts: &[Host], owned: Option<Host>, pick: u32) -> usize {
        match pick {
            0 => 0,
            n => {
                let both = (hosts.first(), owned);
                let len = match both {
                    (Some(Host::Tcp(name)), Some(Host::Tcp(other))) => name.len() + other.len(),
                    (Some(Host::Tcp(name)), _) => name.len(),
                    (_, Some(Host::Unix(loud))) => loud.name().len(),
                    _ => 0,
                };
                later("len", ()).await;
                len + n as usize + hosts.first().map_or(0, |host| format!("{host:?}").len())
            }
        }
    }
}

#[test]
fn a_client_connecting_to_each_host_in_turn() {
    let configs = || {
        vec![
            Config { host: vec![], hostaddr: vec![] },
            Config { host: vec![Host::Tcp("down".into()), Host::Tcp("up".into())], hostaddr: vec![] },
            Config {
                host: vec![Host::Unix(Loud::new("socket").into()), Host::Tcp("down".into())],
                hostaddr: vec![7, 8],
            },
        ]
    };
    for (classic_config, runtime_config) in configs().iter().zip(&configs()) {
        same_at_every_suspension(|| classic::connect(classic_config), || runtime::connect(runtime_config));
    }
}

#[test]
fn copies_reached_through_a_reference() {
    for pairs in [vec![], vec![(1, 2)], vec![(1, 2), (3, 4)]] {
        same_at_every_suspension(
            || classic::through_a_reference_to_copies(&pairs),
            || runtime::through_a_reference_to_copies(&pairs),
        );
    }
}

#[test]
fn a_method_matching_a_copy_beside_a_reference() {
    let hosts = || vec![Host::Tcp("a".into()), Host::Unix(Loud::new("u").into())];
    let (classic_hosts, runtime_hosts) = (classic::Hosts { all: hosts() }, runtime::Hosts { all: hosts() });
    for at in [None, Some((0, 1)), Some((1, 2)), Some((5, 3))] {
        same_at_every_suspension(|| classic_hosts.name_of(at), || runtime_hosts.name_of(at));
    }
}

#[test]
fn an_owned_value_beside_a_borrowed_one_in_an_arm() {
    let hosts = [Host::Tcp("ab".into())];
    for pick in [0, 1] {
        for owned in [None, Some(Host::Tcp("c".into())), Some(Host::Unix(Loud::new("u").into()))] {
            same_at_every_suspension(
                || classic::owned_and_borrowed(&hosts, owned.clone(), pick),
                || runtime::owned_and_borrowed(&hosts, owned.clone(), pick),
            );
            same_at_every_suspension(
                || classic::owned_and_borrowed(&[], owned.clone(), pick),
                || runtime::owned_and_borrowed(&[], owned.clone(), pick),
            );
        }
    }
}

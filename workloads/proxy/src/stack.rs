//! A running stack: a tokio runtime, the origin, the proxy in one configuration (none for the
//! control), and the generator's connections. The host drives it from synchronous code, one
//! operation at a time; between operations nothing runs.
//!
//! The runtime is tokio's current-thread runtime: the generator, the proxy and the origin
//! share one thread, so that an operation's time and allocations are the whole exchange's,
//! and a machine shared with other work adds no scheduling between threads to the figures.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::application::{self, Settings, Stats};
use crate::config::{Called, Config};
use crate::error::ProxyError;
use crate::generator::{Case, Generator, Operation};
use crate::origin;

/// How long shutting down may take before it is an error.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Stack {
    runtime: Runtime,
    config: Config,
    shutdown: watch::Sender<bool>,
    origin: JoinHandle<()>,
    proxy: Option<JoinHandle<Result<u64, ProxyError>>>,
    /// What the proxy task runs, by defining paths (`None` for the control).
    called: Option<Called>,
    stats: Arc<Stats>,
    generator: Option<Generator>,
    proxy_address: Option<SocketAddr>,
}

async fn bind(what: &'static str) -> Result<TcpListener, ProxyError> {
    TcpListener::bind("127.0.0.1:0").await.map_err(ProxyError::io(what))
}

fn local_address(listener: &TcpListener, what: &'static str) -> Result<SocketAddr, ProxyError> {
    listener.local_addr().map_err(ProxyError::io(what))
}

impl Stack {
    /// Starts the origin and, unless `config` is the control, the proxy, on ports the OS
    /// chooses on 127.0.0.1, and opens `connections` generator connections.
    pub fn start(config: Config, connections: usize, settings: Settings) -> Result<Stack, ProxyError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(ProxyError::io("starting the tokio runtime"))?;
        let (shutdown, watching) = watch::channel(false);
        let stats = Arc::new(Stats::default());
        let started = runtime.block_on(async {
            let origin_listener = bind("binding the origin's port").await?;
            let origin_address = local_address(&origin_listener, "reading the origin's port")?;
            let origin = tokio::spawn(origin::serve(origin_listener, watching.clone()));
            let mut proxy = None;
            let mut called = None;
            let mut proxy_address = None;
            if config != Config::Control {
                let listener = bind("binding the proxy's port").await?;
                proxy_address = Some(local_address(&listener, "reading the proxy's port")?);
                let (task, spawned) = spawn_proxy(config, listener, settings, Arc::clone(&stats), watching.clone());
                proxy = Some(task);
                called = Some(spawned);
            }
            let generator =
                Generator::connect(proxy_address.unwrap_or(origin_address), origin_address, connections).await?;
            Ok::<_, ProxyError>((origin, proxy, called, proxy_address, generator))
        });
        let (origin, proxy, called, proxy_address, generator) = started?;
        Ok(Stack { runtime, config, shutdown, origin, proxy, called, stats, generator: Some(generator), proxy_address })
    }

    pub fn config(&self) -> Config {
        self.config
    }

    /// What this stack's proxy was lowered as, from the lowering records of the functions its
    /// task runs (`Config::prove`): an error when that is not its configuration.
    pub fn proven(&self) -> Result<String, String> {
        self.config.prove(self.called.as_ref())
    }

    /// The proxy's address (`None` for the control), for tests that talk to it directly.
    pub fn proxy_address(&self) -> Option<SocketAddr> {
        self.proxy_address
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Runs a future on the stack's runtime (tests).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// One operation: `requests` requests of `case`, every response checked. A connection the
    /// proxy ended with an error fails the operation too, with that error.
    pub fn operation(&mut self, case: Case, requests: usize) -> Result<Operation, ProxyError> {
        let generator = self.generator.as_mut().ok_or(ProxyError::Closed("(the stack was shut down)"))?;
        let result = self.runtime.block_on(generator.operation(case, requests));
        self.proxy_errors()?;
        result
    }

    /// Each request's latency (ns) in the last operation.
    pub fn latencies(&self) -> Vec<u64> {
        self.generator.as_ref().map(Generator::latencies).unwrap_or_default()
    }

    fn proxy_errors(&self) -> Result<(), ProxyError> {
        if self.stats.errors.load(Ordering::Relaxed) == 0 {
            return Ok(());
        }
        let first = self.stats.first_error.lock().map(|first| first.clone()).unwrap_or_default();
        Err(ProxyError::Check(format!(
            "{} proxy connection(s) ended with an error, the first: {}",
            self.stats.errors.load(Ordering::Relaxed),
            first.unwrap_or_default()
        )))
    }

    /// Closes the generator's connections, signals shutdown, and waits for the proxy's accept
    /// loop to return. Returns how many connections the proxy accepted.
    pub fn shutdown(mut self) -> Result<u64, ProxyError> {
        drop(self.generator.take());
        let _ = self.shutdown.send(true);
        let proxy = self.proxy.take();
        let origin = &mut self.origin;
        let accepted = self.runtime.block_on(async {
            let accepted = match proxy {
                Some(proxy) => tokio::time::timeout(SHUTDOWN_TIMEOUT, proxy)
                    .await
                    .map_err(|_| ProxyError::Timeout("waiting for the proxy to shut down"))?
                    .map_err(|error| ProxyError::Check(format!("the proxy's accept loop failed: {error}")))??,
                None => 0,
            };
            tokio::time::timeout(SHUTDOWN_TIMEOUT, origin)
                .await
                .map_err(|_| ProxyError::Timeout("waiting for the origin to shut down"))?
                .map_err(|error| ProxyError::Check(format!("the origin failed: {error}")))?;
            Ok::<u64, ProxyError>(accepted)
        })?;
        self.proxy_errors()?;
        Ok(accepted)
    }
}

/// The proxy's accept loop in `config`, as a task of the runtime, and what that task runs.
fn spawn_proxy(
    config: Config,
    listener: TcpListener,
    settings: Settings,
    stats: Arc<Stats>,
    shutdown: watch::Receiver<bool>,
) -> (JoinHandle<Result<u64, ProxyError>>, Called) {
    macro_rules! spawn {
        ($module:ident) => {
            (
                tokio::spawn(application::$module::serve(listener, settings, stats, shutdown)),
                application::$module::called(),
            )
        };
    }
    match config {
        Config::Runtime => spawn!(runtime_over_runtime),
        Config::RuntimeOverClassic => spawn!(runtime_over_classic),
        Config::Classic => spawn!(classic_over_classic),
        Config::ClassicOverRuntime => spawn!(classic_over_runtime),
        Config::Control => unreachable!("the control runs no proxy"),
    }
}

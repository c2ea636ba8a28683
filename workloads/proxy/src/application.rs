//! The application layer (the user's code in seed 001): the accept loop, the per-connection
//! handler with keep-alive, an idle timeout and the shutdown signal (`tokio::select!`),
//! routing (requests under `/__proxy/` are answered here), and forwarding to the origin over
//! an upstream connection kept per client connection.
//!
//! One source, written into four modules by `application!`, each lowered one way over one of
//! the library's two lowerings: the mixed configuration M1.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::{sleep, timeout};

use crate::error::ProxyError;
use crate::head::{self, Local, Request, Route};

/// What the proxy is told at its start.
#[derive(Clone, Debug)]
pub struct Settings {
    /// A client connection with no request for this long is closed.
    pub idle_timeout: Duration,
    /// Bound on every wait for the origin (connecting, its response head, its body).
    pub upstream_timeout: Duration,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { idle_timeout: Duration::from_secs(30), upstream_timeout: Duration::from_secs(10) }
    }
}

/// What the proxy did, shared by its connections; read by the host after a run.
#[derive(Debug, Default)]
pub struct Stats {
    pub connections: AtomicU64,
    pub requests: AtomicU64,
    /// Connections that ended with an error (the client was told when it could be).
    pub errors: AtomicU64,
    /// The first of those errors, so that a failure is never only a count.
    pub first_error: Mutex<Option<String>>,
}

impl Stats {
    fn record(&self, error: &ProxyError) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut first = self.first_error.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        first.get_or_insert_with(|| error.to_string());
    }
}

/// Bounds a wait on the origin.
async fn bounded<T>(
    limit: Duration,
    what: &'static str,
    future: impl Future<Output = Result<T, ProxyError>>,
) -> Result<T, ProxyError> {
    timeout(limit, future).await.map_err(|_| ProxyError::Timeout(what))?
}

/// `application! { lowering module over library; .. }`: the application source below, once
/// per line, in a module lowered `lowering` that uses `library` for its connections.
macro_rules! application {
    ($($lowering:ident $module:ident over $library:path;)*) => {$(
        #[lowering::lowering($lowering)]
        pub mod $module {
            use super::*;
            use $library as library;
            use library::Connection;

            /// What a run of `serve` called, by defining paths: `serve` itself, and the
            /// library's `read_head` on the `Connection` type these functions use.
            pub fn called() -> crate::config::Called {
                let connection = std::any::type_name::<Connection>();
                let module = connection.rsplit_once("::").map_or(connection, |(module, _)| module);
                crate::config::Called {
                    application: std::any::type_name_of_val(&serve).to_owned(),
                    library: format!("{module}::read_head"),
                }
            }

            /// Accepts connections until `shutdown` turns true; each connection is a task of its
            /// own. Returns how many it accepted.
            pub async fn serve(
                listener: TcpListener,
                settings: Settings,
                stats: Arc<Stats>,
                mut shutdown: watch::Receiver<bool>,
            ) -> Result<u64, ProxyError> {
                let mut accepted = 0;
                loop {
                    tokio::select! {
                        connection = listener.accept() => {
                            let (stream, _) = connection.map_err(ProxyError::io("accepting a connection"))?;
                            accepted += 1;
                            stats.connections.fetch_add(1, Ordering::Relaxed);
                            tokio::spawn(handle(stream, settings.clone(), Arc::clone(&stats), shutdown.clone()));
                        }
                        _ = shutdown.changed() => return Ok(accepted),
                    }
                }
            }

            /// One client connection, to its end; an error is counted in `stats`.
            pub async fn handle(stream: TcpStream, settings: Settings, stats: Arc<Stats>, mut shutdown: watch::Receiver<bool>) {
                let mut client = Connection::new(stream);
                if let Err(error) = exchanges(&mut client, &settings, &stats, &mut shutdown).await {
                    stats.record(&error);
                }
            }

            /// Request after request on one client connection (keep-alive), until the client
            /// closes, asks to close, stays idle too long, or the proxy shuts down.
            async fn exchanges(
                client: &mut Connection,
                settings: &Settings,
                stats: &Stats,
                shutdown: &mut watch::Receiver<bool>,
            ) -> Result<(), ProxyError> {
                let mut upstream: Option<(SocketAddr, Connection)> = None;
                // The rewritten head of each message, reused for the connection's life.
                let mut out = Vec::with_capacity(1024);
                loop {
                    let len = tokio::select! {
                        head = client.read_head() => match head {
                            Ok(Some(len)) => len,
                            Ok(None) => return Ok(()),
                            Err(ProxyError::Head(refused)) => return refuse(client, refused, &mut out).await,
                            Err(error) => return Err(error),
                        },
                        _ = sleep(settings.idle_timeout) => return Ok(()),
                        _ = shutdown.changed() => return Ok(()),
                    };
                    let parsed = head::forward_request(client.head(len), &mut out);
                    client.consume(len);
                    let request = match parsed {
                        Ok(request) => request,
                        Err(refused) => return refuse(client, refused, &mut out).await,
                    };
                    stats.requests.fetch_add(1, Ordering::Relaxed);
                    let keep_alive = match request.route {
                        Route::Local(local) => answer(client, local, &request, &mut out).await?,
                        Route::Forward(origin) => {
                            let response = match ask(client, &mut upstream, origin, &request, settings, &mut out).await {
                                Ok(response) => response,
                                Err(error) => {
                                    // Nothing of the response has reached the client yet.
                                    let status = if matches!(error, ProxyError::Timeout(_)) { 504 } else { 502 };
                                    head::local_response(status, "the origin did not answer properly\n", true, &mut out);
                                    client.write_all(&out).await?;
                                    return Err(error);
                                }
                            };
                            // The response head is in `out`; from here a failure just ends the
                            // connection (a status now would be mixed into the response).
                            client.write_all(&out).await?;
                            let Some((_, server)) = upstream.as_mut() else {
                                unreachable!("`ask` leaves its upstream connection open");
                            };
                            let copied = server.copy_body(client, response.body_len);
                            bounded(settings.upstream_timeout, "copying the origin's body", copied).await?;
                            if !response.keep_alive {
                                upstream = None;
                            }
                            request.keep_alive
                        }
                    };
                    if !keep_alive {
                        return Ok(());
                    }
                }
            }

            /// Tells the client why its request is refused, and ends the connection.
            async fn refuse(client: &mut Connection, refused: head::HeadError, out: &mut Vec<u8>) -> Result<(), ProxyError> {
                head::local_response(refused.status, &refused.message, true, out);
                client.write_all(out).await?;
                Err(ProxyError::Head(refused))
            }

            /// A request the proxy answers itself (interception).
            async fn answer(client: &mut Connection, local: Local, request: &Request, out: &mut Vec<u8>) -> Result<bool, ProxyError> {
                client.skip_body(request.body_len).await?;
                let (status, body) = match local {
                    Local::Health => (200, "ok\n"),
                    Local::Unknown => (404, "no such proxy endpoint\n"),
                };
                head::local_response(status, if request.is_head { "" } else { body }, !request.keep_alive, out);
                client.write_all(out).await?;
                Ok(request.keep_alive)
            }

            /// Sends the request (head already rewritten in `out`) and its body to `origin`
            /// (over `upstream`, kept open between requests), and reads its response head, which
            /// it leaves rewritten for the client in `out`.
            async fn ask(
                client: &mut Connection,
                upstream: &mut Option<(SocketAddr, Connection)>,
                origin: SocketAddr,
                request: &Request,
                settings: &Settings,
                out: &mut Vec<u8>,
            ) -> Result<head::Response, ProxyError> {
                let reuse = matches!(upstream, Some((address, _)) if *address == origin);
                if !reuse {
                    let connecting = Connection::connect(origin);
                    let connection = bounded(settings.upstream_timeout, "connecting to the origin", connecting).await?;
                    *upstream = Some((origin, connection));
                }
                let Some((_, server)) = upstream.as_mut() else {
                    unreachable!("the upstream connection was just made");
                };
                server.write_all(out).await?;
                client.copy_body(server, request.body_len).await?;
                let reading = server.read_head();
                let len = match bounded(settings.upstream_timeout, "waiting for the origin's response", reading).await? {
                    Some(len) => len,
                    None => {
                        *upstream = None;
                        return Err(ProxyError::Closed("by the origin before its response"));
                    }
                };
                let parsed = head::forward_response(server.head(len), request.is_head, out);
                server.consume(len);
                Ok(parsed?)
            }
        }
    )*};
}

application! {
    classic classic_over_classic over crate::library::classic;
    runtime runtime_over_runtime over crate::library::runtime;
    classic classic_over_runtime over crate::library::runtime;
    runtime runtime_over_classic over crate::library::classic;
}

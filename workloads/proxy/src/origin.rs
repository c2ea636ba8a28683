//! The origin server: hyper's HTTP/1.1 server, plain async Rust (not lowered), as Kestrel is
//! for fluxzy's benchmark.
//!
//! `GET /empty` answers 200 with no body; `POST /echo` answers 200 with the request's body.
//! Both echo the request's `x-request` header, and the `via` header they received as
//! `x-via`, so that the generator can check what the proxy forwarded.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::watch;

async fn respond(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let mut response = Response::builder();
    for (from, to) in [("x-request", "x-request"), ("via", "x-via")] {
        if let Some(value) = request.headers().get(from) {
            response = response.header(to, value.clone());
        }
    }
    let built = match (request.method(), request.uri().path()) {
        (&Method::GET, "/empty") => response.body(Full::new(Bytes::new())),
        (&Method::POST, "/echo") => match request.into_body().collect().await {
            Ok(body) => response.body(Full::new(body.to_bytes())),
            Err(error) => response.status(StatusCode::BAD_REQUEST).body(Full::new(Bytes::from(error.to_string()))),
        },
        _ => response.status(StatusCode::NOT_FOUND).body(Full::new(Bytes::from_static(b"no such path\n"))),
    };
    // Only the static parts above go into the builder: it cannot fail.
    Ok(built.unwrap_or_else(|_| Response::new(Full::new(Bytes::new()))))
}

/// Serves HTTP/1.1 on `listener` until `shutdown` turns true.
pub async fn serve(listener: TcpListener, mut shutdown: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                // A failed accept ends the origin; the generator then fails with a clear error
                // (refused connection or timeout) rather than waiting on a dead listener.
                let Ok((stream, _)) = accepted else { return };
                let _ = stream.set_nodelay(true);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(respond);
                    // A connection the peer drops mid-exchange ends here; the generator's own
                    // checks say what it missed.
                    let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
                });
            }
            _ = shutdown.changed() => return,
        }
    }
}

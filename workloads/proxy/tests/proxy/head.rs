//! The head codec on its own: what is forwarded, dropped, added and refused.

use lowering_proxy::head::{Local, Route, forward_request, forward_response, head_end};

#[test]
fn a_forwarded_request_loses_its_hop_by_hop_headers_and_gains_via() {
    let head = b"POST http://127.0.0.1:8080/echo?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: keep-alive, x-secret\r\nX-Secret: 1\r\nProxy-Authorization: t\r\nContent-Length: 5\r\nX-Request: 7\r\n\r\n";
    let mut out = Vec::new();
    let request = forward_request(head, &mut out).unwrap();
    assert_eq!(request.route, Route::Forward("127.0.0.1:8080".parse().unwrap()));
    assert_eq!((request.body_len, request.keep_alive, request.is_head), (5, true, false));
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "POST /echo?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 5\r\nX-Request: 7\r\nvia: 1.1 lowering-proxy\r\n\r\n"
    );
}

#[test]
fn bad_heads_get_their_status() {
    let mut out = Vec::new();
    let status = |head: &[u8], out: &mut Vec<u8>| forward_request(head, out).unwrap_err().status;
    assert_eq!(status(b"GET /x HTTP/1.1\r\n\r\n", &mut out), 400);
    assert_eq!(status(b"GET http://example.com/ HTTP/1.1\r\n\r\n", &mut out), 400);
    assert_eq!(status(b"CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n", &mut out), 501);
    assert_eq!(status(b"POST http://127.0.0.1:1/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &mut out), 501);
    assert_eq!(status(b"POST http://127.0.0.1:1/ HTTP/1.1\r\nContent-Length: x\r\n\r\n", &mut out), 400);
    assert_eq!(status(b"G\0T / HTTP/1.1\r\n\r\n", &mut out), 400);
}

#[test]
fn local_routes_and_connection_close() {
    let mut out = Vec::new();
    let request = forward_request(b"GET /__proxy/health HTTP/1.1\r\nConnection: close\r\n\r\n", &mut out).unwrap();
    assert_eq!((request.route, request.keep_alive), (Route::Local(Local::Health), false));
    let request = forward_request(b"GET /__proxy/other HTTP/1.0\r\n\r\n", &mut out).unwrap();
    assert_eq!((request.route, request.keep_alive), (Route::Local(Local::Unknown), false));
}

#[test]
fn a_response_needs_a_length() {
    let mut out = Vec::new();
    let response =
        forward_response(b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\nkeep-alive: 5\r\n\r\n", false, &mut out).unwrap();
    assert_eq!((response.status, response.body_len, response.keep_alive), (200, 3, true));
    assert_eq!(
        String::from_utf8(out.clone()).unwrap(),
        "HTTP/1.1 200 OK\r\ncontent-length: 3\r\nvia: 1.1 lowering-proxy\r\n\r\n"
    );
    assert_eq!(forward_response(b"HTTP/1.1 200 OK\r\n\r\n", false, &mut out).unwrap_err().status, 502);
    assert_eq!(forward_response(b"HTTP/1.1 204 No Content\r\n\r\n", false, &mut out).unwrap().body_len, 0);
}

#[test]
fn head_end_resumes() {
    assert_eq!(head_end(b"GET / HTTP/1.1\r\n\r", 0), None);
    assert_eq!(head_end(b"GET / HTTP/1.1\r\n\r\nrest", 17), Some(18));
}

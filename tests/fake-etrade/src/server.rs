//! The accept loop and the per-request pipeline: record → faults → authenticate → route.
//!
//! Connections are served by hyper directly (not `axum::serve`) so that a fault can drop a
//! connection at any point: before reading the request (peeking at the request line to match
//! the pattern), after reading it, or after the endpoint ran.

use std::convert::Infallible;
use std::future::pending;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio::task::JoinSet;
use tower::ServiceExt;

use crate::auth::Wire;
use crate::clock::lock;
use crate::config::OauthErrorStyle;
use crate::faults::Fault;
use crate::record::RecordedRequest;
use crate::responses;
use crate::state::Shared;

const MAX_BODY: usize = 1 << 20;
const MAX_RECORDED_BODY: usize = 64 << 10;

/// Removes a `.json` suffix from every path segment (`/v1/accounts/list.json` →
/// `/v1/accounts/list`, `/v1/user/alerts.json/12` → `/v1/user/alerts/12`).
pub(crate) fn normalize_path(path: &str) -> String {
    path.split('/')
        .map(|seg| seg.strip_suffix(".json").unwrap_or(seg))
        .collect::<Vec<_>>()
        .join("/")
}

/// Lets a request handler drop its own connection.
struct ConnCtl {
    killed: Notify,
    /// A second descriptor of the socket, to set SO_LINGER=0 (close with RST) on kill.
    dup: Mutex<Option<socket2::Socket>>,
}

impl ConnCtl {
    fn kill(&self) {
        if let Some(sock) = lock(&self.dup).take() {
            let _ = sock.set_linger(Some(Duration::ZERO));
        }
        self.killed.notify_one();
    }
}

pub(crate) async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    app: Router,
    control: Router,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    conns.spawn(connection(stream, shared.clone(), app.clone(), control.clone()));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
            },
            _ = shutdown.changed() => break,
        }
        while conns.try_join_next().is_some() {}
    }
    conns.shutdown().await;
}

async fn connection(stream: TcpStream, shared: Arc<Shared>, app: Router, control: Router) {
    let _ = stream.set_nodelay(true);
    if lock_faults_have_refuse(&shared)
        && let Some((method, target)) = peek_request_line(&stream).await
    {
        let (path, query) = match target.split_once('?') {
            Some((p, q)) => (p.to_string(), Some(q.to_string())),
            None => (target.clone(), None),
        };
        let endpoint = normalize_path(&path);
        let refused = !path.starts_with("/__fake")
            && shared
                .lock()
                .faults
                .take(&method, &endpoint, true)
                .is_some();
        if refused {
            shared.record(RecordedRequest {
                seq: 0,
                at: shared.now(),
                mutation: is_mutation(&method, &endpoint),
                method,
                path,
                endpoint,
                query,
                consumer_key: None,
                oauth_token: None,
                accept: None,
                signature_verified: false,
                oauth_problem: None,
                body: None,
                fault: Some(Fault::Refuse.name().into()),
                status: None,
            });
            // Unread data in the receive buffer makes the close an RST; make sure anyway.
            let _ = stream.set_zero_linger();
            return;
        }
    }
    let dup = socket2::SockRef::from(&stream).try_clone().ok();
    let ctl = Arc::new(ConnCtl {
        killed: Notify::new(),
        dup: Mutex::new(dup),
    });
    let svc_ctl = ctl.clone();
    let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
        let shared = shared.clone();
        let answer = pipeline(
            shared.clone(),
            app.clone(),
            control.clone(),
            svc_ctl.clone(),
            req,
        );
        async move {
            let mut resp = answer.await?;
            // E*TRADE's `Date` is E*TRADE's clock: the fake's, so a moved fake clock shows as
            // skew (hyper adds its own real-time Date only when there is none).
            if let Some(date) = http_date(shared.now()) {
                resp.headers_mut().insert(header::DATE, date);
            }
            Ok::<_, Infallible>(resp)
        }
    });
    let conn = http1::Builder::new().serve_connection(TokioIo::new(stream), svc);
    tokio::select! {
        _ = conn => {}
        _ = ctl.killed.notified() => {}
    }
}

/// RFC 9110 IMF-fixdate: `Tue, 01 Dec 2026 12:00:00 GMT`.
fn http_date(t: jiff::Timestamp) -> Option<HeaderValue> {
    let text = t.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string();
    HeaderValue::from_str(&text).ok()
}

fn lock_faults_have_refuse(shared: &Shared) -> bool {
    shared.lock().faults.has_refuse()
}

/// The method and request target of the first request line, without consuming it.
async fn peek_request_line(stream: &TcpStream) -> Option<(String, String)> {
    let mut buf = vec![0u8; 8192];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    loop {
        let n = tokio::time::timeout_at(deadline, stream.peek(&mut buf))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        if let Some(end) = buf[..n].windows(2).position(|w| w == b"\r\n") {
            let line = std::str::from_utf8(&buf[..end]).ok()?;
            let mut parts = line.split(' ');
            let method = parts.next()?.to_string();
            let target = parts.next()?.to_string();
            return Some((method, target));
        }
        if n == buf.len() || tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// Whether an `Accept` header admits what `/oauth/*` answers
/// (`application/x-www-form-urlencoded` or `text/plain`). No header admits anything; a range
/// with `q=0` admits nothing.
pub(crate) fn accepts_oauth_answer(accept: Option<&str>) -> bool {
    const ADMITTING: [&str; 6] = [
        "*/*",
        "application/*",
        "application/x-www-form-urlencoded",
        "text/*",
        "text/plain",
        "text/html",
    ];
    let Some(accept) = accept else {
        return true;
    };
    accept.split(',').any(|range| {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let refused = parts.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        !refused && ADMITTING.contains(&media.as_str())
    })
}

fn is_mutation(method: &str, endpoint: &str) -> bool {
    matches!(method, "POST" | "PUT" | "DELETE" | "PATCH") && endpoint.starts_with("/v1/")
}

fn is_oauth_endpoint(endpoint: &str) -> bool {
    endpoint.starts_with("/oauth/") || endpoint.starts_with("/e/t/etws/")
}

/// The answer of a fault that short-circuits the endpoint, if it is one.
fn early_fault_response(f: Fault, oauth: bool, style: OauthErrorStyle) -> Option<Response<Body>> {
    Some(match f {
        Fault::Status5xx(code) => responses::service_unavailable(
            StatusCode::from_u16(code).unwrap_or(StatusCode::SERVICE_UNAVAILABLE),
        ),
        Fault::RateLimitPage => responses::rate_limit_page(),
        Fault::Http429 => responses::http_429(),
        Fault::HtmlErrorPage => responses::html_error_page(),
        Fault::Unauthorized(p) if oauth => responses::oauth_unauthorized(style, p.as_str()),
        Fault::Unauthorized(p) => responses::api_unauthorized(p.as_str()),
        Fault::Refuse
        | Fault::ResetWithoutProcessing
        | Fault::ResetBeforeResponse
        | Fault::Timeout(_)
        | Fault::MalformedJson
        | Fault::EchoAuthorization => return None,
    })
}

async fn truncate_json(resp: Response<Body>) -> Response<Body> {
    let bytes = axum::body::to_bytes(resp.into_body(), MAX_BODY * 16)
        .await
        .unwrap_or_default();
    let cut = if bytes.len() < 2 {
        b"{\"".to_vec()
    } else {
        bytes[..bytes.len() / 2].to_vec()
    };
    let mut r = Response::new(Body::from(cut));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// A success with the request's `Authorization` header appended to its free-text fields;
/// any other answer unchanged.
async fn echo_authorization(resp: Response<Body>, authorization: &str) -> Response<Body> {
    if !resp.status().is_success() {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_BODY * 16)
        .await
        .unwrap_or_default();
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    responses::append_to_text_fields(
        &mut value,
        &format!(" (request Authorization: {authorization})"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(value.to_string()))
}

async fn pipeline(
    shared: Arc<Shared>,
    app: Router,
    control: Router,
    ctl: Arc<ConnCtl>,
    req: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let (mut parts, body) = req.into_parts();
    let raw_path = parts.uri.path().to_string();
    if raw_path == "/__fake" || raw_path.starts_with("/__fake/") {
        let req = Request::from_parts(parts, Body::new(body));
        return control.oneshot(req).await;
    }
    let method = parts.method.as_str().to_string();
    let query = parts.uri.query().map(str::to_string);
    let endpoint = normalize_path(&raw_path);
    let authorization = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let oauth = authorization
        .as_deref()
        .and_then(|h| runtime::etrade::oauth::parse_authorization(h).ok());
    let accept = parts
        .headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mutation = is_mutation(&method, &endpoint);
    let body = match axum::body::to_bytes(Body::new(body), MAX_BODY).await {
        Ok(b) => b,
        Err(_) => {
            return Ok(responses::api_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                413,
                "Request body too large.",
            ));
        }
    };
    let fault = shared.lock().faults.take(&method, &endpoint, false);
    let canned = shared.lock().canned.take(&method, &endpoint);
    let seq = shared.record(RecordedRequest {
        seq: 0,
        at: shared.now(),
        method: method.clone(),
        path: raw_path.clone(),
        endpoint: endpoint.clone(),
        query: query.clone(),
        consumer_key: oauth
            .as_ref()
            .and_then(|h| h.consumer_key().map(str::to_string)),
        oauth_token: oauth.as_ref().and_then(|h| h.token().map(str::to_string)),
        accept: accept.clone(),
        signature_verified: false,
        oauth_problem: None,
        mutation,
        body: (mutation && !body.is_empty()).then(|| {
            String::from_utf8_lossy(&body[..body.len().min(MAX_RECORDED_BODY)]).into_owned()
        }),
        fault: fault.map(|f| f.name().to_string()),
        status: None,
    });

    if let Some(Fault::Refuse | Fault::ResetWithoutProcessing) = fault {
        ctl.kill();
        return pending().await;
    }
    if let Some(resp) = fault.and_then(|f| {
        early_fault_response(
            f,
            is_oauth_endpoint(&endpoint),
            shared.config.oauth_error_style,
        )
    }) {
        let status = resp.status().as_u16();
        shared.update_record(seq, |r| r.status = Some(status));
        return Ok(resp);
    }

    // The token endpoints answer form-encoded or plain text only; like a strict server, the
    // fake refuses a request that accepts neither (e.g. a JSON-only Accept).
    if endpoint.starts_with("/oauth/") && !accepts_oauth_answer(accept.as_deref()) {
        let resp = responses::not_acceptable();
        shared.update_record(seq, |r| r.status = Some(406));
        return Ok(resp);
    }

    let host = parts
        .headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .unwrap_or_else(|| shared.base_url.trim_start_matches("http://").to_string());
    let path_and_query = parts
        .uri
        .path_and_query()
        .map(|pq| pq.as_str().to_string())
        .unwrap_or_else(|| raw_path.clone());
    let echoed = authorization.clone().unwrap_or_default();
    parts.extensions.insert(Wire {
        seq,
        method: method.clone(),
        url: format!("http://{host}{path_and_query}"),
        authorization,
    });
    let routed = match &query {
        Some(q) => format!("{endpoint}?{q}"),
        None => endpoint.clone(),
    };
    if let Ok(uri) = routed.parse() {
        parts.uri = uri;
    }
    let Ok(resp) = app
        .oneshot(Request::from_parts(parts, Body::from(body)))
        .await;

    match fault {
        Some(Fault::ResetBeforeResponse) => {
            ctl.kill();
            pending().await
        }
        Some(Fault::Timeout(d)) => {
            let status = resp.status().as_u16();
            shared.update_record(seq, |r| r.status = Some(status));
            tokio::time::sleep(d).await;
            Ok(resp)
        }
        Some(Fault::MalformedJson) => {
            shared.update_record(seq, |r| r.status = Some(200));
            Ok(truncate_json(resp).await)
        }
        Some(Fault::EchoAuthorization) => {
            let status = resp.status().as_u16();
            shared.update_record(seq, |r| r.status = Some(status));
            Ok(echo_authorization(resp, &echoed).await)
        }
        _ => {
            // A refused request keeps its refusal: the canned body stands for a real answer,
            // which E*TRADE gives only to a signed, authorized request.
            let resp = match canned {
                Some(body) if resp.status() != StatusCode::UNAUTHORIZED => canned_answer(body),
                _ => resp,
            };
            let status = resp.status().as_u16();
            shared.update_record(seq, |r| r.status = Some(status));
            Ok(resp)
        }
    }
}

fn canned_answer(body: String) -> Response<Body> {
    let mut r = Response::new(Body::from(body));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::accepts_oauth_answer;

    #[test]
    fn oauth_accept_headers() {
        for ok in [
            None,
            Some("*/*"),
            Some("application/x-www-form-urlencoded"),
            Some("text/plain, application/json"),
            Some("application/json, */*;q=0.1"),
            Some("TEXT/*"),
        ] {
            assert!(accepts_oauth_answer(ok), "{ok:?}");
        }
        for refused in [
            Some("application/json"),
            Some("application/json;charset=utf-8"),
            Some("application/xml, application/json"),
            Some("application/json, */*;q=0"),
            Some(""),
        ] {
            assert!(!accepts_oauth_answer(refused), "{refused:?}");
        }
    }
}

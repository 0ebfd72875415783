//! Streamable HTTP at `/mcp` (axum + rmcp) with the guards a local trading tool needs:
//! loopback by default, Origin validation, a bearer token for anything else, a body limit,
//! deadlines for request heads and bodies, and a cap on sessions (`http_sessions`).

use crate::mcp::held_results::{HeldResults, SplicedBody};
use crate::mcp::http_sessions::{Activity, Refusal, SessionLimits, SessionTable};
use crate::mcp::server::McpServer;
use crate::trading::approval::ClientTrust;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;
/// The shortest bearer token accepted when its holders' channels may approve orders: a
/// token that can be guessed would let any local program approve.
pub const MIN_APPROVING_TOKEN_CHARS: usize = 24;

/// Who may be a client of an HTTP listener: with a token every request must carry it (a
/// model's fetch tool cannot read it), without one any local program can connect.
pub fn client_trust(token: Option<&str>) -> ClientTrust {
    match token {
        Some(_) => ClientTrust::Token,
        None => ClientTrust::Anyone,
    }
}

/// Refuse a token whose holders may approve orders (`approving`: trading allowed and a
/// person's approval required) when it is short enough to guess.
pub fn check_approving_token(token: Option<&str>, approving: bool) -> Result<(), HttpError> {
    match token.map(|t| t.trim().chars().count()) {
        Some(n) if approving && n < MIN_APPROVING_TOKEN_CHARS => Err(HttpError::WeakToken(n)),
        _ => Ok(()),
    }
}

#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub listen: SocketAddr,
    /// Required on every request when set; mandatory for a non-loopback bind.
    pub token: Option<String>,
    pub max_body_bytes: usize,
    /// Host names accepted in the Host header besides loopback (for a non-loopback bind).
    pub allowed_hosts: Vec<String>,
    pub sessions: SessionLimits,
}

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(
        "refusing to listen on {0}: it is not a loopback address. Configure a bearer token with --http-token-file FILE or ETRADE_MCP_HTTP_TOKEN, or listen on 127.0.0.1."
    )]
    TokenRequired(SocketAddr),
    #[error("the HTTP token is empty; put a non-empty token in the file or variable")]
    EmptyToken,
    #[error(
        "the HTTP bearer token has {0} characters, and with trading allowed and approval required its holder can approve orders: use at least {MIN_APPROVING_TOKEN_CHARS} random characters (for example `openssl rand -hex 16`)"
    )]
    WeakToken(usize),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("HTTP server failed: {0}")]
    Serve(std::io::Error),
}

/// A bound listener, so callers learn the real port before serving (`--listen :0`). Bound
/// before the async runtime starts, so the approval page knows its origin up front.
pub struct BoundHttp {
    listener: std::net::TcpListener,
    options: HttpOptions,
    /// Routes served beside `/mcp` without the bearer token (the approval page, which a
    /// browser opens and which checks its own one-time ids, CSRF token and Origin).
    beside: Option<axum::Router>,
}

impl BoundHttp {
    pub fn bind(options: HttpOptions) -> Result<BoundHttp, HttpError> {
        if options
            .token
            .as_deref()
            .is_some_and(|t| t.trim().is_empty())
        {
            return Err(HttpError::EmptyToken);
        }
        if !options.listen.ip().is_loopback() && options.token.is_none() {
            return Err(HttpError::TokenRequired(options.listen));
        }
        let bind_error = |source| HttpError::Bind {
            addr: options.listen,
            source,
        };
        let listener = std::net::TcpListener::bind(options.listen).map_err(bind_error)?;
        listener.set_nonblocking(true).map_err(bind_error)?;
        Ok(BoundHttp {
            listener,
            options,
            beside: None,
        })
    }

    /// Whether only this machine can reach the listener.
    pub fn is_loopback(&self) -> bool {
        self.options.listen.ip().is_loopback()
    }

    /// Serve `routes` beside `/mcp`, outside the bearer-token and Origin guard.
    pub fn with_routes(mut self, routes: axum::Router) -> BoundHttp {
        self.beside = Some(routes);
        self
    }

    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.listener.local_addr().ok()
    }

    pub async fn serve(
        self,
        server: McpServer,
        shutdown: CancellationToken,
    ) -> Result<(), HttpError> {
        let o = self.options;
        let mut config = StreamableHttpServerConfig::default()
            .with_max_request_body_bytes(o.max_body_bytes)
            .with_cancellation_token(shutdown.child_token());
        if !o.listen.ip().is_loopback() {
            // The bearer token defeats DNS rebinding; the Host list is then the operator's.
            config = if o.allowed_hosts.is_empty() {
                config.disable_allowed_hosts()
            } else {
                let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
                hosts.extend(o.allowed_hosts.iter().cloned());
                config.with_allowed_hosts(hosts)
            };
        }
        let sessions = SessionTable::new(o.sessions);
        let held = server.held_results();
        let service =
            StreamableHttpService::new(move || Ok(server.clone()), sessions.manager(), config);
        let guard = Arc::new(Guard {
            token: o.token,
            max_body_bytes: o.max_body_bytes,
            sessions,
        });
        let mut app = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn_with_state(guard, check_request))
            // Outermost, so the guard's own passes over the frames see rmcp's short ones.
            .layer(axum::middleware::map_response(move |response: Response| {
                let held = held.clone();
                async move { with_held_results(response, held) }
            }));
        if let Some(routes) = self.beside {
            app = app.merge(routes);
        }
        let listener =
            tokio::net::TcpListener::from_std(self.listener).map_err(HttpError::Serve)?;
        serve_connections(listener, app, shutdown).await;
        Ok(())
    }
}

/// A client must finish its request head within this time, or its connection is closed:
/// connections that stall mid-head (slowloris) would otherwise pile up until the process
/// runs out of file descriptors and nobody is served (`tests/mcp/http_load.rs`).
pub const HEADER_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// A client must send its whole request body within this time after the head, or it is
/// answered 408 and its connection closed: hyper has no body timeout, and stalled bodies
/// would hold descriptors just as stalled heads would.
pub const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// On shutdown, open connections get this long to finish.
const DRAIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The accept loop: hyper with a timer (so the head timeout applies — `axum::serve` gives
/// hyper none), TCP_NODELAY, and graceful shutdown.
pub(crate) async fn serve_connections(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    shutdown: CancellationToken,
) {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    loop {
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => tcp,
                Err(e) => {
                    // Out of descriptors or an aborted handshake: back off briefly.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = shutdown.cancelled() => break,
        };
        // Without TCP_NODELAY each SSE answer stalls ~40 ms on delayed ACKs.
        let _ = tcp.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let conn = builder
            .serve_connection_with_upgrades(TokioIo::new(tcp), service)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN_TIMEOUT) => {}
    }
}

struct Guard {
    token: Option<String>,
    max_body_bytes: usize,
    sessions: Arc<SessionTable>,
}

async fn check_request(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    if let Some(origin) = request.headers().get(header::ORIGIN)
        && !origin_allowed(origin)
    {
        return (StatusCode::FORBIDDEN, "Forbidden: Origin is not allowed").into_response();
    }
    if let Some(token) = &guard.token
        && !bearer_matches(request.headers(), token)
    {
        return unauthorized();
    }
    // Read the body here, under a deadline and the size limit, so rmcp gets it whole. An
    // MCP message is one JSON-RPC body of at most `max_body_bytes`, so nothing streams.
    let (parts, body) = request.into_parts();
    let read = axum::body::to_bytes(body, guard.max_body_bytes);
    let bytes = match tokio::time::timeout(BODY_READ_TIMEOUT, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) if over_limit(&e) => {
            return (StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large").into_response();
        }
        // Broken framing, or a client that broke off mid-body (which never sees this).
        Ok(Err(_)) => {
            return (
                StatusCode::BAD_REQUEST,
                "Bad Request: the body could not be read",
            )
                .into_response();
        }
        Err(_) => {
            let mut r = (
                StatusCode::REQUEST_TIMEOUT,
                "Request Timeout: the body was not sent in time",
            )
                .into_response();
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return r;
        }
    };
    // The one parse of the body here: what the JSON-RPC rules, the session cap and the
    // activity record need (rmcp parses it again, whole).
    let peek = serde_json::from_slice::<Peek>(&bytes);
    if parts.method == axum::http::Method::POST
        && let Some(refusal) = malformed(&parts.headers, &bytes, &peek)
    {
        return refusal;
    }
    if parts.method == axum::http::Method::DELETE
        && let Some(id) = parts
            .headers
            .get(HEADER_SESSION_ID)
            .and_then(|v| v.to_str().ok())
        && !guard.sessions.is_live(id).await
    {
        // Ended already (a second DELETE, or timed out): the session is not found.
        return (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response();
    }
    let activity = activity_of(&parts.method, peek.as_ref().ok());
    let session = parts
        .headers
        .get(HEADER_SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(|id| guard.sessions.touch(id, activity));
    let method = parts.method.clone();
    match session {
        // A session the table does not know: rmcp answers 404.
        Some(None) => next.run(Request::from_parts(parts, bytes.into())).await,
        Some(Some(id)) => {
            let response = next.run(Request::from_parts(parts, bytes.into())).await;
            if method == axum::http::Method::DELETE && response.status().is_success() {
                guard.sessions.forget(&id);
                response
            } else if is_event_stream(&response) {
                hold_while_streaming(response, guard.sessions.hold(id, activity))
            } else {
                response
            }
        }
        // Without a usable session id rmcp opens a session for an `initialize` (the same
        // test as rmcp's: a header that is not visible ASCII counts as none).
        None if method == axum::http::Method::POST && may_open_session(peek.as_ref().ok()) => {
            let ticket = match guard.sessions.admit().await {
                Ok(ticket) => ticket,
                Err(refusal) => {
                    let id = peek.ok().and_then(|p| p.id);
                    return too_many_sessions(id, refusal);
                }
            };
            let response = next.run(Request::from_parts(parts, bytes.into())).await;
            if let Some(id) = response
                .headers()
                .get(HEADER_SESSION_ID)
                .and_then(|v| v.to_str().ok())
            {
                ticket.register(id.into());
            }
            response
        }
        None if method == axum::http::Method::POST => {
            without_removed_fields(next.run(Request::from_parts(parts, bytes.into())).await)
        }
        None => next.run(Request::from_parts(parts, bytes.into())).await,
    }
}

/// rmcp's answer with the big results it carries as markers written in
/// ([`crate::mcp::held_results`]).
fn with_held_results(response: Response, held: Arc<HeldResults>) -> Response {
    let (parts, body) = response.into_parts();
    Response::from_parts(parts, axum::body::Body::new(SplicedBody::new(body, held)))
}

/// A 2026-07-28 answer without the fields that revision removed (`wire_fixes`): each SSE
/// frame of it is looked at as it passes, none is held back.
fn without_removed_fields(response: Response) -> Response {
    use http_body_util::BodyExt;
    if !is_event_stream(&response) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let body = body.map_frame(|frame| {
        frame.map_data(
            |data| match crate::mcp::wire_fixes::frame_without_removed_fields(&data) {
                Some(fixed) => axum::body::Bytes::from(fixed),
                None => data,
            },
        )
    });
    Response::from_parts(parts, axum::body::Body::new(body))
}

/// The JSON-RPC answer to a JSON body that is not one JSON-RPC message: unparsable JSON is
/// a Parse error (-32700), a batch or any non-object an Invalid Request (-32600), each with
/// `id: null` and status 400. A method this server does not offer at all (resource
/// subscriptions) is Method not found (-32601, 404) before any header rule of its own.
/// Other content types are rmcp's to refuse (415).
fn malformed(
    headers: &HeaderMap,
    body: &[u8],
    peek: &Result<Peek, serde_json::Error>,
) -> Option<Response> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
        });
    if !json {
        return None;
    }
    let invalid = |why: &str| {
        Some(jsonrpc_error(
            StatusCode::BAD_REQUEST,
            serde_json::Value::Null,
            -32600,
            why,
        ))
    };
    let peek = match peek {
        Err(e) if e.classify() != serde_json::error::Category::Data => {
            return Some(jsonrpc_error(
                StatusCode::BAD_REQUEST,
                serde_json::Value::Null,
                -32700,
                "Parse error",
            ));
        }
        // Well-formed JSON: one object, or a batch (which serde would also read as a
        // struct, field by field), or not an object at all.
        peek => match body.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => peek.as_ref().ok()?,
            Some(b'[') => return invalid("Invalid Request: JSON-RPC batches are not supported"),
            _ => return invalid("Invalid Request: a JSON-RPC message is an object"),
        },
    };
    let unsupported = matches!(
        peek.method.as_deref(),
        Some("resources/subscribe" | "resources/unsubscribe")
    );
    (unsupported && !headers.contains_key(HEADER_SESSION_ID)).then(|| {
        jsonrpc_error(
            StatusCode::NOT_FOUND,
            peek.id.clone().unwrap_or(serde_json::Value::Null),
            -32601,
            "Method not found: this server offers no resource subscriptions",
        )
    })
}

fn jsonrpc_error(status: StatusCode, id: serde_json::Value, code: i32, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    });
    let mut r = (status, body.to_string()).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// The fields of a JSON-RPC message the session cap looks at.
#[derive(serde::Deserialize)]
struct Peek {
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    method: Option<String>,
}

/// Whether a request does work for its session: anything but a GET stream, `ping` and
/// `notifications/initialized` (a body this parse cannot read counts as work: it then
/// weighs for the client, never against it).
fn activity_of(method: &axum::http::Method, peek: Option<&Peek>) -> Activity {
    if method == axum::http::Method::GET {
        return Activity::KeepAlive;
    }
    match peek.and_then(|p| p.method.as_deref()) {
        Some("ping" | "notifications/initialized") => Activity::KeepAlive,
        _ => Activity::Work,
    }
}

/// Whether rmcp could open a session for this body: an `initialize`, or anything this
/// parse reads differently from rmcp's (it then counts against the cap, never past it).
fn may_open_session(peek: Option<&Peek>) -> bool {
    peek.is_none_or(|p| p.method.as_deref().is_none_or(|m| m == "initialize"))
}

fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// The session stays in use (not evictable) until the answer's body is done or dropped.
fn hold_while_streaming(response: Response, in_use: crate::mcp::http_sessions::InUse) -> Response {
    use http_body_util::BodyExt;
    let (parts, body) = response.into_parts();
    let body = body.map_frame(move |frame| {
        let _held = &in_use;
        frame
    });
    Response::from_parts(parts, axum::body::Body::new(body))
}

/// 503 with a JSON-RPC error answering the refused `initialize`, and when to retry.
fn too_many_sessions(id: Option<serde_json::Value>, refusal: Refusal) -> Response {
    let id = id.unwrap_or(serde_json::Value::Null);
    let retry_after = refusal.retry_after_secs();
    let message = format!(
        "too many MCP sessions: this server keeps at most {} at once and none has been idle long enough to give way; end one (HTTP DELETE with its Mcp-Session-Id) or retry in {retry_after} s",
        refusal.max_sessions
    );
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": TOO_MANY_SESSIONS,
            "message": message,
            "data": {
                "maxSessions": refusal.max_sessions,
                "retryAfterSeconds": retry_after,
            },
        },
    });
    let mut r = (StatusCode::SERVICE_UNAVAILABLE, error.to_string()).into_response();
    let headers = r.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
    r
}

/// JSON-RPC's implementation-defined server error range (-32000 to -32099).
pub const TOO_MANY_SESSIONS: i32 = -32000;

/// Whether a body-read error is the size limit (`to_bytes` wraps http-body-util's error).
fn over_limit(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = err.source();
    }
    false
}

/// Loopback origins on any port; anything else (including `null`) is refused.
pub fn origin_allowed(origin: &HeaderValue) -> bool {
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = if let Some(v6) = rest.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, tail)) if tail.is_empty() || is_port(tail) => return h == "::1",
            _ => return false,
        }
    } else {
        match rest.split_once(':') {
            Some((h, port)) if is_port(&format!(":{port}")) => h,
            Some(_) => return false,
            None => rest,
        }
    };
    matches!(
        host.to_ascii_lowercase().as_str(),
        "localhost" | "127.0.0.1"
    )
}

fn is_port(tail: &str) -> bool {
    tail.strip_prefix(':')
        .is_some_and(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// 401 with the challenge RFC 6750 asks for.
pub(crate) fn unauthorized() -> Response {
    let mut r = (
        StatusCode::UNAUTHORIZED,
        "Unauthorized: a valid bearer token is required",
    )
        .into_response();
    r.headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    r
}

pub(crate) fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    let Some(given) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    constant_time_eq(given.trim().as_bytes(), token.trim().as_bytes())
}

/// Compare without an early exit, so timing does not reveal a matching prefix.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= x ^ y;
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8765",
            "http://[::1]:9",
            "http://[::1]",
            "http://LOCALHOST:1",
        ] {
            assert!(origin_allowed(&HeaderValue::from_static(ok)), "{ok}");
        }
        for bad in [
            "null",
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io:80",
            "http://[::2]:80",
            "file://localhost",
            "http://localhost:abc",
            "http://localhost:80/x",
        ] {
            assert!(!origin_allowed(&HeaderValue::from_static(bad)), "{bad}");
        }
    }

    #[test]
    fn token_compare() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert!(!constant_time_eq(b"", b"a"));
    }
}

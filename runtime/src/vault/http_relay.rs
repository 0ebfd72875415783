//! `etrade serve --transport http` on the person's side of a vault: the person's listener (their
//! address, their bearer token) in front of the `etrade serve` the vault runs for them on a
//! loopback port of its own.
//!
//! Each request is passed through as it is, headers and body streamed both ways, so the
//! vault's server makes every MCP and HTTP check itself (Origin, Host, sessions, body size,
//! JSON-RPC): the relay only checks the person's token and swaps it for the vault's, which
//! only this relay was told. Whoever reaches the vault's port without it gets 401; whoever
//! reaches it with it is one more client of the vault, which any local program is anyway.

use crate::mcp::http::{bearer_matches, serve_connections, unauthorized};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Where the vault's server for this relay listens, and the token it asks for.
#[derive(Clone)]
pub struct Upstream {
    /// `http://127.0.0.1:PORT`
    pub origin: String,
    pub token: String,
}

struct Relay {
    upstream: Upstream,
    /// The person's own bearer token, when they gave one.
    token: Option<String>,
    client: reqwest::Client,
}

/// Hop-by-hop headers (RFC 9110 §7.6.1) end at each hop; `authorization` is the person's,
/// replaced by the vault's.
const NOT_FORWARDED: [HeaderName; 6] = [
    header::CONNECTION,
    header::TRANSFER_ENCODING,
    header::TE,
    header::UPGRADE,
    header::PROXY_AUTHORIZATION,
    header::AUTHORIZATION,
];

/// Serves `listener` until `shutdown`, forwarding `/mcp` to `upstream`.
pub async fn serve(
    listener: tokio::net::TcpListener,
    upstream: Upstream,
    token: Option<String>,
    shutdown: CancellationToken,
) -> Result<(), reqwest::Error> {
    let client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let relay = Arc::new(Relay {
        upstream,
        token,
        client,
    });
    let app = axum::Router::new()
        .route("/mcp", axum::routing::any(forward))
        .with_state(relay);
    serve_connections(listener, app, shutdown).await;
    Ok(())
}

async fn forward(State(relay): State<Arc<Relay>>, request: Request) -> Response {
    if let Some(token) = &relay.token
        && !bearer_matches(request.headers(), token)
    {
        return unauthorized();
    }
    let (parts, body) = request.into_parts();
    let path = parts
        .uri
        .path_and_query()
        .map_or("/mcp", |p| p.as_str())
        .to_string();
    let mut outgoing = relay
        .client
        .request(parts.method, format!("{}{path}", relay.upstream.origin))
        .bearer_auth(&relay.upstream.token)
        .body(reqwest::Body::wrap_stream(body.into_data_stream()));
    for (name, value) in &parts.headers {
        if !NOT_FORWARDED.contains(name) {
            outgoing = outgoing.header(name, value);
        }
    }
    let answer = match outgoing.send().await {
        Ok(answer) => answer,
        Err(e) => {
            tracing::warn!(error = %e, "the vault's server did not answer");
            return (
                StatusCode::BAD_GATEWAY,
                "Bad Gateway: the trading vault did not answer",
            )
                .into_response();
        }
    };
    let mut response = Response::builder().status(answer.status());
    if let Some(headers) = response.headers_mut() {
        for (name, value) in answer.headers() {
            if !NOT_FORWARDED.contains(name) && name != header::CONTENT_LENGTH {
                headers.append(name.clone(), value.clone());
            }
        }
    }
    response
        .body(Body::from_stream(answer.bytes_stream()))
        .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
}

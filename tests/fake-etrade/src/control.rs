//! The `/__fake/...` control API (JSON), for driving a fake in another process. Control
//! requests are never recorded and never hit by faults. The endpoint table is in the crate
//! docs.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use jiff::Timestamp;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::faults::{EndpointPattern, Fault};
use crate::responses::{json as json_response, ok_json};
use crate::state::Shared;

type S = State<Arc<Shared>>;

fn bad_request(msg: impl std::fmt::Display) -> Response {
    json_response(StatusCode::BAD_REQUEST, &json!({"error": msg.to_string()}))
}

fn not_found(msg: &str) -> Response {
    json_response(StatusCode::NOT_FOUND, &json!({"error": msg}))
}

fn parse<T: DeserializeOwned>(body: &Bytes) -> Result<T, Response> {
    serde_json::from_slice(body).map_err(bad_request)
}

fn now(s: &Shared) -> Response {
    ok_json(&json!({"now": s.now().to_string()}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Advance {
    seconds: Option<u64>,
    ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetTime {
    time: Timestamp,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InjectFault {
    pattern: EndpointPattern,
    fault: Fault,
    times: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServeAnswer {
    pattern: EndpointPattern,
    body: String,
    times: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConsumerRejected {
    consumer_key: String,
    rejected: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OrderStatus {
    order_id: i64,
    status: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IssueToken {
    consumer_key: String,
}

pub(crate) fn router(s: Arc<Shared>) -> Router {
    Router::new()
        .route("/__fake/clock", get(|State(s): S| async move { now(&s) }))
        .route(
            "/__fake/clock/advance",
            post(|State(s): S, body: Bytes| async move {
                match parse::<Advance>(&body) {
                    Ok(a) => {
                        let d = Duration::from_secs(a.seconds.unwrap_or(0))
                            + Duration::from_millis(a.ms.unwrap_or(0));
                        s.clock.advance(d);
                        now(&s)
                    }
                    Err(r) => r,
                }
            }),
        )
        .route(
            "/__fake/clock/set",
            post(|State(s): S, body: Bytes| async move {
                match parse::<SetTime>(&body) {
                    Ok(t) => {
                        s.clock.set(t.time);
                        now(&s)
                    }
                    Err(r) => r,
                }
            }),
        )
        .route(
            "/__fake/faults",
            get(|State(s): S| async move { ok_json(&json!(s.faults())) })
                .post(|State(s): S, body: Bytes| async move {
                    match parse::<InjectFault>(&body) {
                        Ok(f) => {
                            let id = s.inject_fault(f.pattern, f.fault, f.times);
                            ok_json(&json!({ "id": id }))
                        }
                        Err(r) => r,
                    }
                })
                .delete(|State(s): S| async move {
                    s.clear_faults();
                    ok_json(&json!({}))
                }),
        )
        .route(
            "/__fake/answers",
            post(|State(s): S, body: Bytes| async move {
                match parse::<ServeAnswer>(&body) {
                    Ok(a) => {
                        s.lock().canned.add(a.pattern, a.body, a.times);
                        ok_json(&json!({}))
                    }
                    Err(r) => r,
                }
            })
            .delete(|State(s): S| async move {
                s.lock().canned.clear();
                ok_json(&json!({}))
            }),
        )
        .route(
            "/__fake/requests",
            get(|State(s): S| async move { ok_json(&json!(s.requests())) }).delete(
                |State(s): S| async move {
                    s.clear_requests();
                    ok_json(&json!({}))
                },
            ),
        )
        .route(
            "/__fake/count",
            get(
                |State(s): S, Query(q): Query<HashMap<String, String>>| async move {
                    let method = q.get("method").map(String::as_str).unwrap_or("*");
                    let prefix = q.get("prefix").map(String::as_str).unwrap_or("/");
                    ok_json(&json!({ "count": s.count(method, prefix) }))
                },
            ),
        )
        .route(
            "/__fake/verifier",
            get(
                |State(s): S, Query(q): Query<HashMap<String, String>>| async move {
                    match q.get("token").and_then(|t| s.verifier_for(t)) {
                        Some(v) => ok_json(&json!({ "verifier": v })),
                        None => not_found("unknown request token"),
                    }
                },
            ),
        )
        .route(
            "/__fake/token_state",
            get(
                |State(s): S, Query(q): Query<HashMap<String, String>>| async move {
                    match q.get("token").and_then(|t| s.token_state(t)) {
                        Some(st) => ok_json(&json!({ "state": st })),
                        None => not_found("unknown access token"),
                    }
                },
            ),
        )
        .route(
            "/__fake/access_token",
            post(|State(s): S, body: Bytes| async move {
                match parse::<IssueToken>(&body) {
                    Ok(t) if s.lock().consumers.contains_key(&t.consumer_key) => {
                        let pair = s.issue_access_token(&t.consumer_key);
                        ok_json(&json!({
                            "oauth_token": pair.token,
                            "oauth_token_secret": pair.secret,
                        }))
                    }
                    Ok(_) => not_found("unknown consumer key"),
                    Err(r) => r,
                }
            }),
        )
        .route(
            "/__fake/consumer_rejected",
            post(|State(s): S, body: Bytes| async move {
                match parse::<ConsumerRejected>(&body) {
                    Ok(c) if s.set_consumer_rejected(&c.consumer_key, c.rejected) => {
                        ok_json(&json!({}))
                    }
                    Ok(_) => not_found("unknown consumer key"),
                    Err(r) => r,
                }
            }),
        )
        .route(
            "/__fake/orders",
            get(|State(s): S| async move { ok_json(&json!(s.orders())) }),
        )
        .route(
            "/__fake/order_status",
            post(|State(s): S, body: Bytes| async move {
                match parse::<OrderStatus>(&body) {
                    Ok(o) if s.set_order_status(o.order_id, &o.status) => ok_json(&json!({})),
                    Ok(_) => not_found("unknown order or status"),
                    Err(r) => r,
                }
            }),
        )
        .route(
            "/__fake/alerts",
            get(|State(s): S| async move {
                ok_json(&json!({"alert_ids": s.alert_ids(false), "deleted": s.alert_ids(true)}))
            }),
        )
        .fallback(|| async { not_found("unknown control endpoint") })
        .with_state(s)
}

//! Alerts: list, details and delete, answered by the emulation's alert inbox
//! ([`runtime::emulation::alerts`]).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use runtime::emulation::alerts::{AlertQuery, AlertRefusal, alert_id};

use crate::responses::{api_error, invalid_param, ok_json};
use crate::state::Shared;

type Params = Query<HashMap<String, String>>;

fn refusal(r: &AlertRefusal) -> Response {
    let status = StatusCode::from_u16(r.status()).unwrap_or(StatusCode::BAD_REQUEST);
    api_error(status, r.code(), &r.to_string())
}

/// `GET /v1/user/alerts`
pub(crate) async fn list(State(s): State<Arc<Shared>>, Query(q): Params) -> Response {
    let answer = AlertQuery::parse(|name| q.get(name).map(String::as_str))
        .and_then(|query| s.lock().alerts.list(&query));
    match answer {
        Ok(body) => ok_json(&body),
        Err(r) => refusal(&r),
    }
}

/// `GET /v1/user/alerts/{id}?htmlTags=`
pub(crate) async fn details(
    State(s): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(q): Params,
) -> Response {
    let id = match alert_id(&id) {
        Ok(id) => id,
        Err(r) => return refusal(&r),
    };
    let html = match q.get("htmlTags").map(|v| v.to_ascii_lowercase()) {
        None => false,
        Some(v) if v == "true" => true,
        Some(v) if v == "false" => false,
        Some(_) => return invalid_param("htmlTags"),
    };
    match s.lock().alerts.details(id, html, &s.base_url) {
        Ok(body) => ok_json(&body),
        Err(r) => refusal(&r),
    }
}

/// `DELETE /v1/user/alerts/{alertIdList}` (comma-separated ids): every id must be a positive
/// integer (else 400 code 499). Ids that exist and are not deleted yet are deleted; the
/// others are reported in `failedAlerts` with `result: ERROR` (HTTP 200).
pub(crate) async fn delete(State(s): State<Arc<Shared>>, Path(list): Path<String>) -> Response {
    let mut ids: Vec<i64> = Vec::new();
    for part in list.split(',') {
        match alert_id(part) {
            Ok(id) if !ids.contains(&id) => ids.push(id),
            Ok(_) => {}
            Err(r) => return refusal(&r),
        }
    }
    let now_s = s.now().as_second();
    let body = s.lock().alerts.delete(&ids, now_s);
    ok_json(&body)
}

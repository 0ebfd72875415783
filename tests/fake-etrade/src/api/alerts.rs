//! Alerts: list (filters, `count` ≤ 300, 404 code 53 when nothing matches), details and
//! delete. A deleted alert is listed only with `status=DELETED`; its details are 404 code 53.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use crate::fixtures_market::{ALERTS, AlertFx};
use crate::responses::{api_error, invalid_param, ok_json};
use crate::state::Shared;
use runtime::emulation::codes;

type Params = Query<HashMap<String, String>>;

const MAX_COUNT: usize = 300;

fn no_alerts() -> Response {
    api_error(
        StatusCode::NOT_FOUND,
        53,
        "There are currently no alerts in your inbox.",
    )
}

/// `GET /v1/user/alerts`
pub(crate) async fn list(State(s): State<Arc<Shared>>, Query(q): Params) -> Response {
    let deleted = s.lock().deleted_alerts.clone();
    let status_of = |a: &AlertFx| {
        if deleted.contains_key(&a.id) {
            "DELETED"
        } else {
            a.status
        }
    };
    let count = match q.get("count") {
        None => 25,
        Some(v) => match v.parse::<usize>() {
            Ok(0) | Err(_) => return invalid_param("count"),
            Ok(n) if n > MAX_COUNT => {
                return api_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    25,
                    "Service unrecoverable error.",
                );
            }
            Ok(n) => n,
        },
    };
    let category = q.get("category");
    if category.is_some_and(|c| !["STOCK", "ACCOUNT"].contains(&c.as_str())) {
        return invalid_param("category");
    }
    let status = q.get("status");
    if status.is_some_and(|c| !["READ", "UNREAD", "DELETED"].contains(&c.as_str())) {
        return invalid_param("status");
    }
    let ascending = match q.get("direction").map(String::as_str) {
        None | Some("DESC") => false,
        Some("ASC") => true,
        Some(_) => return invalid_param("direction"),
    };
    let search = q.get("search").map(|v| v.to_ascii_lowercase());
    let mut hits: Vec<&AlertFx> = ALERTS
        .iter()
        .filter(|a| category.is_none_or(|c| a.category == c))
        .filter(|a| match status {
            None => status_of(a) != "DELETED",
            Some(st) => status_of(a) == st,
        })
        .filter(|a| {
            search
                .as_ref()
                .is_none_or(|w| a.subject.to_ascii_lowercase().contains(w))
        })
        .collect();
    if hits.is_empty() {
        return no_alerts();
    }
    hits.sort_by_key(|a| a.create_time);
    if !ascending {
        hits.reverse();
    }
    let total = hits.len();
    let page: Vec<Value> = hits
        .iter()
        .take(count)
        .map(|a| json!({"id": a.id, "createTime": a.create_time, "subject": a.subject, "status": status_of(a)}))
        .collect();
    ok_json(&json!({"AlertsResponse": {"totalAlerts": total, "Alert": page}}))
}

/// `GET /v1/user/alerts/{id}?htmlTags=`
pub(crate) async fn details(
    State(s): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(q): Params,
) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return api_error(
            StatusCode::BAD_REQUEST,
            499,
            "Alert Id should be greater than 0.",
        );
    };
    if id <= 0 {
        return api_error(
            StatusCode::BAD_REQUEST,
            499,
            "Alert Id should be greater than 0.",
        );
    }
    let html = match q.get("htmlTags").map(|v| v.to_ascii_lowercase()) {
        None => false,
        Some(v) if v == "true" => true,
        Some(v) if v == "false" => false,
        Some(_) => return invalid_param("htmlTags"),
    };
    let deleted = s.lock().deleted_alerts.clone();
    let visible: Vec<&AlertFx> = ALERTS
        .iter()
        .filter(|a| !deleted.contains_key(&a.id))
        .collect();
    let Some(pos) = visible.iter().position(|a| a.id == id) else {
        return no_alerts();
    };
    let a = visible[pos];
    let link = |i: Option<&&AlertFx>| {
        i.map(|x| format!("{}/v1/user/alerts/{}", s.base_url, x.id))
            .unwrap_or_default()
    };
    let text = if html {
        format!("<html><body><p>{}</p></body></html>", a.text)
    } else {
        a.text.to_string()
    };
    ok_json(
        &json!({"AlertDetailsResponse": {"id": a.id, "createTime": a.create_time,
        "subject": a.subject, "msgText": text,
        "readTime": if a.status == "READ" { a.create_time + 600 } else { 0 },
        "deleteTime": 0, "symbol": a.symbol,
        "next": link(visible.get(pos + 1)),
        "prev": link(pos.checked_sub(1).and_then(|p| visible.get(p)))}}),
    )
}

fn bad_alert_id() -> Response {
    api_error(
        StatusCode::BAD_REQUEST,
        codes::BAD_ALERT_ID,
        "Alert Id should be greater than 0.",
    )
}

/// `DELETE /v1/user/alerts/{alertIdList}` (comma-separated ids): every id must be a positive
/// integer (else 400 code 499). Ids that exist and are not deleted yet are deleted; the
/// others are reported in `failedAlerts` with `result: ERROR` (HTTP 200).
pub(crate) async fn delete(State(s): State<Arc<Shared>>, Path(list): Path<String>) -> Response {
    let mut ids: Vec<i64> = Vec::new();
    for part in list.split(',') {
        match part.trim().parse::<i64>() {
            Ok(id) if id > 0 => {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            _ => return bad_alert_id(),
        }
    }
    let now_s = s.now().as_second();
    let mut failed = Vec::new();
    {
        let mut inner = s.lock();
        for id in ids {
            if ALERTS.iter().any(|a| a.id == id) && !inner.deleted_alerts.contains_key(&id) {
                inner.deleted_alerts.insert(id, now_s);
            } else {
                failed.push(id);
            }
        }
    }
    if failed.is_empty() {
        ok_json(&json!({"AlertsResponse": {"result": "SUCCESS"}}))
    } else {
        ok_json(
            &json!({"AlertsResponse": {"result": "ERROR", "failedAlerts": {"alertId": failed}}}),
        )
    }
}

//! `PUT /v1/accounts/{key}/orders/cancel` with `{"CancelOrderRequest":{"orderId":N}}`: an
//! OPEN (or partially filled) order becomes CANCELLED at once (E*TRADE may pass through
//! CANCEL_REQUESTED first; the fake does not). Any other status → 400 code 5001; an order
//! id the account does not have → 400 (invented code).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use crate::api::order_request::{invalid, message};
use crate::api::orders::account;
use crate::codes;
use crate::responses::{api_error, ok_json};
use crate::state::Shared;

fn order_id(body: &[u8]) -> Result<i64, Response> {
    let v: Value = serde_json::from_slice(body).map_err(|_| invalid("the body is not JSON"))?;
    let Some(req) = v.get("CancelOrderRequest").and_then(Value::as_object) else {
        return Err(invalid("the body has no CancelOrderRequest object"));
    };
    match req.get("orderId") {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(v)) => v.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| invalid("orderId is missing or not an integer"))
}

/// `PUT /v1/accounts/{key}/orders/cancel`
pub(crate) async fn cancel(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    body: Bytes,
) -> Response {
    let acct = match account(&s, &key) {
        Ok(a) => a,
        Err(r) => return r,
    };
    let id = match order_id(&body) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let now_ms = s.now().as_millisecond();
    {
        let mut inner = s.lock();
        let Some(o) = inner.book().get_mut(id).filter(|o| o.account_id == acct.id) else {
            return api_error(
                StatusCode::BAD_REQUEST,
                codes::ORDER_NOT_FOUND,
                codes::ORDER_NOT_FOUND_MESSAGE,
            );
        };
        if !matches!(o.status.as_str(), "OPEN" | "INDIVIDUAL_FILLS") {
            return api_error(
                StatusCode::BAD_REQUEST,
                codes::NOT_CANCELLABLE,
                codes::NOT_CANCELLABLE_MESSAGE,
            );
        }
        o.status = "CANCELLED".into();
        o.cancel_time = Some(now_ms);
    }
    ok_json(
        &json!({"CancelOrderResponse": {"accountId": acct.id, "orderId": id,
        "cancelTime": now_ms,
        "Messages": {"Message": [message(codes::CANCEL_REQUESTED, codes::CANCEL_REQUESTED_MESSAGE)]}}}),
    )
}

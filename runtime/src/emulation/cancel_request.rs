//! `CancelOrderRequest` bodies: `{"CancelOrderRequest":{"orderId":N}}`.

use serde_json::Value;

use super::request_error::RequestError;

/// The `orderId` to cancel (a number, or a string holding one).
pub fn cancel_order_id(body: &Value) -> Result<i64, RequestError> {
    let Some(req) = body.get("CancelOrderRequest").and_then(Value::as_object) else {
        return Err(RequestError::invalid(
            "the body has no CancelOrderRequest object",
        ));
    };
    match req.get("orderId") {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(v)) => v.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| RequestError::invalid("orderId is missing or not an integer"))
}

//! Order request bodies (`PreviewOrderRequest`, `PlaceOrderRequest`) as the fake keeps
//! them: checked by the shared emulation ([`runtime::emulation::order_request`]), plus the
//! fake's own canonical form (what place compares with the stored preview), the estimate
//! and the echo of the order in preview/place answers.
//!
//! Canonical form: `{"orderType", "clientOrderId", "Order"}` with nulls dropped, every number
//! (and every numeric string in a price, quantity or expiry member) as a float, empty numeric
//! strings dropped, `Order`/`Instrument` objects wrapped as one-element arrays and `allOrNone`
//! defaulted to false. Members the fake does not know are kept, so they must match too.

use axum::http::StatusCode;
use axum::response::Response;
use runtime::emulation::fixed_market::Estimate;
use runtime::emulation::order_echo::OrderEcho;
use runtime::emulation::order_request::{self, ParsedOrder, json_body};
use runtime::emulation::{NumberStyle, OrderRequest, OrderRoot, OrderScope, RequestError};
use serde_json::{Map, Value, json};

use crate::responses::api_error;
use crate::state::Shared;

/// Members whose values are numbers (a numeric string is accepted).
const NUMERIC_KEYS: &[&str] = &[
    "limitPrice",
    "stopPrice",
    "stopLimitPrice",
    "quantity",
    "strikePrice",
    "expiryYear",
    "expiryMonth",
    "expiryDay",
    "reserveQuantity",
    "offsetValue",
    "trailPrice",
    "initialStopPrice",
    "investmentAmount",
];
/// A checked order request.
#[derive(Debug, Clone)]
pub(crate) struct CheckedOrder {
    pub request: OrderRequest,
    /// How each leg's security is described: its quote's description, else its symbol.
    pub descriptions: Vec<String>,
    /// `{"orderType", "clientOrderId", "Order"}`, canonical (see the module docs).
    pub canonical: Value,
    /// The request's `PreviewIds` member as sent (place only).
    pub preview_ids: Option<Value>,
}

/// E*TRADE's 400 answer to a refused body.
pub(crate) fn refusal(e: &RequestError) -> Response {
    api_error(StatusCode::BAD_REQUEST, e.code(), &e.to_string())
}

/// Checks a request body whose root member is `root`.
pub(crate) fn parse(s: &Shared, body: &[u8], root: OrderRoot) -> Result<CheckedOrder, Response> {
    let v = json_body(body).map_err(|e| refusal(&e))?;
    let ParsedOrder {
        request,
        preview_ids,
    } = order_request::parse(&v, root, OrderScope::Etrade).map_err(|e| refusal(&e))?;
    Ok(CheckedOrder {
        canonical: canonical(&v, root, &request).map_err(|e| refusal(&e))?,
        descriptions: request
            .legs
            .iter()
            .map(|l| s.market.describe(&l.instrument, s.now()))
            .collect(),
        request,
        preview_ids,
    })
}

/// The canonical form of a body the emulation accepted as `r` (see the module docs); a
/// member named like a number anywhere in the order must be one.
fn canonical(body: &Value, root: OrderRoot, r: &OrderRequest) -> Result<Value, RequestError> {
    let raw_order = body.get(root.as_str()).and_then(|req| req.get("Order"));
    let wrapped = normalize(&json!({ "Order": raw_order })).map_err(RequestError::Invalid)?;
    let mut orders = match wrapped.get("Order") {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    if let Some(order) = orders.get_mut(0).and_then(Value::as_object_mut) {
        order.insert("allOrNone".into(), json!(r.all_or_none));
    }
    Ok(
        json!({"orderType": r.order_type.as_str(), "clientOrderId": r.client_order_id,
        "Order": orders}),
    )
}

/// A number, a numeric string (`Some(None)` when empty) or not a number (`None`).
fn number(x: &Value) -> Option<Option<f64>> {
    match x {
        Value::Number(n) => n.as_f64().map(Some),
        Value::String(s) if s.trim().is_empty() => Some(None),
        Value::String(s) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Some),
        _ => None,
    }
}

fn normalize(v: &Value) -> Result<Value, String> {
    Ok(match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, x) in m {
                if x.is_null() {
                    continue;
                }
                if NUMERIC_KEYS.contains(&k.as_str()) {
                    match number(x) {
                        Some(Some(n)) => {
                            out.insert(k.clone(), json!(n));
                        }
                        Some(None) => {}
                        None => return Err(format!("{k} is not a number")),
                    }
                } else if matches!(k.as_str(), "Order" | "Instrument") && x.is_object() {
                    out.insert(k.clone(), Value::Array(vec![normalize(x)?]));
                } else {
                    out.insert(k.clone(), normalize(x)?);
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(normalize).collect::<Result<_, _>>()?),
        Value::Number(n) => n.as_f64().map_or(Value::Null, |f| json!(f)),
        other => other.clone(),
    })
}

/// The `Order[]` entry of a preview or place answer.
pub(crate) fn echo_order(r: &CheckedOrder, est: &Estimate, messages: &[Value]) -> Value {
    OrderEcho {
        numbers: NumberStyle::Float,
        descriptions: r.descriptions.clone(),
        estimated_commission: NumberStyle::Float.json(est.commission),
        estimated_total: NumberStyle::Float.json(est.total()),
        messages,
    }
    .json(&r.request)
}

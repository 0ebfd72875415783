//! The canonical form of an order request body: what a strict book stores with a preview
//! and compares with the place that names it, so that a place must repeat the previewed
//! body, members the emulation does not know included.
//!
//! Canonical form: `{"orderType", "clientOrderId", "Order"}` with nulls dropped, every number
//! (and every numeric string in a price, quantity or expiry member) as a float, empty numeric
//! strings dropped, `Order`/`Instrument` objects wrapped as one-element arrays and `allOrNone`
//! defaulted to false.

use serde_json::{Map, Value, json};

use super::order_request::{OrderRequest, OrderRoot};
use super::request_error::RequestError;

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
/// The canonical form of a body the emulation accepted as `r` (see the module docs); a
/// member named like a number anywhere in the order must be one.
pub fn canonical(body: &Value, root: OrderRoot, r: &OrderRequest) -> Result<Value, RequestError> {
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

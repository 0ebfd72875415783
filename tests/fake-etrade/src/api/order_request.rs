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
use runtime::emulation::json_number::to_f64;
use runtime::emulation::order_echo::OrderEcho;
use runtime::emulation::order_request::{self, ParsedOrder, json_body};
use runtime::emulation::{
    Instrument, LegRequest, NumberStyle, OrderRequest, OrderRoot, OrderScope, PriceType,
    QuantityType, RequestError,
};
use serde_json::{Map, Value, json};

use crate::api::market::{equity_bid_ask, option_bid_ask};
use crate::fixtures::round;
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
/// Price used for an estimate when the fake has no quote for a leg.
const DEFAULT_PRICE: f64 = 100.0;
/// Per-contract option commission in estimates.
const OPTION_COMMISSION: f64 = 0.65;

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
            .map(|l| {
                quote(s, &l.instrument)
                    .map_or_else(|| l.instrument.symbol().to_string(), |(_, _, d)| d)
            })
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

/// The bid, ask and description the fake quotes an instrument at.
fn quote(s: &Shared, i: &Instrument) -> Option<(f64, f64, String)> {
    match i {
        Instrument::Option {
            underlying,
            expiry,
            right,
            strike,
        } => option_bid_ask(
            s,
            underlying,
            (
                i64::from(expiry.year()),
                i64::from(expiry.month()),
                i64::from(expiry.day()),
            ),
            right.as_str(),
            to_f64(*strike),
        ),
        Instrument::Equity { .. } | Instrument::Fund { .. } => equity_bid_ask(s, i.symbol()),
    }
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

/// What an order is estimated at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Estimate {
    /// Order value, ≥ 0.
    pub value: f64,
    pub commission: f64,
    /// Money out (a debit) rather than in.
    pub debit: bool,
}

impl Estimate {
    /// E*TRADE's `estimatedTotalAmount`: positive for a debit, negative for a credit.
    pub fn total(&self) -> f64 {
        if self.debit {
            round(self.value + self.commission, 2)
        } else {
            round(-(self.value - self.commission), 2)
        }
    }
}

/// Quote price of one leg: ask for a buy, bid for a sell; a fixed default without a quote.
fn leg_price(s: &Shared, l: &LegRequest) -> f64 {
    quote(s, &l.instrument).map_or(
        DEFAULT_PRICE,
        |(bid, ask, _)| {
            if l.action.is_buy() { ask } else { bid }
        },
    )
}

pub(crate) fn estimate(s: &Shared, r: &OrderRequest) -> Estimate {
    let commission: f64 = r
        .legs
        .iter()
        .filter(|l| l.instrument.is_option())
        .map(|l| to_f64(l.quantity) * OPTION_COMMISSION)
        .sum();
    let leg_value = |l: &LegRequest, px: f64| {
        let quantity = to_f64(l.quantity);
        if l.quantity_type == QuantityType::Dollar {
            quantity
        } else {
            quantity * px * to_f64(l.instrument.multiplier())
        }
    };
    let limit_price = r.limit_price.map(to_f64);
    let (value, debit) = match r.legs.as_slice() {
        [l] => {
            let px = limit_price
                .or(r.stop_price.map(to_f64))
                .unwrap_or_else(|| leg_price(s, l));
            (leg_value(l, px), l.action.is_buy())
        }
        legs => match (limit_price, legs.first()) {
            (Some(net), Some(first)) => {
                (leg_value(first, net), r.price_type != PriceType::NetCredit)
            }
            _ => {
                let signed: f64 = legs
                    .iter()
                    .map(|l| {
                        let v = leg_value(l, leg_price(s, l));
                        if l.action.is_buy() { v } else { -v }
                    })
                    .sum();
                (signed.abs(), signed > 0.0)
            }
        },
    };
    Estimate {
        value: round(value, 2),
        commission: round(commission, 2),
        debit,
    }
}

/// The `Order[]` entry of a preview or place answer.
pub(crate) fn echo_order(r: &CheckedOrder, est: &Estimate, messages: &[Value]) -> Value {
    OrderEcho {
        numbers: NumberStyle::Float,
        descriptions: r.descriptions.clone(),
        estimated_commission: json!(est.commission),
        estimated_total: json!(est.total()),
        messages,
    }
    .json(&r.request)
}

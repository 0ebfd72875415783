//! Order request bodies (`PreviewOrderRequest`, `PlaceOrderRequest`): checking them, their
//! canonical form (what place compares with the stored preview), the estimate and the echo
//! of the order in preview/place answers.
//!
//! Canonical form: `{"orderType", "clientOrderId", "Order"}` with nulls dropped, every number
//! (and every numeric string in a price, quantity or expiry member) as a float, empty numeric
//! strings dropped, `Order`/`Instrument` objects wrapped as one-element arrays and `allOrNone`
//! defaulted to false. Members the fake does not know are kept, so they must match too.

use axum::http::StatusCode;
use axum::response::Response;
use jiff::civil::Date;
use serde_json::{Map, Value, json};

use crate::api::market::{equity_bid_ask, option_bid_ask};
use crate::codes;
use crate::fixtures::round;
use crate::orders_state::{FakeOptionLeg, FakeOrderLeg};
use crate::responses::api_error;
use crate::state::Shared;

const ORDER_TYPES: &[&str] = &[
    "EQ",
    "OPTN",
    "SPREADS",
    "BUY_WRITES",
    "BUTTERFLY",
    "IRON_BUTTERFLY",
    "CONDOR",
    "IRON_CONDOR",
    "MF",
    "MMF",
];
const PRICE_TYPES: &[&str] = &[
    "MARKET",
    "LIMIT",
    "STOP",
    "STOP_LIMIT",
    "TRAILING_STOP_CNST_BY_LOWER_TRIGGER",
    "UPPER_TRIGGER_BY_TRAILING_STOP_CNST",
    "TRAILING_STOP_PRCT_BY_LOWER_TRIGGER",
    "UPPER_TRIGGER_BY_TRAILING_STOP_PRCT",
    "TRAILING_STOP_CNST",
    "TRAILING_STOP_PRCT",
    "HIDDEN_STOP",
    "HIDDEN_STOP_BY_LOWER_TRIGGER",
    "UPPER_TRIGGER_BY_HIDDEN_STOP",
    "NET_DEBIT",
    "NET_CREDIT",
    "NET_EVEN",
    "MARKET_ON_OPEN",
    "MARKET_ON_CLOSE",
    "LIMIT_ON_OPEN",
    "LIMIT_ON_CLOSE",
];
const NEEDS_LIMIT: &[&str] = &[
    "LIMIT",
    "STOP_LIMIT",
    "NET_DEBIT",
    "NET_CREDIT",
    "LIMIT_ON_OPEN",
    "LIMIT_ON_CLOSE",
];
const NEEDS_STOP: &[&str] = &[
    "STOP",
    "STOP_LIMIT",
    "TRAILING_STOP_CNST",
    "TRAILING_STOP_PRCT",
];
const ORDER_TERMS: &[&str] = &[
    "GOOD_UNTIL_CANCEL",
    "GOOD_FOR_DAY",
    "GOOD_TILL_DATE",
    "IMMEDIATE_OR_CANCEL",
    "FILL_OR_KILL",
];
const SESSIONS: &[&str] = &["REGULAR", "EXTENDED"];
const SECURITY_TYPES: &[&str] = &["EQ", "OPTN", "MF", "MMF"];
const EQ_ACTIONS: &[&str] = &["BUY", "SELL", "BUY_TO_COVER", "SELL_SHORT"];
const OPTN_ACTIONS: &[&str] = &["BUY_OPEN", "BUY_CLOSE", "SELL_OPEN", "SELL_CLOSE"];
const FUND_ACTIONS: &[&str] = &["BUY", "SELL", "EXCHANGE"];
const QUANTITY_TYPES: &[&str] = &["QUANTITY", "DOLLAR", "ALL_I_OWN"];
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
pub(crate) struct OrderRequest {
    pub order_type: String,
    pub client_order_id: String,
    pub all_or_none: bool,
    pub price_type: String,
    pub order_term: String,
    pub market_session: String,
    pub limit_price: Option<f64>,
    pub stop_price: Option<f64>,
    pub legs: Vec<FakeOrderLeg>,
    /// `{"orderType", "clientOrderId", "Order"}`, canonical (see the module docs).
    pub canonical: Value,
    /// The request's `PreviewIds` member as sent (place only).
    pub preview_ids: Option<Value>,
}

pub(crate) fn invalid(detail: &str) -> Response {
    api_error(
        StatusCode::BAD_REQUEST,
        codes::INVALID_ORDER_REQUEST,
        &format!("Invalid order request: {detail}."),
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

fn text(m: &Map<String, Value>, k: &str, allowed: &[&str]) -> Result<String, Response> {
    match m.get(k).and_then(Value::as_str) {
        Some(v) if allowed.contains(&v) => Ok(v.to_string()),
        Some(_) => Err(invalid(&format!("{k} has an invalid value"))),
        None => Err(invalid(&format!("{k} is missing"))),
    }
}

/// A price member: absent or 0 → `None`; negative → error.
fn price(m: &Map<String, Value>, k: &str) -> Result<Option<f64>, Response> {
    match m.get(k).and_then(Value::as_f64) {
        Some(p) if p < 0.0 => Err(invalid(&format!("{k} must not be negative"))),
        Some(p) if p > 0.0 => Ok(Some(p)),
        _ => Ok(None),
    }
}

fn int(m: &Map<String, Value>, k: &str) -> Result<i64, Response> {
    match m.get(k).and_then(Value::as_f64) {
        Some(f) if f.fract() == 0.0 && (1.0..=9999.0).contains(&f) => Ok(f as i64),
        Some(_) => Err(invalid(&format!("{k} has an invalid value"))),
        None => Err(invalid(&format!("{k} is missing"))),
    }
}

fn leg(s: &Shared, m: &Map<String, Value>) -> Result<FakeOrderLeg, Response> {
    let Some(product) = m.get("Product").and_then(Value::as_object) else {
        return Err(invalid("Instrument.Product is missing"));
    };
    let security_type = text(product, "securityType", SECURITY_TYPES)?;
    let symbol = match product.get("symbol").and_then(Value::as_str) {
        Some(v) if !v.trim().is_empty() && v.len() <= 24 => v.trim().to_ascii_uppercase(),
        _ => return Err(invalid("Product.symbol is missing or invalid")),
    };
    let option = if security_type == "OPTN" {
        let call_put = text(product, "callPut", &["CALL", "PUT"])?;
        let (y, mo, d) = (
            int(product, "expiryYear")?,
            int(product, "expiryMonth")?,
            int(product, "expiryDay")?,
        );
        let valid_date = i16::try_from(y)
            .ok()
            .zip(i8::try_from(mo).ok())
            .zip(i8::try_from(d).ok());
        if valid_date.is_none_or(|((y, mo), d)| Date::new(y, mo, d).is_err()) {
            return Err(invalid("the option expiry date is not a date"));
        }
        let Some(strike) = price(product, "strikePrice")? else {
            return Err(invalid("Product.strikePrice is missing"));
        };
        Some(FakeOptionLeg {
            call_put,
            expiry_year: y,
            expiry_month: mo,
            expiry_day: d,
            strike_price: strike,
        })
    } else {
        None
    };
    let actions = match security_type.as_str() {
        "EQ" => EQ_ACTIONS,
        "OPTN" => OPTN_ACTIONS,
        _ => FUND_ACTIONS,
    };
    let action = text(m, "orderAction", actions)?;
    let quantity_type = text(m, "quantityType", QUANTITY_TYPES)?;
    let quantity = match m.get("quantity").and_then(Value::as_f64) {
        Some(q) if q > 0.0 => q,
        Some(q) if q == 0.0 && quantity_type == "ALL_I_OWN" => q,
        Some(_) => return Err(invalid("quantity must be positive")),
        None => return Err(invalid("quantity is missing")),
    };
    let description = match &option {
        None => equity_bid_ask(&symbol).map(|(_, _, d)| d),
        Some(o) => option_bid_ask(
            s,
            &symbol,
            (o.expiry_year, o.expiry_month, o.expiry_day),
            &o.call_put,
            o.strike_price,
        )
        .map(|(_, _, d)| d),
    }
    .unwrap_or_else(|| symbol.clone());
    Ok(FakeOrderLeg {
        symbol,
        security_type,
        symbol_description: description,
        option,
        action,
        quantity_type,
        quantity,
        filled_quantity: 0.0,
        average_execution_price: None,
    })
}

fn legs_fit(order_type: &str, legs: &[FakeOrderLeg]) -> bool {
    let all = |t: &str| legs.iter().all(|l| l.security_type == t);
    match order_type {
        "EQ" | "OPTN" | "MF" | "MMF" => legs.len() == 1 && all(order_type),
        "BUY_WRITES" => {
            legs.len() == 2
                && legs.iter().filter(|l| l.security_type == "EQ").count() == 1
                && legs.iter().filter(|l| l.security_type == "OPTN").count() == 1
        }
        _ => (2..=4).contains(&legs.len()) && all("OPTN"),
    }
}

/// Checks a request body whose root member is `root`.
pub(crate) fn parse(s: &Shared, body: &[u8], root: &str) -> Result<OrderRequest, Response> {
    let v: Value = serde_json::from_slice(body).map_err(|_| invalid("the body is not JSON"))?;
    let Some(req) = v.get(root).and_then(Value::as_object) else {
        return Err(invalid(&format!("the body has no {root} object")));
    };
    let order_type = text(req, "orderType", ORDER_TYPES)?;
    let client_order_id = match req.get("clientOrderId") {
        Some(Value::String(c)) => c.clone(),
        Some(Value::Number(n)) if n.is_u64() => n.to_string(),
        _ => String::new(),
    };
    if !(1..=20).contains(&client_order_id.len())
        || !client_order_id.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return Err(api_error(
            StatusCode::BAD_REQUEST,
            codes::INVALID_CLIENT_ORDER_ID,
            codes::INVALID_CLIENT_ORDER_ID_MESSAGE,
        ));
    }
    let Some(raw_order) = req.get("Order") else {
        return Err(invalid("Order is missing"));
    };
    let wrapped = normalize(&json!({ "Order": raw_order })).map_err(|e| invalid(&e))?;
    let mut orders = match wrapped.get("Order") {
        Some(Value::Array(a)) => a.clone(),
        _ => return Err(invalid("Order must be an array")),
    };
    if orders.len() != 1 {
        return Err(invalid("exactly one Order is supported"));
    }
    let Some(order) = orders.get_mut(0).and_then(Value::as_object_mut) else {
        return Err(invalid("Order[0] must be an object"));
    };
    let all_or_none = match order.get("allOrNone") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(b)) if b.eq_ignore_ascii_case("true") => true,
        Some(Value::String(b)) if b.eq_ignore_ascii_case("false") => false,
        Some(_) => return Err(invalid("allOrNone must be a boolean")),
    };
    order.insert("allOrNone".into(), json!(all_or_none));
    let price_type = text(order, "priceType", PRICE_TYPES)?;
    let order_term = text(order, "orderTerm", ORDER_TERMS)?;
    let market_session = text(order, "marketSession", SESSIONS)?;
    let limit_price = price(order, "limitPrice")?;
    let stop_price = price(order, "stopPrice")?;
    if NEEDS_LIMIT.contains(&price_type.as_str()) && limit_price.is_none() {
        return Err(invalid(&format!("limitPrice is required for {price_type}")));
    }
    if NEEDS_STOP.contains(&price_type.as_str()) && stop_price.is_none() {
        return Err(invalid(&format!("stopPrice is required for {price_type}")));
    }
    if market_session == "EXTENDED" && price_type != "LIMIT" {
        return Err(api_error(
            StatusCode::BAD_REQUEST,
            codes::EXTENDED_HOURS_LIMIT_ONLY,
            codes::EXTENDED_HOURS_LIMIT_ONLY_MESSAGE,
        ));
    }
    let legs = match order.get("Instrument") {
        Some(Value::Array(a)) if !a.is_empty() => a
            .iter()
            .map(|l| match l.as_object() {
                Some(m) => leg(s, m),
                None => Err(invalid("Instrument entries must be objects")),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(invalid("Instrument is missing")),
    };
    if !legs_fit(&order_type, &legs) {
        return Err(invalid(&format!(
            "the Instrument legs do not fit orderType {order_type}"
        )));
    }
    Ok(OrderRequest {
        canonical: json!({"orderType": order_type, "clientOrderId": client_order_id,
            "Order": orders}),
        order_type,
        client_order_id,
        all_or_none,
        price_type,
        order_term,
        market_session,
        limit_price,
        stop_price,
        legs,
        preview_ids: req.get("PreviewIds").cloned(),
    })
}

fn is_buy(action: &str) -> bool {
    action.starts_with("BUY")
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
fn leg_price(s: &Shared, l: &FakeOrderLeg) -> f64 {
    let quote = match &l.option {
        None => equity_bid_ask(&l.symbol),
        Some(o) => option_bid_ask(
            s,
            &l.symbol,
            (o.expiry_year, o.expiry_month, o.expiry_day),
            &o.call_put,
            o.strike_price,
        ),
    };
    quote.map_or(
        DEFAULT_PRICE,
        |(bid, ask, _)| {
            if is_buy(&l.action) { ask } else { bid }
        },
    )
}

pub(crate) fn estimate(s: &Shared, r: &OrderRequest) -> Estimate {
    let commission: f64 = r
        .legs
        .iter()
        .filter(|l| l.option.is_some())
        .map(|l| l.quantity * OPTION_COMMISSION)
        .sum();
    let leg_value = |l: &FakeOrderLeg, px: f64| {
        if l.quantity_type == "DOLLAR" {
            l.quantity
        } else {
            l.quantity * px * l.multiplier()
        }
    };
    let (value, debit) = match r.legs.as_slice() {
        [l] => {
            let px = r
                .limit_price
                .or(r.stop_price)
                .unwrap_or_else(|| leg_price(s, l));
            (leg_value(l, px), is_buy(&l.action))
        }
        legs => match (r.limit_price, legs.first()) {
            (Some(net), Some(first)) => (leg_value(first, net), r.price_type != "NET_CREDIT"),
            _ => {
                let signed: f64 = legs
                    .iter()
                    .map(|l| {
                        let v = leg_value(l, leg_price(s, l));
                        if is_buy(&l.action) { v } else { -v }
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

/// A `Message` entry.
pub(crate) fn message(code: i64, description: &str) -> Value {
    json!({"description": description, "code": code, "type": "WARNING"})
}

fn product(l: &FakeOrderLeg) -> Value {
    let mut p = Map::new();
    p.insert("symbol".into(), json!(l.symbol));
    p.insert("securityType".into(), json!(l.security_type));
    if let Some(o) = &l.option {
        p.insert("callPut".into(), json!(o.call_put));
        p.insert("expiryYear".into(), json!(o.expiry_year));
        p.insert("expiryMonth".into(), json!(o.expiry_month));
        p.insert("expiryDay".into(), json!(o.expiry_day));
        p.insert("strikePrice".into(), json!(o.strike_price));
    }
    Value::Object(p)
}

/// The `Order[]` entry of a preview or place answer.
pub(crate) fn echo_order(r: &OrderRequest, est: &Estimate, messages: &[Value]) -> Value {
    let instruments: Vec<Value> = r
        .legs
        .iter()
        .map(|l| {
            json!({"symbolDescription": l.symbol_description, "orderAction": l.action,
                "quantityType": l.quantity_type, "quantity": l.quantity, "cancelQuantity": 0.0,
                "reserveOrder": true, "reserveQuantity": 0.0, "Product": product(l)})
        })
        .collect();
    let mut o = Map::new();
    o.insert("orderTerm".into(), json!(r.order_term));
    o.insert("priceType".into(), json!(r.price_type));
    if let Some(p) = r.limit_price {
        o.insert("limitPrice".into(), json!(p));
    }
    if let Some(p) = r.stop_price {
        o.insert("stopPrice".into(), json!(p));
    }
    o.insert("marketSession".into(), json!(r.market_session));
    o.insert("allOrNone".into(), json!(r.all_or_none));
    o.insert(
        "egQual".into(),
        json!(if r.price_type == "MARKET" {
            "EG_QUAL_QUALIFIED"
        } else {
            "EG_QUAL_NOT_A_MARKET_ORDER"
        }),
    );
    if !messages.is_empty() {
        o.insert("messages".into(), json!({ "Message": messages }));
    }
    o.insert("estimatedCommission".into(), json!(est.commission));
    o.insert("estimatedTotalAmount".into(), json!(est.total()));
    for k in ["netPrice", "netBid", "netAsk", "gcd"] {
        o.insert(k.into(), json!(0));
    }
    o.insert("ratio".into(), json!(""));
    o.insert("Instrument".into(), Value::Array(instruments));
    Value::Object(o)
}

/// The `previewId` of a place request: `PreviewIds` must be an array of one object with a
/// numeric `previewId`.
pub(crate) fn preview_id(r: &OrderRequest) -> Option<i64> {
    let Some(Value::Array(ids)) = &r.preview_ids else {
        return None;
    };
    let [Value::Object(entry)] = ids.as_slice() else {
        return None;
    };
    match entry.get("previewId")? {
        Value::Number(n) => n.as_i64(),
        Value::String(v) => v.parse().ok(),
        _ => None,
    }
}

//! `PreviewOrderRequest` / `PlaceOrderRequest` bodies: checked and reduced to an
//! [`OrderRequest`], which is also the canonical form a place is compared with its preview
//! by (numbers compare as decimals, so `170`, `170.00` and `"170.0"` are the same price).

use std::str::FromStr;

use jiff::civil::Date;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::PaperError;
use super::codes;
use super::state::{Action, Instrument, Right};

use crate::trading::order::SPREAD_TYPES;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LegRequest {
    pub instrument: Instrument,
    pub action: Action,
    pub quantity: Decimal,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct OrderRequest {
    pub order_type: String,
    pub client_order_id: String,
    pub price_type: String,
    pub order_term: String,
    pub market_session: String,
    pub all_or_none: bool,
    pub limit_price: Option<Decimal>,
    pub stop_price: Option<Decimal>,
    pub legs: Vec<LegRequest>,
}

impl OrderRequest {
    pub fn is_spread(&self) -> bool {
        SPREAD_TYPES.contains(&self.order_type.as_str())
    }

    pub fn extended(&self) -> bool {
        self.market_session == "EXTENDED"
    }
}

pub(crate) fn invalid(detail: &str) -> PaperError {
    PaperError::rejected(
        codes::INVALID_ORDER_REQUEST,
        &format!("Invalid order request: {detail}."),
    )
}

/// A decimal from a JSON number or numeric string; `Ok(None)` for null or an empty string.
pub(crate) fn decimal(v: &Value) -> Result<Option<Decimal>, ()> {
    let text = match v {
        Value::Null => return Ok(None),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.trim().is_empty() => return Ok(None),
        Value::String(s) => s.trim().to_string(),
        _ => return Err(()),
    };
    Decimal::from_str(&text)
        .or_else(|_| Decimal::from_scientific(&text))
        .map(|d| Some(d.normalize()))
        .map_err(|_| ())
}

fn text<'a>(m: &'a Map<String, Value>, k: &str) -> Result<&'a str, PaperError> {
    match m.get(k) {
        Some(Value::String(s)) => Ok(s.as_str()),
        Some(_) => Err(invalid(&format!("{k} has an invalid value"))),
        None => Err(invalid(&format!("{k} is missing"))),
    }
}

fn one_of(m: &Map<String, Value>, k: &str, allowed: &[&str]) -> Result<String, PaperError> {
    let v = text(m, k)?;
    if allowed.contains(&v) {
        Ok(v.to_string())
    } else {
        Err(invalid(&format!("{k} has an invalid value")))
    }
}

/// A price member: absent, empty or 0 → None; negative → refused.
fn price(m: &Map<String, Value>, k: &str) -> Result<Option<Decimal>, PaperError> {
    match m.get(k).map(decimal) {
        None | Some(Ok(None)) => Ok(None),
        Some(Ok(Some(p))) if p.is_sign_negative() && !p.is_zero() => {
            Err(invalid(&format!("{k} must not be negative")))
        }
        Some(Ok(Some(p))) if p.is_zero() => Ok(None),
        Some(Ok(Some(p))) => Ok(Some(p)),
        Some(Err(())) => Err(invalid(&format!("{k} is not a number"))),
    }
}

fn int(m: &Map<String, Value>, k: &str) -> Result<i64, PaperError> {
    match m.get(k).map(decimal) {
        Some(Ok(Some(d))) if d.fract().is_zero() => {
            i64::try_from(d).map_err(|_| invalid(&format!("{k} has an invalid value")))
        }
        Some(Ok(None)) | None => Err(invalid(&format!("{k} is missing"))),
        _ => Err(invalid(&format!("{k} has an invalid value"))),
    }
}

/// The single object or the one-element array E*TRADE accepts for `Order`/`Instrument`.
fn objects<'a>(v: Option<&'a Value>, k: &str) -> Result<Vec<&'a Map<String, Value>>, PaperError> {
    match v {
        Some(Value::Object(m)) => Ok(vec![m]),
        Some(Value::Array(a)) if !a.is_empty() => a
            .iter()
            .map(|x| {
                x.as_object()
                    .ok_or_else(|| invalid(&format!("{k} entries must be objects")))
            })
            .collect(),
        _ => Err(invalid(&format!("{k} is missing"))),
    }
}

fn leg(m: &Map<String, Value>) -> Result<LegRequest, PaperError> {
    let Some(product) = m.get("Product").and_then(Value::as_object) else {
        return Err(invalid("Instrument.Product is missing"));
    };
    let security_type = text(product, "securityType")?;
    let symbol = match product.get("symbol").and_then(Value::as_str) {
        Some(v) if !v.trim().is_empty() && v.trim().len() <= 24 => v.trim().to_ascii_uppercase(),
        _ => return Err(invalid("Product.symbol is missing or invalid")),
    };
    let action_text = text(m, "orderAction")?;
    let Some(action) = Action::parse(action_text) else {
        return Err(invalid("orderAction has an invalid value"));
    };
    let instrument = match security_type {
        "EQ" => {
            if action.for_option() {
                return Err(invalid("orderAction does not fit an equity"));
            }
            Instrument::Equity { symbol }
        }
        "OPTN" => {
            if !action.for_option() {
                return Err(invalid("orderAction does not fit an option"));
            }
            let right = match text(product, "callPut")? {
                "CALL" => Right::Call,
                "PUT" => Right::Put,
                _ => return Err(invalid("callPut has an invalid value")),
            };
            let (y, mo, d) = (
                int(product, "expiryYear")?,
                int(product, "expiryMonth")?,
                int(product, "expiryDay")?,
            );
            let expiry = match (i16::try_from(y), i8::try_from(mo), i8::try_from(d)) {
                (Ok(y), Ok(mo), Ok(d)) => Date::new(y, mo, d)
                    .map_err(|_| invalid("the option expiry date is not a date"))?,
                _ => return Err(invalid("the option expiry date is not a date")),
            };
            let Some(strike) = price(product, "strikePrice")? else {
                return Err(invalid("Product.strikePrice is missing"));
            };
            Instrument::Option {
                underlying: symbol,
                expiry,
                right,
                strike,
            }
        }
        "MF" | "MMF" => {
            return Err(PaperError::rejected(
                codes::NOT_SUPPORTED,
                "Mutual fund orders are not available in the paper account.",
            ));
        }
        _ => return Err(invalid("securityType has an invalid value")),
    };
    match m.get("quantityType").and_then(Value::as_str) {
        None | Some("QUANTITY") => {}
        Some("DOLLAR" | "ALL_I_OWN") => {
            return Err(PaperError::rejected(
                codes::NOT_SUPPORTED,
                "Only orders by quantity are available in the paper account.",
            ));
        }
        Some(_) => return Err(invalid("quantityType has an invalid value")),
    }
    let quantity = match m.get("quantity").map(decimal) {
        Some(Ok(Some(q))) if q > Decimal::ZERO && q.fract().is_zero() => q,
        Some(Ok(Some(q))) if q > Decimal::ZERO => {
            return Err(invalid("quantity must be a whole number"));
        }
        Some(Ok(Some(_))) => return Err(invalid("quantity must be positive")),
        _ => return Err(invalid("quantity is missing")),
    };
    Ok(LegRequest {
        instrument,
        action,
        quantity,
    })
}

fn legs_fit(order_type: &str, legs: &[LegRequest]) -> bool {
    let options = legs.iter().filter(|l| l.instrument.is_option()).count();
    match order_type {
        "EQ" => legs.len() == 1 && options == 0,
        "OPTN" => legs.len() == 1 && options == 1,
        "BUY_WRITES" => legs.len() == 2 && options == 1,
        _ => (2..=4).contains(&legs.len()) && options == legs.len(),
    }
}

/// Checks the body `{root: {...}}`; returns the request and the `PreviewIds` member.
pub(crate) fn parse(body: &Value, root: &str) -> Result<(OrderRequest, Option<Value>), PaperError> {
    let Some(req) = body.get(root).and_then(Value::as_object) else {
        return Err(invalid(&format!("the body has no {root} object")));
    };
    let order_type = text(req, "orderType")?.to_string();
    if matches!(order_type.as_str(), "MF" | "MMF") {
        return Err(PaperError::rejected(
            codes::NOT_SUPPORTED,
            "Mutual fund orders are not available in the paper account.",
        ));
    }
    if order_type != "EQ" && order_type != "OPTN" && !SPREAD_TYPES.contains(&order_type.as_str()) {
        return Err(invalid("orderType has an invalid value"));
    }
    let client_order_id = match req.get("clientOrderId") {
        Some(Value::String(c)) => c.clone(),
        Some(Value::Number(n)) if n.is_u64() => n.to_string(),
        _ => String::new(),
    };
    if !(1..=20).contains(&client_order_id.len())
        || !client_order_id.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return Err(PaperError::rejected(
            codes::INVALID_CLIENT_ORDER_ID,
            codes::INVALID_CLIENT_ORDER_ID_MESSAGE,
        ));
    }
    let orders = objects(req.get("Order"), "Order")?;
    let [order] = orders.as_slice() else {
        return Err(invalid("exactly one Order is supported"));
    };
    let all_or_none = match order.get("allOrNone") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(b)) if b.eq_ignore_ascii_case("true") => true,
        Some(Value::String(b)) if b.eq_ignore_ascii_case("false") => false,
        Some(_) => return Err(invalid("allOrNone must be a boolean")),
    };
    let price_type = text(order, "priceType")?.to_string();
    let spread = SPREAD_TYPES.contains(&order_type.as_str());
    let allowed: &[&str] = if spread {
        &["MARKET", "NET_DEBIT", "NET_CREDIT", "NET_EVEN"]
    } else {
        &["MARKET", "LIMIT", "STOP", "STOP_LIMIT"]
    };
    if !allowed.contains(&price_type.as_str()) {
        return Err(PaperError::rejected(
            codes::NOT_SUPPORTED,
            &format!(
                "The price type {price_type} is not available for this order in the paper account."
            ),
        ));
    }
    let order_term = one_of(
        order,
        "orderTerm",
        &[
            "GOOD_UNTIL_CANCEL",
            "GOOD_FOR_DAY",
            "GOOD_TILL_DATE",
            "IMMEDIATE_OR_CANCEL",
            "FILL_OR_KILL",
        ],
    )?;
    if order_term == "GOOD_TILL_DATE" {
        return Err(PaperError::rejected(
            codes::NOT_SUPPORTED,
            "GOOD_TILL_DATE orders are not available in the paper account.",
        ));
    }
    let market_session = one_of(order, "marketSession", &["REGULAR", "EXTENDED"])?;
    let limit_price = price(order, "limitPrice")?;
    let stop_price = price(order, "stopPrice")?;
    let needs_limit = matches!(
        price_type.as_str(),
        "LIMIT" | "STOP_LIMIT" | "NET_DEBIT" | "NET_CREDIT"
    );
    if needs_limit && limit_price.is_none() {
        return Err(invalid(&format!("limitPrice is required for {price_type}")));
    }
    if matches!(price_type.as_str(), "STOP" | "STOP_LIMIT") && stop_price.is_none() {
        return Err(invalid(&format!("stopPrice is required for {price_type}")));
    }
    if market_session == "EXTENDED" && price_type != "LIMIT" {
        return Err(PaperError::rejected(
            codes::EXTENDED_HOURS_LIMIT_ONLY,
            codes::EXTENDED_HOURS_LIMIT_ONLY_MESSAGE,
        ));
    }
    if matches!(order_term.as_str(), "IMMEDIATE_OR_CANCEL" | "FILL_OR_KILL") && !needs_limit {
        return Err(invalid(
            "IMMEDIATE_OR_CANCEL and FILL_OR_KILL need a limit price",
        ));
    }
    let legs = objects(order.get("Instrument"), "Instrument")?
        .into_iter()
        .map(leg)
        .collect::<Result<Vec<_>, _>>()?;
    if !legs_fit(&order_type, &legs) {
        return Err(invalid(&format!(
            "the Instrument legs do not fit orderType {order_type}"
        )));
    }
    let has_stop = matches!(price_type.as_str(), "STOP" | "STOP_LIMIT");
    // Limit prices of spreads keep their sign convention in the price type; NET_EVEN is 0.
    let limit_price = if price_type == "NET_EVEN" {
        Some(Decimal::ZERO)
    } else {
        limit_price
    };
    Ok((
        OrderRequest {
            order_type,
            client_order_id,
            price_type,
            order_term,
            market_session,
            all_or_none,
            limit_price: limit_price.filter(|_| needs_limit || spread),
            stop_price: stop_price.filter(|_| has_stop),
            legs,
        },
        req.get("PreviewIds").cloned(),
    ))
}

/// The `previewId` of a place request: `PreviewIds` must be one object (or an array of one)
/// with a numeric `previewId`.
pub(crate) fn preview_id(preview_ids: Option<&Value>) -> Option<i64> {
    let entry = match preview_ids? {
        Value::Array(ids) => match ids.as_slice() {
            [Value::Object(e)] => e,
            _ => return None,
        },
        Value::Object(e) => e,
        _ => return None,
    };
    match entry.get("previewId")? {
        Value::Number(n) => n.as_i64(),
        Value::String(v) => v.trim().parse().ok(),
        _ => None,
    }
}

/// The `orderId` of `{"CancelOrderRequest":{"orderId":N}}`.
pub(crate) fn cancel_order_id(body: &Value) -> Result<i64, PaperError> {
    let Some(req) = body.get("CancelOrderRequest").and_then(Value::as_object) else {
        return Err(invalid("the body has no CancelOrderRequest object"));
    };
    match req.get("orderId") {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(v)) => v.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| invalid("orderId is missing or not an integer"))
}

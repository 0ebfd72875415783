//! The E*TRADE-shaped JSON answers (what E*TRADE's HTTP bodies would be), built from the
//! book's records. Money and prices are JSON numbers written from the exact decimals.
//!
//! This module holds what the answers share: numbers and times as JSON, query parameters,
//! the account lookup, the Product block and the links' host. Each kind of answer is in its
//! own child module.

mod accounts;
mod entry;
mod orders;
mod portfolio;
mod transactions;

use jiff::Timestamp;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde_json::{Map, Value, json};

use super::engine::cents;
use super::state::{AccountRec, Instrument, State};
use super::{PaperError, codes};
use crate::etrade::{EtradeRequest, Param};

pub(crate) use self::accounts::{accounts_list, balance, margin_level, option_level};
pub(crate) use self::entry::{disclosure, dst, echo_order, message};
pub(crate) use self::orders::orders;
pub(crate) use self::portfolio::{portfolio, position_lots};
pub(crate) use self::transactions::{transaction_details, transactions};

/// The host the answers' links point at (the URLs E*TRADE itself would write).
pub(crate) const BASE_URL: &str = "https://api.etrade.com";

/// A decimal as a JSON number (an integer when it has no fraction).
pub(crate) fn num(d: Decimal) -> Value {
    let d = d.normalize();
    if d.scale() == 0
        && let Some(i) = d.to_i64()
    {
        return json!(i);
    }
    match d.to_string().parse::<f64>() {
        Ok(f) if f.is_finite() => json!(f),
        _ => json!(0),
    }
}

fn ms(t: Timestamp) -> i64 {
    t.as_millisecond()
}

pub(crate) fn pct(part: Decimal, whole: Decimal) -> Decimal {
    part.checked_div(whole)
        .map(|q| cents(q * Decimal::ONE_HUNDRED))
        .unwrap_or_default()
}

/// A text query parameter.
pub(crate) fn query<'a>(q: &'a EtradeRequest, name: &str) -> Option<&'a str> {
    q.query_param(name).and_then(Param::as_text)
}

pub(crate) fn invalid_param(name: &str) -> PaperError {
    PaperError::rejected(
        codes::INVALID_PARAMETER,
        &format!("Invalid value for the parameter {name}."),
    )
}

fn bool_param(q: &EtradeRequest, name: &str) -> Result<bool, PaperError> {
    match q.query_param(name) {
        None => Ok(false),
        Some(p) => p.as_bool().ok_or_else(|| invalid_param(name)),
    }
}

/// A positive integer query parameter.
fn positive_param(q: &EtradeRequest, name: &str) -> Result<Option<usize>, PaperError> {
    match q.query_param(name) {
        None => Ok(None),
        Some(p) => match p.as_int().and_then(|n| usize::try_from(n).ok()) {
            Some(0) | None => Err(invalid_param(name)),
            Some(n) => Ok(Some(n)),
        },
    }
}

fn count_param(q: &EtradeRequest, default: usize, max: usize) -> Result<usize, PaperError> {
    match positive_param(q, "count")? {
        None => Ok(default),
        Some(n) if n > max => Err(PaperError::Rejected {
            status: 500,
            code: 100,
            message: "Request could not be completed.".into(),
        }),
        Some(n) => Ok(n),
    }
}

fn date_param(q: &EtradeRequest, name: &str) -> Result<Option<jiff::civil::Date>, PaperError> {
    match q.query_param(name) {
        None => Ok(None),
        Some(p) => p.as_date().map(Some).ok_or_else(|| invalid_param(name)),
    }
}

pub(crate) fn account<'a>(state: &'a State, key: &str) -> Result<&'a AccountRec, PaperError> {
    state
        .accounts
        .get(key)
        .ok_or_else(PaperError::unknown_account)
}

/// The Product block of a position, transaction or order instrument.
pub(crate) fn product_json(i: &Instrument, with_ids: bool) -> Value {
    let mut p = Map::new();
    p.insert("symbol".into(), json!(i.symbol()));
    p.insert("securityType".into(), json!(i.security_type()));
    match i {
        Instrument::Equity { symbol } => {
            if with_ids {
                for k in ["expiryYear", "expiryMonth", "expiryDay", "strikePrice"] {
                    p.insert(k.into(), json!(0));
                }
                p.insert(
                    "productId".into(),
                    json!({"symbol": symbol, "typeCode": "EQUITY"}),
                );
            }
        }
        Instrument::Option {
            expiry,
            right,
            strike,
            ..
        } => {
            p.insert("callPut".into(), json!(right.as_str()));
            p.insert("expiryYear".into(), json!(expiry.year()));
            p.insert("expiryMonth".into(), json!(expiry.month()));
            p.insert("expiryDay".into(), json!(expiry.day()));
            p.insert("strikePrice".into(), num(*strike));
            if with_ids {
                p.insert("expiryType".into(), json!("MONTHLY"));
                p.insert(
                    "productId".into(),
                    json!({"symbol": i.osi_key(), "typeCode": "OPTION"}),
                );
            }
        }
    }
    Value::Object(p)
}

/// E*TRADE's `next` link: this request's query with `name` set to `value`.
fn next_link(path: &str, q: &EtradeRequest, name: &str, value: String) -> String {
    let mut pairs: Vec<(String, String)> = q
        .query()
        .iter()
        .filter(|(k, _)| *k != name)
        .map(|(k, v)| (k.to_string(), v.wire()))
        .collect();
    pairs.push((name.to_string(), value));
    format!("{BASE_URL}{path}?{}", query_string(&pairs))
}

fn query_string(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| {
            format!(
                "{}={}",
                crate::etrade::oauth::encode(k),
                crate::etrade::oauth::encode(v)
            )
        })
        .collect::<Vec<_>>()
        .join("&")
}

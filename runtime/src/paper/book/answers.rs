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

pub(crate) fn query<'a>(q: &'a [(&str, String)], name: &str) -> Option<&'a str> {
    q.iter()
        .rev()
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.as_str())
}

pub(crate) fn invalid_param(name: &str) -> PaperError {
    PaperError::rejected(
        codes::INVALID_PARAMETER,
        &format!("Invalid value for the parameter {name}."),
    )
}

fn bool_param(q: &[(&str, String)], name: &str) -> Result<bool, PaperError> {
    match query(q, name).map(str::to_ascii_lowercase).as_deref() {
        None => Ok(false),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(_) => Err(invalid_param(name)),
    }
}

fn count_param(q: &[(&str, String)], default: usize, max: usize) -> Result<usize, PaperError> {
    match query(q, "count") {
        None => Ok(default),
        Some(v) => match v.trim().parse::<usize>() {
            Ok(0) | Err(_) => Err(invalid_param("count")),
            Ok(n) if n > max => Err(PaperError::Rejected {
                status: 500,
                code: 100,
                message: "Request could not be completed.".into(),
            }),
            Ok(n) => Ok(n),
        },
    }
}

/// `MMDDYYYY` → a civil date.
fn mmddyyyy(name: &str, v: &str) -> Result<jiff::civil::Date, PaperError> {
    let v = v.trim();
    if v.len() != 8 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid_param(name));
    }
    let n = |r: std::ops::Range<usize>| v.get(r).and_then(|x| x.parse::<i16>().ok());
    match (n(0..2), n(2..4), n(4..8)) {
        (Some(m), Some(d), Some(y)) => match (i8::try_from(m), i8::try_from(d)) {
            (Ok(m), Ok(d)) => jiff::civil::Date::new(y, m, d).map_err(|_| invalid_param(name)),
            _ => Err(invalid_param(name)),
        },
        _ => Err(invalid_param(name)),
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

//! The E*TRADE-shaped JSON bodies the paper book sends (what E*TRADE's HTTP bodies would
//! be), built from the book's records. Money and prices are JSON numbers written from the
//! exact decimals.
//!
//! This module holds what the bodies share: numbers and times as JSON, query parameters,
//! the account lookup, the Product block and the links' host. Each kind of body is in its
//! own child module.

mod accounts;
mod entry;
mod orders;
mod portfolio;
mod transactions;

use jiff::Timestamp;
use rust_decimal::Decimal;

use super::PaperError;
use super::engine::cents;
use super::state::{AccountRec, State};
use crate::emulation::query_params::{self, ParamError};
use crate::etrade::{EtradeRequest, Param};

pub(crate) use crate::emulation::json_number::exact as num;

pub(crate) use self::accounts::{accounts_list, balance, margin_level, option_level};
pub(crate) use self::entry::{dst, echo_order};
pub(crate) use self::orders::orders;
pub(crate) use self::portfolio::{portfolio, position_lots};
pub(crate) use self::transactions::{transaction_details, transactions};

/// The host the answers' links point at (the URLs E*TRADE itself would write).
pub(crate) const BASE_URL: &str = "https://api.etrade.com";

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

pub(crate) fn invalid_param(name: &'static str) -> PaperError {
    ParamError::Invalid(name).into()
}

fn bool_param(q: &EtradeRequest, name: &'static str) -> Result<bool, PaperError> {
    match q.query_param(name) {
        None => Ok(false),
        Some(p) => p.as_bool().ok_or_else(|| invalid_param(name)),
    }
}

/// A positive integer query parameter.
fn positive_param(q: &EtradeRequest, name: &'static str) -> Result<Option<usize>, PaperError> {
    match q.query_param(name) {
        None => Ok(None),
        Some(p) => match p.as_int().and_then(|n| usize::try_from(n).ok()) {
            Some(0) | None => Err(invalid_param(name)),
            Some(n) => Ok(Some(n)),
        },
    }
}

fn count_param(q: &EtradeRequest, default: usize, max: usize) -> Result<usize, PaperError> {
    let text = q.query_param("count").map(Param::wire);
    Ok(query_params::count(text.as_deref(), default, max)?)
}

fn date_param(
    q: &EtradeRequest,
    name: &'static str,
) -> Result<Option<jiff::civil::Date>, PaperError> {
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

/// E*TRADE's `next` link: this request's query with `name` set to `value`.
fn next_link(path: &str, q: &EtradeRequest, name: &str, value: String) -> String {
    let mut pairs: Vec<(String, String)> = q
        .query()
        .iter()
        .filter(|(k, _)| *k != name)
        .map(|(k, v)| (k.to_string(), v.wire()))
        .collect();
    pairs.push((name.to_string(), value));
    let query = query_params::query_string(&pairs, crate::etrade::oauth::encode);
    format!("{BASE_URL}{path}?{query}")
}

//! Market: quotes (symbol limits, per-symbol problems, detail flags), product lookup,
//! option chains and option expiry dates — the query checked here, the answer from the
//! emulation's fixed market ([`runtime::emulation::fixed_market`]) seeded with
//! `fixtures_market`'s listings.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use runtime::emulation::answers::chains::ChainType;
use runtime::emulation::answers::quotes::DetailFlag;
use runtime::emulation::fixed_market::{ChainRequest, MarketRefusal};
use rust_decimal::Decimal;

use crate::api::bool_param;
use crate::responses::{api_error, invalid_param, ok_json};
use crate::state::Shared;

type Params = Query<HashMap<String, String>>;

const DETAIL_FLAGS: &[&str] = &[
    "ALL",
    "FUNDAMENTAL",
    "INTRADAY",
    "OPTIONS",
    "WEEK_52",
    "MF_DETAIL",
];

const EXPIRY_TYPES: &[&str] = &[
    "UNSPECIFIED",
    "DAILY",
    "WEEKLY",
    "MONTHLY",
    "QUARTERLY",
    "VIX",
    "ALL",
    "MONTHEND",
];

fn enum_param<'a>(
    q: &'a HashMap<String, String>,
    name: &str,
    allowed: &[&str],
    default: &'a str,
) -> Result<&'a str, Response> {
    match q.get(name) {
        None => Ok(default),
        Some(v) if allowed.contains(&v.as_str()) => Ok(v.as_str()),
        Some(_) => Err(invalid_param(name)),
    }
}

fn int_param(q: &HashMap<String, String>, name: &str) -> Result<Option<i64>, Response> {
    match q.get(name) {
        None => Ok(None),
        Some(v) => v.parse().map(Some).map_err(|_| invalid_param(name)),
    }
}

fn refusal(r: MarketRefusal) -> Response {
    api_error(StatusCode::BAD_REQUEST, r.code(), &r.to_string())
}

/// `GET /v1/market/quote/{symbols}`
pub(crate) async fn quote(
    State(s): State<Arc<Shared>>,
    Path(symbols): Path<String>,
    Query(q): Params,
) -> Response {
    let list: Vec<&str> = symbols
        .split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .collect();
    let over = match bool_param(&q, "overrideSymbolCount", false) {
        Ok(b) => b,
        Err(r) => return r,
    };
    if list.len() > 50 || (list.len() > 25 && !over) {
        return api_error(
            StatusCode::BAD_REQUEST,
            1025,
            "Invalid count. A request may contain up to 50 quotes.",
        );
    }
    let flag = match enum_param(&q, "detailFlag", DETAIL_FLAGS, "ALL") {
        Ok(f) => DetailFlag::parse(f).unwrap_or(DetailFlag::All),
        Err(r) => return r,
    };
    let earnings = match bool_param(&q, "requireEarningsDate", false)
        .and_then(|e| bool_param(&q, "skipMiniOptionsCheck", false).map(|_| e))
    {
        Ok(e) => e,
        Err(r) => return r,
    };
    match s.market.quote_response(&list, flag, earnings, s.now()) {
        Some(body) => ok_json(&body),
        None => refusal(MarketRefusal::InvalidSymbol),
    }
}

/// `GET /v1/market/lookup/{search}`
pub(crate) async fn lookup(State(s): State<Arc<Shared>>, Path(search): Path<String>) -> Response {
    match s.market.lookup_response(&search) {
        Ok(body) => ok_json(&body),
        Err(r) => refusal(r),
    }
}

/// `GET /v1/market/optionexpiredate?symbol=&expiryType=`
pub(crate) async fn option_expire_dates(
    State(s): State<Arc<Shared>>,
    Query(q): Params,
) -> Response {
    let symbol = q.get("symbol").map(String::as_str);
    if let Err(r) = s.market.option_underlier(symbol) {
        return refusal(r);
    }
    let kind = match enum_param(&q, "expiryType", EXPIRY_TYPES, "ALL") {
        Ok(k) => k,
        Err(r) => return r,
    };
    match s.market.expire_dates_response(symbol, kind, s.now()) {
        Ok(body) => ok_json(&body),
        Err(r) => refusal(r),
    }
}

/// `GET /v1/market/optionchains`
pub(crate) async fn option_chains(State(s): State<Arc<Shared>>, Query(q): Params) -> Response {
    let symbol = q.get("symbol").map(String::as_str);
    if let Err(r) = s.market.option_underlier(symbol) {
        return refusal(r);
    }
    let request = match chain_request(&q) {
        Ok(r) => r,
        Err(r) => return r,
    };
    match s
        .market
        .option_chain_response(symbol, &request, s.now(), &s.base_url)
    {
        Ok(body) => ok_json(&body),
        Err(r) => refusal(r),
    }
}

fn chain_request(q: &HashMap<String, String>) -> Result<ChainRequest, Response> {
    let (expiry_year, expiry_month, expiry_day) = (
        int_param(q, "expiryYear")?,
        int_param(q, "expiryMonth")?,
        int_param(q, "expiryDay")?,
    );
    let strike_price_near = match q.get("strikePriceNear") {
        None => None,
        Some(v) => Some(
            v.parse::<Decimal>()
                .ok()
                .filter(|x| *x > Decimal::ZERO)
                .ok_or_else(|| invalid_param("strikePriceNear"))?,
        ),
    };
    let no_of_strikes = match int_param(q, "noOfStrikes")? {
        None => None,
        Some(n) if n > 0 => usize::try_from(n).ok(),
        Some(_) => return Err(invalid_param("noOfStrikes")),
    };
    let include_weekly = bool_param(q, "includeWeekly", false)?;
    bool_param(q, "skipAdjusted", true)?;
    let category = enum_param(
        q,
        "optionCategory",
        &["STANDARD", "ALL", "MINI"],
        "STANDARD",
    )?;
    let chain_type = enum_param(q, "chainType", &["CALL", "PUT", "CALLPUT"], "CALLPUT")?;
    let price_type = enum_param(q, "priceType", &["ATNM", "ALL"], "ATNM")?;
    Ok(ChainRequest {
        expiry_year,
        expiry_month,
        expiry_day,
        strike_price_near,
        no_of_strikes,
        include_weekly,
        mini: category == "MINI",
        chain_type: ChainType::parse(chain_type).unwrap_or(ChainType::CallPut),
        all_prices: price_type == "ALL",
    })
}

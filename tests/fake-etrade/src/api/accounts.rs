//! Accounts: list, balance, portfolio (paged), position lots, transactions (paged by
//! marker, filtered by date) and transaction details — the query checked here, the answer
//! from the emulation's fixed book ([`runtime::emulation::fixed_book`]) holding the
//! fixtures' accounts.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use runtime::emulation::answers::Style;
use runtime::emulation::answers::accounts::{AccountEntry, account_list};
use runtime::emulation::fixed_book::{FixedAccount, PortfolioRequest, TransactionFilter};
use runtime::emulation::query_params::{self, PORTFOLIO_SORT_KEYS, PORTFOLIO_VIEWS};
use runtime::emulation::{NumberStyle, codes};
use runtime::etrade::oauth;

use crate::api::bool_param;
use crate::responses::{api_error, invalid_param, no_content, ok_json, param_refusal};
use crate::state::Shared;

type Params = Query<HashMap<String, String>>;

fn style(s: &Shared) -> Style<'_> {
    Style {
        numbers: NumberStyle::Float,
        base_url: &s.base_url,
    }
}

fn unknown_account() -> Response {
    api_error(
        StatusCode::BAD_REQUEST,
        codes::ACCOUNT_KEY,
        codes::ACCOUNT_KEY_MESSAGE,
    )
}

/// The account with this key, as the fixed book holds it.
fn book(s: &Shared, key: &str) -> Result<FixedAccount, Response> {
    s.lock()
        .fixtures
        .account_by_key(key)
        .map(|a| a.book())
        .ok_or_else(unknown_account)
}

/// E*TRADE's `next` link: this request's query (sorted) with `name` set to `value`.
fn next_link(url: String, q: &HashMap<String, String>, name: &str, value: &str) -> String {
    let mut pairs: Vec<(&str, &str)> = q
        .iter()
        .filter(|(k, _)| k.as_str() != name)
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    pairs.push((name, value));
    pairs.sort();
    format!(
        "{url}?{}",
        query_params::query_string(&pairs, oauth::encode)
    )
}

/// `GET /v1/accounts/list`
pub(crate) async fn list(State(s): State<Arc<Shared>>) -> Response {
    let accounts: Vec<FixedAccount> = s
        .lock()
        .fixtures
        .accounts
        .iter()
        .map(|a| a.book())
        .collect();
    let entries: Vec<AccountEntry<'_>> = accounts.iter().map(FixedAccount::entry).collect();
    match account_list(&entries) {
        Some(body) => ok_json(&body),
        None => no_content(),
    }
}

/// `GET /v1/accounts/{key}/balance?instType=BROKERAGE&realTimeNAV=true`
pub(crate) async fn balance(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    Query(q): Params,
) -> Response {
    let now_ms = s.now().as_millisecond();
    let a = match book(&s, &key) {
        Ok(a) => a,
        Err(r) => return r,
    };
    if q.get("instType").map(String::as_str) != Some("BROKERAGE") {
        return api_error(
            StatusCode::BAD_REQUEST,
            codes::INVALID_INSTITUTION_TYPE,
            codes::INVALID_INSTITUTION_TYPE_MESSAGE,
        );
    }
    match bool_param(&q, "realTimeNAV", false) {
        Ok(real_time) => ok_json(&a.balance(now_ms, real_time, NumberStyle::Float)),
        Err(r) => r,
    }
}

/// The largest `count` the fake serves (etrade-cli found 65535 accepted); above → 500.
const MAX_PORTFOLIO_COUNT: usize = 65535;

fn portfolio_request(q: &HashMap<String, String>) -> Result<PortfolioRequest, Response> {
    let count = query_params::count(q.get("count").map(String::as_str), 50, MAX_PORTFOLIO_COUNT)
        .map_err(|e| param_refusal(&e))?;
    let page = match q.get("pageNumber") {
        None => 1,
        Some(v) => match v.parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => return Err(invalid_param("pageNumber")),
        },
    };
    let sort_by = match q.get("sortBy") {
        None => None,
        Some(v) if PORTFOLIO_SORT_KEYS.contains(&v.as_str()) => Some(v.clone()),
        Some(_) => return Err(invalid_param("sortBy")),
    };
    let descending = match q.get("sortOrder").map(String::as_str) {
        None | Some("DESC") => true,
        Some("ASC") => false,
        Some(_) => return Err(invalid_param("sortOrder")),
    };
    match q.get("marketSession").map(String::as_str) {
        None | Some("REGULAR") | Some("EXTENDED") => {}
        Some(_) => return Err(invalid_param("marketSession")),
    }
    let view = match q.get("view") {
        None => "QUICK".to_string(),
        Some(v) if PORTFOLIO_VIEWS.contains(&v.as_str()) => v.clone(),
        Some(_) => return Err(invalid_param("view")),
    };
    Ok(PortfolioRequest {
        view,
        sort_by,
        descending,
        count,
        page,
        totals: bool_param(q, "totalsRequired", false)?,
        lots: bool_param(q, "lotsRequired", false)?,
    })
}

/// `GET /v1/accounts/{key}/portfolio` with `count`/`pageNumber` paging.
pub(crate) async fn portfolio(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    Query(q): Params,
) -> Response {
    let now_s = s.now().as_second();
    let a = match book(&s, &key) {
        Ok(a) => a,
        Err(r) => return r,
    };
    let request = match portfolio_request(&q) {
        Ok(r) => r,
        Err(r) => return r,
    };
    let url = format!("{}/v1/accounts/{}/portfolio", s.base_url, a.key);
    let next = |n: usize| next_link(url.clone(), &q, "pageNumber", &n.to_string());
    match a.portfolio(&request, now_s, style(&s), next) {
        Some(body) => ok_json(&body),
        None => no_content(),
    }
}

/// `GET /v1/accounts/{key}/portfolio/{positionId}`
pub(crate) async fn position_lots(
    State(s): State<Arc<Shared>>,
    Path((key, position_id)): Path<(String, String)>,
) -> Response {
    let now_s = s.now().as_second();
    let a = match book(&s, &key) {
        Ok(a) => a,
        Err(r) => return r,
    };
    match position_id
        .parse::<i64>()
        .ok()
        .and_then(|id| a.position_lots(id, now_s, NumberStyle::Float))
    {
        Some(body) => ok_json(&body),
        None => api_error(
            StatusCode::BAD_REQUEST,
            codes::INVALID_PARAMETER,
            "Invalid position id.",
        ),
    }
}

/// The most transactions one page may hold; above → 500 (as E*TRADE answers).
const MAX_TRANSACTION_COUNT: usize = 50;

/// `MMDDYYYY` → a civil date.
fn mmddyyyy(name: &str, v: &str) -> Result<jiff::civil::Date, Response> {
    query_params::mmddyyyy(v).ok_or_else(|| invalid_param(name))
}

fn transaction_filter(q: &HashMap<String, String>) -> Result<TransactionFilter<'_>, Response> {
    let count = query_params::count(
        q.get("count").map(String::as_str),
        MAX_TRANSACTION_COUNT,
        MAX_TRANSACTION_COUNT,
    )
    .map_err(|e| param_refusal(&e))?;
    let start = q
        .get("startDate")
        .map(|v| mmddyyyy("startDate", v))
        .transpose()?;
    let end = q
        .get("endDate")
        .map(|v| mmddyyyy("endDate", v))
        .transpose()?;
    if let (Some(st), Some(en)) = (start, end)
        && st > en
    {
        return Err(api_error(
            StatusCode::BAD_REQUEST,
            codes::INVALID_PARAMETER,
            "The start date must not be after the end date.",
        ));
    }
    let descending = match q.get("sortOrder").map(String::as_str) {
        None | Some("DESC") => true,
        Some("ASC") => false,
        Some(_) => return Err(invalid_param("sortOrder")),
    };
    Ok(TransactionFilter {
        start,
        end,
        descending,
        marker: q.get("marker").map(String::as_str),
        count,
    })
}

/// `GET /v1/accounts/{key}/transactions?startDate&endDate&sortOrder&marker&count`
pub(crate) async fn transactions(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    Query(q): Params,
) -> Response {
    let a = match book(&s, &key) {
        Ok(a) => a,
        Err(r) => return r,
    };
    let filter = match transaction_filter(&q) {
        Ok(f) => f,
        Err(r) => return r,
    };
    let url = format!("{}/v1/accounts/{}/transactions", s.base_url, a.key);
    let next = |marker: &str| next_link(url.clone(), &q, "marker", marker);
    match a.transactions(&filter, style(&s), next) {
        Ok(Some(body)) => ok_json(&body),
        Ok(None) => no_content(),
        Err(_) => invalid_param("marker"),
    }
}

/// `GET /v1/accounts/{key}/transactions/{transactionId}?storeId=0`
pub(crate) async fn transaction_details(
    State(s): State<Arc<Shared>>,
    Path((key, transaction_id)): Path<(String, String)>,
    Query(q): Params,
) -> Response {
    let a = match book(&s, &key) {
        Ok(a) => a,
        Err(r) => return r,
    };
    if let Some(v) = q.get("storeId")
        && v.parse::<u32>().is_err()
    {
        return invalid_param("storeId");
    }
    match a.transaction_details(&transaction_id, NumberStyle::Float) {
        Ok(body) => ok_json(&body),
        Err(e) => api_error(
            StatusCode::NOT_FOUND,
            codes::INVALID_PARAMETER,
            &e.to_string(),
        ),
    }
}

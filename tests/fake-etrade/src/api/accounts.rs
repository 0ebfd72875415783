//! Accounts: list, balance, portfolio (paged), position lots, transactions (paged by
//! marker, filtered by date) and transaction details.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use runtime::emulation::answers::Style;
use runtime::emulation::answers::accounts::{AccountEntry, account_list};
use runtime::emulation::answers::balance::{BalanceFigures, RealTimeValues};
use runtime::emulation::answers::portfolio::{
    LotFigures, PortfolioPage, PortfolioTotals, PositionFigures, PositionGreeks, QuoteExtras,
};
use runtime::emulation::answers::transactions::{
    TransactionEntry, transaction_details as details_answer, transaction_page,
};
use runtime::emulation::json_number::from_f64;
use runtime::emulation::query_params::{self, PORTFOLIO_SORT_KEYS, PORTFOLIO_VIEWS};
use runtime::emulation::{Instrument, NumberStyle, answers, codes};
use runtime::etrade::oauth;
use rust_decimal::Decimal;

use crate::api::bool_param;
use crate::fixtures::{AccountFixture, PositionFixture, TransactionFixture, pct, round};
use crate::responses::{self, api_error, invalid_param, no_content, ok_json, param_refusal};
use crate::state::Shared;

type Params = Query<HashMap<String, String>>;

fn entry(a: &AccountFixture) -> AccountEntry<'_> {
    AccountEntry {
        id: &a.account_id,
        key: &a.account_id_key,
        mode: &a.account_mode,
        desc: &a.account_desc,
        name: &a.account_name,
        account_type: &a.account_type,
        institution_type: &a.institution_type,
        status: &a.account_status,
        closed_date: a.closed_date,
        inst_no: a.inst_no,
    }
}

/// `GET /v1/accounts/list`
pub(crate) async fn list(State(s): State<Arc<Shared>>) -> Response {
    let inner = s.lock();
    let entries: Vec<AccountEntry<'_>> = inner.fixtures.accounts.iter().map(entry).collect();
    match account_list(&entries) {
        Some(body) => ok_json(&body),
        None => no_content(),
    }
}

fn unknown_account() -> Response {
    api_error(
        StatusCode::BAD_REQUEST,
        codes::ACCOUNT_KEY,
        codes::ACCOUNT_KEY_MESSAGE,
    )
}

/// `GET /v1/accounts/{key}/balance?instType=BROKERAGE&realTimeNAV=true`
pub(crate) async fn balance(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    Query(q): Params,
) -> Response {
    let now_ms = s.now().as_millisecond();
    let inner = s.lock();
    let Some(a) = inner.fixtures.account_by_key(&key) else {
        return unknown_account();
    };
    match q.get("instType").map(String::as_str) {
        Some("BROKERAGE") => {}
        _ => {
            return api_error(
                StatusCode::BAD_REQUEST,
                codes::INVALID_INSTITUTION_TYPE,
                codes::INVALID_INSTITUTION_TYPE_MESSAGE,
            );
        }
    }
    let real_time = match bool_param(&q, "realTimeNAV", false) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let cash = a.cash_balance;
    let long = a.long_value();
    let short = a.short_value();
    let net_mv = a.net_market_value();
    let margin = a.is_margin();
    let equity = round(cash + net_mv, 2);
    let margin_bp = if margin {
        round(cash * 2.0 + long * 0.5 * 2.0 - short.abs() * 0.5, 2).max(0.0)
    } else {
        0.0
    };
    let d = from_f64;
    let figures = BalanceFigures {
        account_id: &a.account_id,
        institution_type: &a.institution_type,
        account_type: &a.account_type,
        account_desc: &a.account_desc,
        account_mode: &a.account_mode,
        option_level: &a.option_level,
        day_trader_status: &a.day_trader_status,
        as_of_ms: now_ms,
        open_order_reserve: Decimal::ZERO,
        money_market: d(a.money_market_balance),
        cash_balance: d(cash),
        cash_for_withdrawal: d(cash),
        cash_buying_power: d(cash),
        margin_buying_power: d(margin_bp),
        dt_margin_buying_power: d(if margin { round(cash * 4.0, 2) } else { 0.0 }),
        margin_balance: Decimal::ZERO,
        short_adjust_balance: d(short.abs()),
        regt_equity: d(if margin { equity } else { 0.0 }),
        regt_equity_percent: d(if margin && long > 0.0 {
            pct(equity, long)
        } else {
            0.0
        }),
        margin,
        real_time: real_time.then(|| RealTimeValues {
            total_account_value: d(equity),
            net_mv: d(net_mv),
            net_mv_long: d(long),
            net_mv_short: d(short),
        }),
    };
    ok_json(&answers::balance::balance(&figures, NumberStyle::Float))
}

/// The largest `count` the fake serves (etrade-cli found 65535 accepted); above → 500.
const MAX_PORTFOLIO_COUNT: usize = 65535;

struct PortfolioQuery {
    count: usize,
    page: usize,
    sort_by: Option<String>,
    descending: bool,
    totals: bool,
    lots: bool,
    view: String,
}

fn portfolio_query(q: &HashMap<String, String>) -> Result<PortfolioQuery, Response> {
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
    Ok(PortfolioQuery {
        count,
        page,
        sort_by,
        descending,
        totals: bool_param(q, "totalsRequired", false)?,
        lots: bool_param(q, "lotsRequired", false)?,
        view,
    })
}

fn lot_figures(p: &PositionFixture, now_s: i64) -> LotFigures {
    let d = from_f64;
    let qty = p.quantity;
    LotFigures {
        position_id: p.position_id,
        lot_id: p.position_id * 100 + 1,
        price: d(p.price_paid),
        long_term: now_s * 1000 - p.date_acquired > 365 * 86_400_000,
        days_gain: d(p.days_gain()),
        days_gain_pct: d(p.change_pct()),
        market_value: d(p.market_value()),
        total_cost: d(p.total_cost()),
        total_cost_for_gain_pct: d(p.total_cost()),
        total_gain: d(p.total_gain()),
        original_qty: d(qty),
        remaining_qty: d(qty),
        order_no: 0,
        leg_no: 0,
        acquired_ms: p.date_acquired,
        comm_per_share: d(if qty == 0.0 {
            0.0
        } else {
            round(p.commissions / qty.abs(), 4)
        }),
    }
}

/// An option's COMPLETE view also carries greeks. The delta is a fixed figure by moneyness
/// (in the money ±0.65, out ±0.35): tests need a delta, not a model.
fn greeks(p: &PositionFixture) -> Option<PositionGreeks> {
    let o = p.option.as_ref()?;
    let call = o.call_put == "CALL";
    let in_the_money = if call {
        o.underlier_price > o.strike_price
    } else {
        o.underlier_price < o.strike_price
    };
    let size = if in_the_money { 0.65 } else { 0.35 };
    Some(PositionGreeks {
        delta: from_f64(if call { size } else { -size }),
        gamma: from_f64(0.02),
        theta: from_f64(-0.05),
        vega: from_f64(0.11),
        rho: None,
        iv_pct: from_f64(27.5),
    })
}

fn position_figures<'a>(
    a: &'a AccountFixture,
    p: &PositionFixture,
    total_mv: f64,
    now_s: i64,
) -> PositionFigures<'a> {
    let d = from_f64;
    let base_price = p
        .option
        .as_ref()
        .map_or(p.last_trade, |o| o.underlier_price);
    PositionFigures {
        position_id: p.position_id,
        account_id: &a.account_id,
        account_key: &a.account_id_key,
        instrument: p.instrument(),
        symbol_description: p.symbol_description.clone(),
        date_acquired_ms: p.date_acquired,
        quantity: d(p.quantity),
        price_paid: d(p.price_paid),
        last: d(p.last_trade),
        prev_close: d(p.previous_close),
        volume: u64::try_from(p.volume).unwrap_or(0),
        commissions: d(p.commissions),
        change: d(p.change()),
        change_pct: d(p.change_pct()),
        days_gain: d(p.days_gain()),
        market_value: d(p.market_value()),
        total_cost: d(p.total_cost()),
        total_gain: d(p.total_gain()),
        total_gain_pct: d(pct(p.total_gain(), p.total_cost())),
        pct_of_portfolio: d(pct(p.market_value(), total_mv)),
        base_symbol_and_price: format!("{} {:.2}", p.symbol, base_price),
        greeks: greeks(p),
        quote: Some(QuoteExtras {
            bid: d(round(p.last_trade - 0.05, 2)),
            ask: d(round(p.last_trade + 0.05, 2)),
            pe_ratio: d(p.pe_ratio),
            eps: d(p.eps),
            dividend: d(p.dividend),
            div_yield: d(p.div_yield),
            market_cap: d(p.market_cap),
            week52_low: d(p.week52_low),
            week52_high: d(p.week52_high),
        }),
        lots: vec![lot_figures(p, now_s)],
    }
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

/// `GET /v1/accounts/{key}/portfolio` with `count`/`pageNumber` paging.
pub(crate) async fn portfolio(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    Query(q): Params,
) -> Response {
    let now_s = s.now().as_second();
    let inner = s.lock();
    let Some(a) = inner.fixtures.account_by_key(&key) else {
        return unknown_account();
    };
    let pq = match portfolio_query(&q) {
        Ok(pq) => pq,
        Err(r) => return r,
    };
    let total_mv: f64 = a
        .positions
        .iter()
        .map(|p| p.market_value().abs())
        .sum::<f64>();
    let totals = pq.totals.then(|| {
        let todays: f64 = a.positions.iter().map(PositionFixture::days_gain).sum();
        let mv = a.net_market_value();
        let cost: f64 = a.positions.iter().map(PositionFixture::total_cost).sum();
        let gain = round(mv - cost, 2);
        PortfolioTotals {
            todays_gain_loss: from_f64(round(todays, 2)),
            todays_gain_loss_pct: from_f64(pct(todays, mv - todays)),
            total_market_value: from_f64(mv),
            total_gain_loss: from_f64(gain),
            total_gain_loss_pct: from_f64(pct(gain, cost)),
            total_price_paid: from_f64(round(cost, 2)),
            cash_balance: from_f64(a.cash_balance),
        }
    });
    let figures: Vec<PositionFigures<'_>> = a
        .positions
        .iter()
        .map(|p| position_figures(a, p, total_mv, now_s))
        .collect();
    let page = PortfolioPage {
        view: &pq.view,
        sort_by: pq.sort_by.as_deref(),
        descending: pq.descending,
        count: pq.count,
        page: pq.page,
        lots: pq.lots,
    };
    let style = Style {
        numbers: NumberStyle::Float,
        base_url: &s.base_url,
    };
    match answers::portfolio::portfolio(
        &a.account_id,
        figures,
        &page,
        totals.as_ref(),
        now_s,
        style,
        |n| {
            let url = format!("{}/v1/accounts/{}/portfolio", s.base_url, a.account_id_key);
            next_link(url, &q, "pageNumber", &n.to_string())
        },
    ) {
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
    let inner = s.lock();
    let Some(a) = inner.fixtures.account_by_key(&key) else {
        return unknown_account();
    };
    let Some(p) = position_id
        .parse::<i64>()
        .ok()
        .and_then(|id| a.positions.iter().find(|p| p.position_id == id))
    else {
        return responses::api_error(StatusCode::BAD_REQUEST, 1, "Invalid position id.");
    };
    ok_json(&answers::portfolio::position_lots(
        &[lot_figures(p, now_s)],
        NumberStyle::Float,
    ))
}

/// The most transactions one page may hold; above → 500 (as E*TRADE answers).
const MAX_TRANSACTION_COUNT: usize = 50;

/// `MMDDYYYY` → a civil date.
fn mmddyyyy(name: &str, v: &str) -> Result<jiff::civil::Date, Response> {
    query_params::mmddyyyy(v).ok_or_else(|| invalid_param(name))
}

fn utc_day(ms: i64) -> Option<jiff::civil::Date> {
    jiff::Timestamp::from_millisecond(ms)
        .ok()
        .map(|t| jiff::tz::TimeZone::UTC.to_datetime(t).date())
}

fn transaction_entry<'a>(a: &'a AccountFixture, t: &'a TransactionFixture) -> TransactionEntry<'a> {
    let d = from_f64;
    TransactionEntry {
        id: t.transaction_id.clone(),
        account_id: &a.account_id,
        account_key: &a.account_id_key,
        date_ms: t.transaction_date,
        post_ms: t.post_date,
        amount: d(t.amount),
        description: &t.description,
        kind: &t.transaction_type,
        instrument: match (&t.symbol, &t.security_type) {
            (Some(symbol), Some(_)) => Some(Instrument::Equity {
                symbol: symbol.clone(),
            }),
            _ => None,
        },
        quantity: d(t.quantity),
        price: d(t.price),
        fee: d(t.fee),
        settlement_ms: if t.quantity != 0.0 {
            t.transaction_date + 2 * 86_400_000
        } else {
            0
        },
        order_no: (t.order_no != 0).then_some(t.order_no),
    }
}

/// `GET /v1/accounts/{key}/transactions?startDate&endDate&sortOrder&marker&count`
pub(crate) async fn transactions(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    Query(q): Params,
) -> Response {
    let inner = s.lock();
    let Some(a) = inner.fixtures.account_by_key(&key) else {
        return unknown_account();
    };
    let count = match query_params::count(
        q.get("count").map(String::as_str),
        MAX_TRANSACTION_COUNT,
        MAX_TRANSACTION_COUNT,
    ) {
        Ok(n) => n,
        Err(e) => return param_refusal(&e),
    };
    let start = match q
        .get("startDate")
        .map(|v| mmddyyyy("startDate", v))
        .transpose()
    {
        Ok(d) => d,
        Err(r) => return r,
    };
    let end = match q.get("endDate").map(|v| mmddyyyy("endDate", v)).transpose() {
        Ok(d) => d,
        Err(r) => return r,
    };
    if let (Some(st), Some(en)) = (start, end)
        && st > en
    {
        return api_error(
            StatusCode::BAD_REQUEST,
            1,
            "The start date must not be after the end date.",
        );
    }
    let descending = match q.get("sortOrder").map(String::as_str) {
        None | Some("DESC") => true,
        Some("ASC") => false,
        Some(_) => return invalid_param("sortOrder"),
    };
    let mut list: Vec<TransactionEntry<'_>> = a
        .transactions
        .iter()
        .filter(|t| {
            let day = utc_day(t.transaction_date);
            start.is_none_or(|st| day.is_some_and(|d| d >= st))
                && end.is_none_or(|en| day.is_some_and(|d| d <= en))
        })
        .map(|t| transaction_entry(a, t))
        .collect();
    if descending {
        list.reverse();
    }
    let style = Style {
        numbers: NumberStyle::Float,
        base_url: &s.base_url,
    };
    let next = |marker: &str| {
        let url = format!(
            "{}/v1/accounts/{}/transactions",
            s.base_url, a.account_id_key
        );
        next_link(url, &q, "marker", marker)
    };
    match transaction_page(
        &list,
        q.get("marker").map(String::as_str),
        count,
        style,
        next,
    ) {
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
    let inner = s.lock();
    let Some(a) = inner.fixtures.account_by_key(&key) else {
        return unknown_account();
    };
    if let Some(v) = q.get("storeId")
        && v.parse::<u32>().is_err()
    {
        return invalid_param("storeId");
    }
    let Some(t) = a
        .transactions
        .iter()
        .find(|t| t.transaction_id == transaction_id)
    else {
        return api_error(
            StatusCode::NOT_FOUND,
            1,
            "No transaction found for this id.",
        );
    };
    ok_json(&details_answer(
        &transaction_entry(a, t),
        NumberStyle::Float,
    ))
}

//! Accounts: list, balance, portfolio (paged), position lots, transactions (paged by
//! marker, filtered by date) and transaction details.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use runtime::emulation::codes;
use runtime::emulation::query_params::{self, PORTFOLIO_SORT_KEYS, PORTFOLIO_VIEWS};
use runtime::etrade::oauth;
use serde_json::{Map, Value, json};

use crate::fixtures::{AccountFixture, PositionFixture, TransactionFixture, pct, round};
use crate::responses::{self, api_error, invalid_param, no_content, ok_json, param_refusal};
use crate::state::Shared;

type Params = Query<HashMap<String, String>>;

fn account_json(a: &AccountFixture) -> Value {
    json!({
        "accountId": a.account_id,
        "accountIdKey": a.account_id_key,
        "accountMode": a.account_mode,
        "accountDesc": a.account_desc,
        "accountName": a.account_name,
        "accountType": a.account_type,
        "institutionType": a.institution_type,
        "accountStatus": a.account_status,
        "closedDate": a.closed_date,
        "instNo": a.inst_no,
        "shareWorksAccount": false,
        "fcManagedMssbClosedAccount": false,
    })
}

/// `GET /v1/accounts/list`
pub(crate) async fn list(State(s): State<Arc<Shared>>) -> Response {
    let inner = s.lock();
    if inner.fixtures.accounts.is_empty() {
        return no_content();
    }
    let accounts: Vec<Value> = inner.fixtures.accounts.iter().map(account_json).collect();
    ok_json(&json!({"AccountListResponse": {"Accounts": {"Account": accounts}}}))
}

fn unknown_account() -> Response {
    api_error(
        StatusCode::BAD_REQUEST,
        codes::ACCOUNT_KEY,
        codes::ACCOUNT_KEY_MESSAGE,
    )
}

fn bool_param(q: &HashMap<String, String>, name: &str) -> Result<bool, Response> {
    match q.get(name).map(|v| v.to_ascii_lowercase()) {
        None => Ok(false),
        Some(v) if v == "true" => Ok(true),
        Some(v) if v == "false" => Ok(false),
        Some(_) => Err(invalid_param(name)),
    }
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
    let real_time = match bool_param(&q, "realTimeNAV") {
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
    let mut computed = json!({
        "cashAvailableForInvestment": cash,
        "cashAvailableForWithdrawal": cash,
        "totalAvailableForWithdrawal": cash,
        "netCash": cash,
        "cashBalance": cash,
        "settledCashForInvestment": cash,
        "unSettledCashForInvestment": 0,
        "fundsWithheldFromPurchasePower": 0,
        "fundsWithheldFromWithdrawal": 0,
        "marginBuyingPower": margin_bp,
        "cashBuyingPower": cash,
        "dtMarginBuyingPower": if margin { round(cash * 4.0, 2) } else { 0.0 },
        "dtCashBuyingPower": 0,
        "marginBalance": 0,
        "shortAdjustBalance": short.abs(),
        "regtEquity": if margin { equity } else { 0.0 },
        "regtEquityPercent": if margin && long > 0.0 { pct(equity, long) } else { 0.0 },
        "accountBalance": cash,
        "OpenCalls": {"minEquityCall": 0, "fedCall": 0, "cashCall": 0, "houseCall": 0},
    });
    if real_time && let Some(obj) = computed.as_object_mut() {
        obj.insert(
            "RealTimeValues".into(),
            json!({
                "totalAccountValue": equity,
                "netMv": net_mv,
                "netMvLong": long,
                "netMvShort": short,
                "totalLongValue": long,
            }),
        );
    }
    let mut body = json!({
        "accountId": a.account_id,
        "institutionType": a.institution_type,
        "asOfDate": now_ms,
        "accountType": a.account_type,
        "optionLevel": a.option_level,
        "accountDescription": a.account_desc,
        "quoteMode": 6,
        "dayTraderStatus": a.day_trader_status,
        "accountMode": a.account_mode,
        "accountDesc": a.account_desc,
        "Cash": {"fundsForOpenOrdersCash": 0, "moneyMktBalance": a.money_market_balance},
        "Computed": computed,
    });
    if margin && let Some(obj) = body.as_object_mut() {
        obj.insert(
            "Margin".into(),
            json!({"dtCashOpenOrderReserve": 0, "dtMarginOpenOrderReserve": 0}),
        );
    }
    ok_json(&json!({ "BalanceResponse": body }))
}

/// The largest `count` the fake serves (etrade-cli found 65535 accepted); above → 500.
const MAX_PORTFOLIO_COUNT: usize = 65535;

fn compare(sort_by: &str, a: &PositionFixture, b: &PositionFixture) -> Ordering {
    let num = |f: fn(&PositionFixture) -> f64| f(a).total_cmp(&f(b));
    match sort_by {
        "SYMBOL" | "DISPLAY_SYMBOL" => a.display_symbol().cmp(&b.display_symbol()),
        "SYMBOL_DESC" => a.symbol_description.cmp(&b.symbol_description),
        "TYPE_NAME" | "TYPE_CODE" => a.security_type.cmp(&b.security_type),
        "QUANTITY" => num(|p| p.quantity),
        "DATE_ACQUIRED" => a.date_acquired.cmp(&b.date_acquired),
        "PRICEPAID" | "COST_PERSHARE" => num(|p| p.price_paid),
        "TOTAL_GAIN" => num(PositionFixture::total_gain),
        "TOTAL_GAIN_PCT" => num(|p| pct(p.total_gain(), p.total_cost())),
        "MARKET_VALUE" | "PCT_OF_PORTFOLIO" => num(PositionFixture::market_value),
        "TOTAL_COST" => num(PositionFixture::total_cost),
        "PRICE_CHANGE" => num(PositionFixture::change),
        "PRICE_CHANGE_PCT" => num(PositionFixture::change_pct),
        "DAYS_GAIN" => num(PositionFixture::days_gain),
        "DAYS_GAIN_PCT" => num(PositionFixture::change_pct),
        "LAST_TRADE" => num(|p| p.last_trade),
        "PREV_CLOSE" => num(|p| p.previous_close),
        "VOLUME" => a.volume.cmp(&b.volume),
        "COMMISSION" => num(|p| p.commissions),
        _ => Ordering::Equal,
    }
}

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
        totals: bool_param(q, "totalsRequired")?,
        lots: bool_param(q, "lotsRequired")?,
        view,
    })
}

fn product_json(p: &PositionFixture) -> Value {
    match &p.option {
        None => json!({
            "symbol": p.symbol,
            "securityType": p.security_type,
            "expiryYear": 0,
            "expiryMonth": 0,
            "expiryDay": 0,
            "strikePrice": 0,
            "productId": {"symbol": p.symbol, "typeCode": "EQUITY"},
        }),
        Some(o) => json!({
            "symbol": p.symbol,
            "securityType": "OPTN",
            "callPut": o.call_put,
            "expiryYear": o.expiry_year,
            "expiryMonth": o.expiry_month,
            "expiryDay": o.expiry_day,
            "strikePrice": o.strike_price,
            "expiryType": "MONTHLY",
            "productId": {"symbol": o.osi_key(&p.symbol), "typeCode": "OPTION"},
        }),
    }
}

fn quote_symbol(p: &PositionFixture) -> String {
    match &p.option {
        None => p.symbol.clone(),
        Some(o) => format!(
            "{}:{}:{}:{}:{}:{:.6}",
            p.symbol, o.expiry_year, o.expiry_month, o.expiry_day, o.call_put, o.strike_price
        ),
    }
}

fn lot_json(p: &PositionFixture, now_s: i64) -> Value {
    let qty = p.quantity;
    json!({
        "positionId": p.position_id,
        "positionLotId": p.position_id * 100 + 1,
        "price": p.price_paid,
        "termCode": if now_s * 1000 - p.date_acquired > 365 * 86_400_000 { 1 } else { 0 },
        "daysGain": p.days_gain(),
        "daysGainPct": p.change_pct(),
        "marketValue": p.market_value(),
        "totalCost": p.total_cost(),
        "totalCostForGainPct": p.total_cost(),
        "totalGain": p.total_gain(),
        "lotSourceCode": 0,
        "originalQty": qty,
        "remainingQty": qty,
        "availableQty": qty,
        "orderNo": 0,
        "legNo": 0,
        "acquiredDate": p.date_acquired,
        "locationCode": 0,
        "exchangeRate": 1,
        "settlementCurrency": "USD",
        "paymentCurrency": "USD",
        "adjPrice": p.price_paid,
        "commPerShare": if qty == 0.0 { 0.0 } else { round(p.commissions / qty.abs(), 4) },
        "feesPerShare": 0,
        "premiumAdj": 0,
        "shortType": if qty < 0.0 { 1 } else { 0 },
    })
}

/// An option's COMPLETE view also carries greeks and the multiplier. The delta is a fixed
/// figure by moneyness (in the money ±0.65, out ±0.35): tests need a delta, not a model.
fn with_greeks(p: &PositionFixture, mut view: Value) -> Value {
    if let Some(o) = &p.option {
        let call = o.call_put == "CALL";
        let in_the_money = if call {
            o.underlier_price > o.strike_price
        } else {
            o.underlier_price < o.strike_price
        };
        let size = if in_the_money { 0.65 } else { 0.35 };
        view["delta"] = json!(if call { size } else { -size });
        view["gamma"] = json!(0.02);
        view["theta"] = json!(-0.05);
        view["vega"] = json!(0.11);
        view["ivPct"] = json!(27.5);
        view["optionMultiplier"] = json!(100);
    }
    view
}

fn view_json(view: &str, p: &PositionFixture, now_s: i64) -> (&'static str, Value) {
    let base_price = p.option.as_ref().map(|o| o.underlier_price);
    match view {
        "PERFORMANCE" => (
            "Performance",
            json!({
                "change": p.change(),
                "changePct": p.change_pct(),
                "lastTrade": p.last_trade,
                "daysGain": p.days_gain(),
                "totalGain": p.total_gain(),
                "totalGainPct": pct(p.total_gain(), p.total_cost()),
                "marketValue": p.market_value(),
                "quoteStatus": "REALTIME",
                "lastTradeTime": now_s,
            }),
        ),
        "FUNDAMENTAL" => (
            "Fundamental",
            json!({
                "lastTrade": p.last_trade,
                "lastTradeTime": now_s,
                "change": p.change(),
                "changePct": p.change_pct(),
                "peRatio": p.pe_ratio,
                "eps": p.eps,
                "dividend": p.dividend,
                "divYield": p.div_yield,
                "marketCap": p.market_cap,
                "week52Range": format!("{:.2}-{:.2}", p.week52_low, p.week52_high),
                "quoteStatus": "REALTIME",
            }),
        ),
        "OPTIONSWATCH" => (
            "OptionsWatch",
            json!({
                "lastTrade": p.last_trade,
                "lastTradeTime": now_s,
                "baseSymbolAndPrice": format!("{} {:.2}", p.symbol, base_price.unwrap_or(p.last_trade)),
                "premium": if p.option.is_some() { p.last_trade } else { 0.0 },
                "bid": round(p.last_trade - 0.05, 2),
                "ask": round(p.last_trade + 0.05, 2),
                "quoteStatus": "REALTIME",
            }),
        ),
        "COMPLETE" => (
            "Complete",
            with_greeks(
                p,
                json!({
                    "priceAdjustedFlag": false,
                    "price": p.last_trade,
                    "adjPrice": p.last_trade,
                    "change": p.change(),
                    "changePct": p.change_pct(),
                    "prevClose": p.previous_close,
                    "adjPrevClose": p.previous_close,
                    "volume": p.volume,
                    "lastTrade": p.last_trade,
                    "lastTradeTime": now_s,
                    "adjLastTrade": p.last_trade,
                    "symbolDescription": p.symbol_description,
                    "bid": round(p.last_trade - 0.05, 2),
                    "bidSize": 100,
                    "ask": round(p.last_trade + 0.05, 2),
                    "askSize": 200,
                    "week52Low": p.week52_low,
                    "week52High": p.week52_high,
                    "eps": p.eps,
                    "pe": p.pe_ratio,
                    "marketCap": p.market_cap,
                    "dividend": p.dividend,
                    "divYield": p.div_yield,
                    "marginable": p.option.is_none(),
                    "baseSymbolAndPrice": format!("{} {:.2}", p.symbol, base_price.unwrap_or(p.last_trade)),
                    "daysToExpiration": 0,
                    "currency": "USD",
                    "quoteStatus": "REALTIME",
                }),
            ),
        ),
        _ => (
            "Quick",
            json!({
                "lastTrade": p.last_trade,
                "lastTradeTime": now_s,
                "change": p.change(),
                "changePct": p.change_pct(),
                "volume": p.volume,
                "quoteStatus": "REALTIME",
            }),
        ),
    }
}

#[allow(clippy::too_many_arguments)]
fn position_json(
    base: &str,
    a: &AccountFixture,
    p: &PositionFixture,
    total_mv: f64,
    view: &str,
    lots: bool,
    now_s: i64,
) -> Value {
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    put("positionId", json!(p.position_id));
    put("accountId", json!(a.account_id));
    put("Product", product_json(p));
    if let Some(o) = &p.option {
        put("osiKey", json!(o.osi_key(&p.symbol)));
    }
    put("symbolDescription", json!(p.symbol_description));
    put("dateAcquired", json!(p.date_acquired));
    put("pricePaid", json!(p.price_paid));
    put("price", json!(p.last_trade));
    put("commissions", json!(p.commissions));
    put("otherFees", json!(0));
    put("quantity", json!(p.quantity));
    put(
        "positionIndicator",
        json!(if p.quantity < 0.0 { "TYPE5" } else { "TYPE2" }),
    );
    put(
        "positionType",
        json!(if p.quantity < 0.0 { "SHORT" } else { "LONG" }),
    );
    put("change", json!(p.change()));
    put("changePct", json!(p.change_pct()));
    put("daysGain", json!(p.days_gain()));
    put("daysGainPct", json!(p.change_pct()));
    put("marketValue", json!(p.market_value()));
    put("totalCost", json!(p.total_cost()));
    put("totalGain", json!(p.total_gain()));
    put("totalGainPct", json!(pct(p.total_gain(), p.total_cost())));
    put("pctOfPortfolio", json!(pct(p.market_value(), total_mv)));
    put("costPerShare", json!(p.price_paid));
    put("todayCommissions", json!(0));
    put("todayFees", json!(0));
    put("todayPricePaid", json!(0));
    put("todayQuantity", json!(0));
    put("quotestatus", json!("REALTIME"));
    put("dateTimeUTC", json!(now_s));
    put("adjPrevClose", json!(p.previous_close));
    put(
        "lotsDetails",
        json!(format!(
            "{base}/v1/accounts/{}/portfolio/{}",
            a.account_id_key, p.position_id
        )),
    );
    put(
        "quoteDetails",
        json!(format!("{base}/v1/market/quote/{}", quote_symbol(p))),
    );
    let (name, v) = view_json(view, p, now_s);
    put(name, v);
    if lots {
        put("positionLot", json!([lot_json(p, now_s)]));
    }
    Value::Object(m)
}

fn next_url(base: &str, key: &str, q: &HashMap<String, String>, page: usize) -> String {
    let mut pairs: Vec<(String, String)> = q
        .iter()
        .filter(|(k, _)| k.as_str() != "pageNumber")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    pairs.push(("pageNumber".into(), page.to_string()));
    pairs.sort();
    let qs = query_params::query_string(&pairs, oauth::encode);
    format!("{base}/v1/accounts/{key}/portfolio?{qs}")
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
    if a.positions.is_empty() {
        return no_content();
    }
    let mut positions: Vec<&PositionFixture> = a.positions.iter().collect();
    if let Some(sort_by) = &pq.sort_by {
        positions.sort_by(|x, y| {
            let o = compare(sort_by, x, y);
            if pq.descending { o.reverse() } else { o }
        });
    }
    let total_pages = positions.len().div_ceil(pq.count);
    if pq.page > total_pages {
        return no_content();
    }
    let total_mv: f64 = a
        .positions
        .iter()
        .map(|p| p.market_value().abs())
        .sum::<f64>();
    let page: Vec<Value> = positions
        .iter()
        .skip((pq.page - 1) * pq.count)
        .take(pq.count)
        .map(|p| position_json(&s.base_url, a, p, total_mv, &pq.view, pq.lots, now_s))
        .collect();
    let mut ap = json!({
        "accountId": a.account_id,
        "totalPages": total_pages,
        "Position": page,
    });
    if pq.page < total_pages
        && let Some(obj) = ap.as_object_mut()
    {
        obj.insert("nextPageNo".into(), json!((pq.page + 1).to_string()));
        obj.insert(
            "next".into(),
            json!(next_url(&s.base_url, &a.account_id_key, &q, pq.page + 1)),
        );
    }
    let mut body = json!({ "AccountPortfolio": [ap] });
    if pq.totals
        && let Some(obj) = body.as_object_mut()
    {
        let todays: f64 = a.positions.iter().map(PositionFixture::days_gain).sum();
        let mv = a.net_market_value();
        let cost: f64 = a.positions.iter().map(PositionFixture::total_cost).sum();
        let gain = round(mv - cost, 2);
        obj.insert(
            "Totals".into(),
            json!({
                "todaysGainLoss": round(todays, 2),
                "todaysGainLossPct": pct(todays, mv - todays),
                "totalMarketValue": mv,
                "totalGainLoss": gain,
                "totalGainLossPct": pct(gain, cost),
                "totalPricePaid": round(cost, 2),
                "cashBalance": a.cash_balance,
            }),
        );
    }
    ok_json(&json!({ "PortfolioResponse": body }))
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
    ok_json(&json!({"PositionLotsResponse": {"PositionLot": [lot_json(p, now_s)]}}))
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

/// The marker of a page that ends with `t`: `<transactionId>_<epoch seconds>`.
fn marker_of(t: &TransactionFixture) -> String {
    format!("{}_{}", t.transaction_id, t.transaction_date / 1000)
}

fn transaction_product(t: &TransactionFixture) -> Value {
    match (&t.symbol, &t.security_type) {
        (Some(sym), Some(st)) => json!({"symbol": sym, "securityType": st}),
        _ => json!({}),
    }
}

fn transaction_json(base: &str, a: &AccountFixture, t: &TransactionFixture) -> Value {
    json!({
        "transactionId": t.transaction_id,
        "accountId": a.account_id,
        "transactionDate": t.transaction_date,
        "postDate": t.post_date,
        "amount": t.amount,
        "description": t.description,
        "description2": "",
        "transactionType": t.transaction_type,
        "memo": " ",
        "imageFlag": false,
        "instType": "BROKERAGE",
        "storeId": 0,
        "brokerage": {
            "product": transaction_product(t),
            "quantity": t.quantity,
            "price": t.price,
            "settlementCurrency": "USD",
            "paymentCurrency": "USD",
            "fee": t.fee,
            "displaySymbol": t.symbol.clone().unwrap_or_else(|| " ".into()),
            "settlementDate": if t.quantity != 0.0 { t.transaction_date + 2 * 86_400_000 } else { 0 },
        },
        "detailsURI": format!(
            "{base}/v1/accounts/{}/transactions/{}?storeId=0",
            a.account_id_key, t.transaction_id
        ),
    })
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
    let mut list: Vec<&TransactionFixture> = a
        .transactions
        .iter()
        .filter(|t| {
            let day = utc_day(t.transaction_date);
            start.is_none_or(|st| day.is_some_and(|d| d >= st))
                && end.is_none_or(|en| day.is_some_and(|d| d <= en))
        })
        .collect();
    if descending {
        list.reverse();
    }
    let from = match q.get("marker") {
        None => 0,
        Some(m) => match list.iter().position(|t| marker_of(t) == *m) {
            Some(i) => i + 1,
            None => return invalid_param("marker"),
        },
    };
    let page: Vec<&TransactionFixture> = list.iter().skip(from).take(count).copied().collect();
    let Some(last) = page.last() else {
        return no_content();
    };
    let more = from + page.len() < list.len();
    let mut body = json!({
        "moreTransactions": more,
        "transactionCount": page.len(),
        "totalCount": list.len(),
        "Transaction": page
            .iter()
            .map(|t| transaction_json(&s.base_url, a, t))
            .collect::<Vec<_>>(),
    });
    if more && let Some(obj) = body.as_object_mut() {
        let marker = marker_of(last);
        let mut pairs: Vec<(String, String)> = q
            .iter()
            .filter(|(k, _)| k.as_str() != "marker")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        pairs.push(("marker".into(), marker.clone()));
        pairs.sort();
        let qs = query_params::query_string(&pairs, oauth::encode);
        obj.insert(
            "next".into(),
            json!(format!(
                "{}/v1/accounts/{}/transactions?{qs}",
                s.base_url, a.account_id_key
            )),
        );
        obj.insert("marker".into(), json!(marker));
        obj.insert(
            "pageMarkers".into(),
            json!(format!("eNp{}", from + page.len())),
        );
    }
    ok_json(&json!({ "TransactionListResponse": body }))
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
    let category = match t.transaction_type.as_str() {
        "Dividend" => {
            json!({"categoryId": 1, "parentId": 0, "categoryName": "Dividends", "parentName": "Income"})
        }
        "Deposit" => {
            json!({"categoryId": 2, "parentId": 0, "categoryName": "Deposits", "parentName": "Transfers"})
        }
        "Fee" => {
            json!({"categoryId": 3, "parentId": 0, "categoryName": "Fees", "parentName": "Expenses"})
        }
        _ => {
            json!({"categoryId": 4, "parentId": 0, "categoryName": "Trades", "parentName": "Investments"})
        }
    };
    ok_json(&json!({"TransactionDetailsResponse": {
        "transactionId": t.transaction_id,
        "accountId": a.account_id,
        "transactionDate": t.transaction_date,
        "postDate": t.post_date,
        "amount": t.amount,
        "description": t.description,
        "Category": category,
        "Brokerage": {
            "transactionType": t.transaction_type,
            "Product": transaction_product(t),
            "quantity": t.quantity,
            "price": t.price,
            "settlementCurrency": "USD",
            "paymentCurrency": "USD",
            "fee": t.fee,
            "memo": "",
            "checkNo": "",
            "orderNo": if t.order_no == 0 { String::new() } else { t.order_no.to_string() },
        },
    }}))
}

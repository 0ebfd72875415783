//! The E*TRADE-shaped JSON answers (what E*TRADE's HTTP bodies would be), built from the
//! book's records. Money and prices are JSON numbers written from the exact decimals.

use jiff::{SignedDuration, Timestamp};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde_json::{Map, Value, json};

use super::engine::{self, Ctx, Estimate, cents, mark, touch};
use super::request::OrderRequest;
use super::state::{AccountRec, Instrument, OrderRec, PositionRec, State, TransactionRec};
use super::{PaperError, codes};
use crate::trading::calendar::{regular_hours, time_zone, trading_day};

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

pub(crate) fn account_json(a: &AccountRec) -> Value {
    json!({
        "accountId": a.id,
        "accountIdKey": a.key,
        "accountMode": a.mode(),
        "accountDesc": a.account_type(),
        "accountName": a.name,
        "accountType": a.account_type(),
        "institutionType": "BROKERAGE",
        "accountStatus": "ACTIVE",
        "closedDate": 0,
        "instNo": 1,
        "shareWorksAccount": false,
        "fcManagedMssbClosedAccount": false,
    })
}

pub(crate) fn accounts_list(state: &State) -> Result<Value, PaperError> {
    let mut accounts: Vec<&AccountRec> = state.accounts.values().collect();
    if accounts.is_empty() {
        return Err(PaperError::Empty);
    }
    accounts.sort_by_key(|a| a.seq);
    let list: Vec<Value> = accounts.into_iter().map(account_json).collect();
    Ok(json!({"AccountListResponse": {"Accounts": {"Account": list}}}))
}

pub(crate) fn account<'a>(state: &'a State, key: &str) -> Result<&'a AccountRec, PaperError> {
    state
        .accounts
        .get(key)
        .ok_or_else(PaperError::unknown_account)
}

pub(crate) fn option_level(a: &AccountRec) -> (&'static str, i64) {
    if a.margin {
        ("LEVEL_4", 4)
    } else {
        ("LEVEL_2", 2)
    }
}

pub(crate) fn margin_level(a: &AccountRec) -> &'static str {
    if a.margin {
        "MARGIN_TRADING_ALLOWED"
    } else {
        "MARGIN_TRADING_NOT_ALLOWED"
    }
}

pub(crate) fn balance(
    state: &State,
    ctx: &Ctx<'_>,
    key: &str,
    now: Timestamp,
) -> Result<Value, PaperError> {
    let a = account(state, key)?;
    let cash = a.cash;
    let reserve = engine::reserved(state, key, None);
    let (long, short) = engine::market_values(state, ctx, key, now);
    let net_mv = long + short;
    let equity = cents(cash + net_mv);
    let cash_bp = if a.margin {
        cents((cash - reserve).max(Decimal::ZERO))
    } else {
        cents(cash - reserve)
    };
    let margin_bp = if a.margin {
        engine::buying_power(state, ctx, key, None, now).max(Decimal::ZERO)
    } else {
        Decimal::ZERO
    };
    let mut computed = json!({
        "cashAvailableForInvestment": num(cash_bp),
        "cashAvailableForWithdrawal": num(cents(cash.max(Decimal::ZERO))),
        "totalAvailableForWithdrawal": num(cents(cash.max(Decimal::ZERO))),
        "netCash": num(cents(cash)),
        "cashBalance": num(cents(cash)),
        "settledCashForInvestment": num(cash_bp),
        "unSettledCashForInvestment": 0,
        "fundsWithheldFromPurchasePower": num(cents(reserve)),
        "fundsWithheldFromWithdrawal": 0,
        "marginBuyingPower": num(margin_bp),
        "cashBuyingPower": num(cash_bp),
        "dtMarginBuyingPower": if a.margin { num(cents(margin_bp * Decimal::TWO)) } else { json!(0) },
        "dtCashBuyingPower": 0,
        "marginBalance": num(if a.margin && cash.is_sign_negative() { cents(cash) } else { Decimal::ZERO }),
        "shortAdjustBalance": num(cents(short.abs())),
        "regtEquity": num(if a.margin { equity } else { Decimal::ZERO }),
        "regtEquityPercent": num(if a.margin { pct(equity, long - short) } else { Decimal::ZERO }),
        "accountBalance": num(cents(cash)),
        "OpenCalls": {"minEquityCall": 0, "fedCall": 0, "cashCall": 0, "houseCall": 0},
    });
    if let Some(obj) = computed.as_object_mut() {
        obj.insert(
            "RealTimeValues".into(),
            json!({
                "totalAccountValue": num(equity),
                "netMv": num(cents(net_mv)),
                "netMvLong": num(cents(long)),
                "netMvShort": num(cents(short)),
                "totalLongValue": num(cents(long)),
            }),
        );
    }
    let mut body = json!({
        "accountId": a.id,
        "institutionType": "BROKERAGE",
        "asOfDate": ms(now),
        "accountType": a.account_type(),
        "optionLevel": option_level(a).0,
        "accountDescription": a.account_type(),
        "quoteMode": 6,
        "dayTraderStatus": "NO_PDT",
        "accountMode": a.mode(),
        "accountDesc": a.account_type(),
        "Cash": {"fundsForOpenOrdersCash": num(cents(reserve)), "moneyMktBalance": 0},
        "Computed": computed,
    });
    if a.margin
        && let Some(obj) = body.as_object_mut()
    {
        obj.insert(
            "Margin".into(),
            json!({"dtCashOpenOrderReserve": 0, "dtMarginOpenOrderReserve": num(cents(reserve))}),
        );
    }
    Ok(json!({ "BalanceResponse": body }))
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

fn quote_symbol(i: &Instrument) -> String {
    match i {
        Instrument::Equity { symbol } => symbol.clone(),
        Instrument::Option {
            underlying,
            expiry,
            right,
            strike,
        } => format!(
            "{underlying}:{}:{}:{}:{}:{:.6}",
            expiry.year(),
            expiry.month(),
            expiry.day(),
            right.as_str(),
            strike
        ),
    }
}

/// The close of the last regular session before `now`'s trading day.
fn previous_close(now: Timestamp) -> Option<Timestamp> {
    let mut d = trading_day(now).yesterday().ok()?;
    for _ in 0..14 {
        if let Some((_, close)) = regular_hours(d) {
            return close.checked_sub(SignedDuration::from_secs(1)).ok();
        }
        d = d.yesterday().ok()?;
    }
    None
}

/// What a position's answers need from the market.
struct Valued {
    last: Decimal,
    prev_close: Decimal,
    volume: u64,
    market_value: Decimal,
    total_cost: Decimal,
    days_gain: Decimal,
}

fn valued(ctx: &Ctx<'_>, p: &PositionRec, now: Timestamp) -> Valued {
    let quote = touch(ctx.market, &p.instrument, now);
    let qty = p.quantity();
    let mult = p.instrument.multiplier();
    let fallback = p.cost().checked_div(qty * mult).unwrap_or_default().abs();
    let last = quote.as_ref().and_then(mark).unwrap_or(fallback);
    let prev_close = previous_close(now)
        .and_then(|t| touch(ctx.market, &p.instrument, t))
        .as_ref()
        .and_then(mark)
        .unwrap_or(last);
    let market_value = cents(qty * last * mult);
    Valued {
        last,
        prev_close,
        volume: quote.as_ref().map_or(0, |t| t.volume),
        market_value,
        total_cost: cents(p.cost()),
        days_gain: cents(qty * (last - prev_close) * mult),
    }
}

fn lot_json(p: &PositionRec, lot: &super::state::LotRec, v: &Valued, now: Timestamp) -> Value {
    let mult = p.instrument.multiplier();
    let qty = lot.remaining_qty;
    let mv = cents(qty * v.last * mult);
    let cost = cents(lot.cost);
    let long_term = now.duration_since(lot.acquired_at).as_secs() > 365 * 86_400;
    json!({
        "positionId": p.position_id,
        "positionLotId": lot.lot_id,
        "price": num(lot.price),
        "termCode": i64::from(long_term),
        "daysGain": num(cents(qty * (v.last - v.prev_close) * mult)),
        "daysGainPct": num(pct(v.last - v.prev_close, v.prev_close)),
        "marketValue": num(mv),
        "totalCost": num(cost),
        "totalCostForGainPct": num(cost.abs()),
        "totalGain": num(mv - cost),
        "lotSourceCode": 0,
        "originalQty": num(lot.original_qty),
        "remainingQty": num(qty),
        "availableQty": num(qty),
        "orderNo": lot.order_id,
        "legNo": lot.leg_no,
        "acquiredDate": ms(lot.acquired_at),
        "locationCode": 0,
        "exchangeRate": 1,
        "settlementCurrency": "USD",
        "paymentCurrency": "USD",
        "adjPrice": num(lot.price),
        "commPerShare": num(lot.commission.checked_div(qty.abs() * mult).map(|c| c.round_dp(4)).unwrap_or_default()),
        "feesPerShare": 0,
        "premiumAdj": 0,
        "shortType": i64::from(qty.is_sign_negative()),
    })
}

const VIEWS: &[&str] = &[
    "QUICK",
    "PERFORMANCE",
    "FUNDAMENTAL",
    "OPTIONSWATCH",
    "COMPLETE",
];

fn view_json(view: &str, p: &PositionRec, v: &Valued, now: Timestamp) -> (&'static str, Value) {
    let change = v.last - v.prev_close;
    let change_pct = pct(change, v.prev_close);
    let now_s = now.as_second();
    let total_gain = v.market_value - v.total_cost;
    match view {
        "PERFORMANCE" => (
            "Performance",
            json!({"change": num(change), "changePct": num(change_pct), "lastTrade": num(v.last),
                "daysGain": num(v.days_gain), "totalGain": num(total_gain),
                "totalGainPct": num(pct(total_gain, v.total_cost.abs())),
                "marketValue": num(v.market_value), "quoteStatus": "REALTIME", "lastTradeTime": now_s}),
        ),
        "FUNDAMENTAL" => (
            "Fundamental",
            json!({"lastTrade": num(v.last), "lastTradeTime": now_s, "change": num(change),
                "changePct": num(change_pct), "quoteStatus": "REALTIME"}),
        ),
        "OPTIONSWATCH" => (
            "OptionsWatch",
            json!({"lastTrade": num(v.last), "lastTradeTime": now_s,
                "baseSymbolAndPrice": p.instrument.symbol(),
                "premium": if p.instrument.is_option() { num(v.last) } else { json!(0) },
                "quoteStatus": "REALTIME"}),
        ),
        "COMPLETE" => (
            "Complete",
            json!({"priceAdjustedFlag": false, "price": num(v.last), "adjPrice": num(v.last),
                "change": num(change), "changePct": num(change_pct), "prevClose": num(v.prev_close),
                "adjPrevClose": num(v.prev_close), "volume": v.volume, "lastTrade": num(v.last),
                "lastTradeTime": now_s, "adjLastTrade": num(v.last),
                "symbolDescription": p.instrument.display(), "currency": "USD",
                "quoteStatus": "REALTIME"}),
        ),
        _ => (
            "Quick",
            json!({"lastTrade": num(v.last), "lastTradeTime": now_s, "change": num(change),
                "changePct": num(change_pct), "volume": v.volume, "quoteStatus": "REALTIME"}),
        ),
    }
}

fn position_json(
    a: &AccountRec,
    p: &PositionRec,
    v: &Valued,
    total_mv: Decimal,
    view: &str,
    lots: bool,
    now: Timestamp,
) -> Value {
    let qty = p.quantity();
    let mult = p.instrument.multiplier();
    let total_gain = v.market_value - v.total_cost;
    let price_paid = p
        .cost()
        .checked_div(qty * mult)
        .map(|x| x.abs().round_dp(4))
        .unwrap_or_default();
    let mut m = Map::new();
    let mut put = |k: &str, x: Value| {
        m.insert(k.to_string(), x);
    };
    put("positionId", json!(p.position_id));
    put("accountId", json!(a.id));
    put("Product", product_json(&p.instrument, true));
    if let Some(osi) = p.instrument.osi_key() {
        put("osiKey", json!(osi));
    }
    put("symbolDescription", json!(p.instrument.display()));
    put("dateAcquired", json!(p.acquired_at().map_or(0, ms)));
    put("pricePaid", num(price_paid));
    put("price", num(v.last));
    put("commissions", num(cents(p.commissions())));
    put("otherFees", json!(0));
    put("quantity", num(qty));
    let short = qty.is_sign_negative();
    put(
        "positionIndicator",
        json!(if short { "TYPE5" } else { "TYPE2" }),
    );
    put("positionType", json!(if short { "SHORT" } else { "LONG" }));
    put("change", num(v.last - v.prev_close));
    put("changePct", num(pct(v.last - v.prev_close, v.prev_close)));
    put("daysGain", num(v.days_gain));
    put("daysGainPct", num(pct(v.last - v.prev_close, v.prev_close)));
    put("marketValue", num(v.market_value));
    put("totalCost", num(v.total_cost));
    put("totalGain", num(total_gain));
    put("totalGainPct", num(pct(total_gain, v.total_cost.abs())));
    put("pctOfPortfolio", num(pct(v.market_value.abs(), total_mv)));
    put("costPerShare", num(price_paid));
    put("todayCommissions", json!(0));
    put("todayFees", json!(0));
    put("todayPricePaid", json!(0));
    put("todayQuantity", json!(0));
    put("quotestatus", json!("REALTIME"));
    put("dateTimeUTC", json!(now.as_second()));
    put("adjPrevClose", num(v.prev_close));
    put(
        "lotsDetails",
        json!(format!(
            "{BASE_URL}/v1/accounts/{}/portfolio/{}",
            a.key, p.position_id
        )),
    );
    put(
        "quoteDetails",
        json!(format!(
            "{BASE_URL}/v1/market/quote/{}",
            quote_symbol(&p.instrument)
        )),
    );
    let (name, x) = view_json(view, p, v, now);
    put(name, x);
    if lots {
        put(
            "positionLot",
            Value::Array(p.lots.iter().map(|l| lot_json(p, l, v, now)).collect()),
        );
    }
    Value::Object(m)
}

pub(crate) fn portfolio(
    state: &State,
    ctx: &Ctx<'_>,
    key: &str,
    q: &[(&str, String)],
    now: Timestamp,
) -> Result<Value, PaperError> {
    let a = account(state, key)?;
    let count = count_param(q, 50, 65_535)?;
    let page = match query(q, "pageNumber") {
        None => 1,
        Some(v) => match v.trim().parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => return Err(invalid_param("pageNumber")),
        },
    };
    let descending = match query(q, "sortOrder") {
        None | Some("DESC") => true,
        Some("ASC") => false,
        Some(_) => return Err(invalid_param("sortOrder")),
    };
    match query(q, "marketSession") {
        None | Some("REGULAR" | "EXTENDED") => {}
        Some(_) => return Err(invalid_param("marketSession")),
    }
    let view = match query(q, "view") {
        None => "QUICK",
        Some(v) if VIEWS.contains(&v) => v,
        Some(_) => return Err(invalid_param("view")),
    };
    let sort_by = query(q, "sortBy");
    if sort_by.is_some_and(|s| {
        s.trim().is_empty()
            || !s
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    }) {
        return Err(invalid_param("sortBy"));
    }
    let totals = bool_param(q, "totalsRequired")?;
    let lots = bool_param(q, "lotsRequired")?;
    let mut positions: Vec<(&PositionRec, Valued)> = state
        .positions
        .values()
        .filter(|p| p.account_key == key)
        .map(|p| (p, valued(ctx, p, now)))
        .collect();
    if positions.is_empty() {
        return Err(PaperError::Empty);
    }
    if let Some(sort_by) = sort_by {
        positions.sort_by(|(p1, v1), (p2, v2)| {
            let o = match sort_by {
                "SYMBOL" | "DISPLAY_SYMBOL" | "SYMBOL_DESC" => {
                    p1.instrument.display().cmp(&p2.instrument.display())
                }
                "QUANTITY" => p1.quantity().cmp(&p2.quantity()),
                "DATE_ACQUIRED" => p1.acquired_at().cmp(&p2.acquired_at()),
                "MARKET_VALUE" | "PCT_OF_PORTFOLIO" => v1.market_value.cmp(&v2.market_value),
                "TOTAL_COST" => v1.total_cost.cmp(&v2.total_cost),
                "TOTAL_GAIN" => {
                    (v1.market_value - v1.total_cost).cmp(&(v2.market_value - v2.total_cost))
                }
                "DAYS_GAIN" => v1.days_gain.cmp(&v2.days_gain),
                "LAST_TRADE" => v1.last.cmp(&v2.last),
                _ => std::cmp::Ordering::Equal,
            };
            if descending { o.reverse() } else { o }
        });
    }
    let total_pages = positions.len().div_ceil(count);
    if page > total_pages {
        return Err(PaperError::Empty);
    }
    let total_mv: Decimal = positions.iter().map(|(_, v)| v.market_value.abs()).sum();
    let items: Vec<Value> = positions
        .iter()
        .skip((page - 1) * count)
        .take(count)
        .map(|(p, v)| position_json(a, p, v, total_mv, view, lots, now))
        .collect();
    let mut ap = json!({"accountId": a.id, "totalPages": total_pages, "Position": items});
    if page < total_pages
        && let Some(obj) = ap.as_object_mut()
    {
        obj.insert("nextPageNo".into(), json!((page + 1).to_string()));
        let mut pairs: Vec<(String, String)> = q
            .iter()
            .filter(|(k, _)| *k != "pageNumber")
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        pairs.push(("pageNumber".into(), (page + 1).to_string()));
        obj.insert(
            "next".into(),
            json!(format!(
                "{BASE_URL}/v1/accounts/{}/portfolio?{}",
                a.key,
                query_string(&pairs)
            )),
        );
    }
    let mut body = json!({ "AccountPortfolio": [ap] });
    if totals && let Some(obj) = body.as_object_mut() {
        let mv: Decimal = positions.iter().map(|(_, v)| v.market_value).sum();
        let cost: Decimal = positions.iter().map(|(_, v)| v.total_cost).sum();
        let todays: Decimal = positions.iter().map(|(_, v)| v.days_gain).sum();
        obj.insert(
            "Totals".into(),
            json!({
                "todaysGainLoss": num(cents(todays)),
                "todaysGainLossPct": num(pct(todays, mv - todays)),
                "totalMarketValue": num(cents(mv)),
                "totalGainLoss": num(cents(mv - cost)),
                "totalGainLossPct": num(pct(mv - cost, cost.abs())),
                "totalPricePaid": num(cents(cost)),
                "cashBalance": num(cents(a.cash)),
            }),
        );
    }
    Ok(json!({ "PortfolioResponse": body }))
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

pub(crate) fn position_lots(
    state: &State,
    ctx: &Ctx<'_>,
    key: &str,
    position_id: i64,
    now: Timestamp,
) -> Result<Value, PaperError> {
    account(state, key)?;
    let Some(p) = state
        .positions
        .get(&position_id)
        .filter(|p| p.account_key == key)
    else {
        return Err(PaperError::rejected(
            codes::INVALID_PARAMETER,
            "Invalid position id.",
        ));
    };
    let v = valued(ctx, p, now);
    let lots: Vec<Value> = p.lots.iter().map(|l| lot_json(p, l, &v, now)).collect();
    Ok(json!({"PositionLotsResponse": {"PositionLot": lots}}))
}

fn marker_of(t: &TransactionRec) -> String {
    format!("{}_{}", t.transaction_id, t.at.as_second())
}

fn transaction_product(t: &TransactionRec) -> Value {
    t.instrument
        .as_ref()
        .map_or_else(|| json!({}), |i| product_json(i, false))
}

fn transaction_json(a: &AccountRec, t: &TransactionRec) -> Value {
    let display = t
        .instrument
        .as_ref()
        .map_or_else(|| " ".to_string(), Instrument::display);
    let settlement = if t.instrument.is_some() {
        ms(t.at) + 86_400_000
    } else {
        0
    };
    json!({
        "transactionId": t.transaction_id.to_string(),
        "accountId": a.id,
        "transactionDate": ms(t.at),
        "postDate": ms(t.at),
        "amount": num(t.amount),
        "description": t.description,
        "description2": "",
        "transactionType": t.kind.as_str(),
        "memo": " ",
        "imageFlag": false,
        "instType": "BROKERAGE",
        "storeId": 0,
        "brokerage": {
            "transactionType": t.kind.as_str(),
            "product": transaction_product(t),
            "quantity": num(t.quantity),
            "price": num(t.price),
            "settlementCurrency": "USD",
            "paymentCurrency": "USD",
            "fee": num(t.fee),
            "displaySymbol": display,
            "settlementDate": settlement,
        },
        "detailsURI": format!(
            "{BASE_URL}/v1/accounts/{}/transactions/{}?storeId=0",
            a.key, t.transaction_id
        ),
    })
}

pub(crate) fn transactions(
    state: &State,
    key: &str,
    q: &[(&str, String)],
) -> Result<Value, PaperError> {
    let a = account(state, key)?;
    let count = count_param(q, 50, 50)?;
    let start = query(q, "startDate")
        .map(|v| mmddyyyy("startDate", v))
        .transpose()?;
    let end = query(q, "endDate")
        .map(|v| mmddyyyy("endDate", v))
        .transpose()?;
    if let (Some(s), Some(e)) = (start, end)
        && s > e
    {
        return Err(PaperError::rejected(
            codes::INVALID_PARAMETER,
            "The start date must not be after the end date.",
        ));
    }
    let descending = match query(q, "sortOrder") {
        None | Some("DESC") => true,
        Some("ASC") => false,
        Some(_) => return Err(invalid_param("sortOrder")),
    };
    let tz = time_zone();
    let mut list: Vec<&TransactionRec> = state
        .transactions
        .values()
        .filter(|t| t.account_key == key)
        .filter(|t| {
            let day = tz.to_datetime(t.at).date();
            start.is_none_or(|s| day >= s) && end.is_none_or(|e| day <= e)
        })
        .collect();
    list.sort_by_key(|t| (t.at, t.transaction_id));
    if descending {
        list.reverse();
    }
    let from = match query(q, "marker") {
        None => 0,
        Some(m) => match list.iter().position(|t| marker_of(t) == m) {
            Some(i) => i + 1,
            None => return Err(invalid_param("marker")),
        },
    };
    let page: Vec<&TransactionRec> = list.iter().skip(from).take(count).copied().collect();
    let Some(last) = page.last() else {
        return Err(PaperError::Empty);
    };
    let more = from + page.len() < list.len();
    let mut body = json!({
        "moreTransactions": more,
        "transactionCount": page.len(),
        "totalCount": list.len(),
        "Transaction": page.iter().map(|t| transaction_json(a, t)).collect::<Vec<_>>(),
    });
    if more && let Some(obj) = body.as_object_mut() {
        let marker = marker_of(last);
        let mut pairs: Vec<(String, String)> = q
            .iter()
            .filter(|(k, _)| *k != "marker")
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        pairs.push(("marker".into(), marker.clone()));
        obj.insert(
            "next".into(),
            json!(format!(
                "{BASE_URL}/v1/accounts/{}/transactions?{}",
                a.key,
                query_string(&pairs)
            )),
        );
        obj.insert("marker".into(), json!(marker));
        obj.insert(
            "pageMarkers".into(),
            json!(format!("eNp{}", from + page.len())),
        );
    }
    Ok(json!({ "TransactionListResponse": body }))
}

pub(crate) fn transaction_details(
    state: &State,
    key: &str,
    transaction_id: i64,
) -> Result<Value, PaperError> {
    let a = account(state, key)?;
    let Some(t) = state
        .transactions
        .get(&transaction_id)
        .filter(|t| t.account_key == key)
    else {
        return Err(PaperError::Rejected {
            status: 404,
            code: codes::INVALID_PARAMETER,
            message: "No transaction found for this id.".into(),
        });
    };
    let category = match t.kind {
        super::state::TxKind::Deposit => {
            json!({"categoryId": 2, "parentId": 0, "categoryName": "Deposits", "parentName": "Transfers"})
        }
        _ => {
            json!({"categoryId": 4, "parentId": 0, "categoryName": "Trades", "parentName": "Investments"})
        }
    };
    Ok(json!({"TransactionDetailsResponse": {
        "transactionId": t.transaction_id.to_string(),
        "accountId": a.id,
        "transactionDate": ms(t.at),
        "postDate": ms(t.at),
        "amount": num(t.amount),
        "description": t.description,
        "Category": category,
        "Brokerage": {
            "transactionType": t.kind.as_str(),
            "Product": transaction_product(t),
            "quantity": num(t.quantity),
            "price": num(t.price),
            "settlementCurrency": "USD",
            "paymentCurrency": "USD",
            "fee": num(t.fee),
            "memo": "",
            "checkNo": "",
            "orderNo": t.order_id.map(|o| o.to_string()).unwrap_or_default(),
        },
    }}))
}

/// Cursor of an offset into the sorted order list.
fn order_marker(offset: usize) -> String {
    format!("eNp{:06x}Q", offset ^ 0x5a5a5)
}

fn order_offset(marker: &str) -> Option<usize> {
    let hex = marker.strip_prefix("eNp")?.strip_suffix('Q')?;
    usize::from_str_radix(hex, 16).ok().map(|x| x ^ 0x5a5a5)
}

fn list_transaction_type(o: &OrderRec) -> &'static str {
    match o.legs.first().map(|l| l.action) {
        Some(
            super::state::Action::Sell
            | super::state::Action::SellClose
            | super::state::Action::SellOpen,
        ) => "SELL",
        Some(super::state::Action::SellShort) => "SELL_SHORT",
        Some(super::state::Action::BuyToCover) => "BUY_TO_COVER",
        _ => "BUY",
    }
}

fn order_instruments(o: &OrderRec) -> Vec<Value> {
    o.legs
        .iter()
        .map(|l| {
            let mut i = json!({
                "symbolDescription": l.instrument.display(),
                "orderAction": l.action.as_str(),
                "quantityType": "QUANTITY",
                "orderedQuantity": num(l.quantity),
                "filledQuantity": num(l.filled),
                "cancelQuantity": num(if matches!(o.status, super::state::Status::Cancelled | super::state::Status::Expired) { l.remaining() } else { Decimal::ZERO }),
                "estimatedCommission": num(if l.filled.is_zero() { o.est_commission } else { o.commission_paid }),
                "estimatedFees": num(o.fees_paid),
                "Product": product_json(&l.instrument, false),
            });
            if let Some(m) = i.as_object_mut() {
                if let Some(avg) = l.fill_value.checked_div(l.filled) {
                    m.insert("averageExecutionPrice".into(), num(avg.round_dp(4)));
                }
                if let Some(osi) = l.instrument.osi_key() {
                    m.insert("osiKey".into(), json!(osi));
                }
            }
            i
        })
        .collect()
}

pub(crate) fn order_json(a: &AccountRec, o: &OrderRec) -> Value {
    let r = &o.request;
    let instruments = order_instruments(o);
    let mut detail = json!({
        "orderNumber": 1,
        "accountId": a.id,
        "previewTime": ms(o.preview_at),
        "placedTime": ms(o.placed_at),
        "orderValue": num(o.est_value),
        "status": o.status.as_str(),
        "orderTerm": r.order_term,
        "priceType": r.price_type,
        "limitPrice": num(r.limit_price.unwrap_or_default()),
        "stopPrice": num(r.stop_price.unwrap_or_default()),
        "marketSession": r.market_session,
        "allOrNone": r.all_or_none,
        "previewId": o.preview_id,
        "netPrice": 0, "netBid": 0, "netAsk": 0, "gcd": 0, "ratio": "",
        "Instrument": instruments.clone(),
    });
    if let Some(m) = detail.as_object_mut() {
        if let Some(t) = o.executed_at {
            m.insert("executedTime".into(), json!(ms(t)));
        }
        if let Some(id) = o.replaces {
            m.insert("replacesOrderId".into(), json!(id));
        }
        if let Some(id) = o.replaced_by {
            m.insert("replacedByOrderId".into(), json!(id));
        }
        if o.stop_triggered_at.is_some() {
            m.insert("triggerPrice".into(), num(r.stop_price.unwrap_or_default()));
        }
    }
    let events: Vec<Value> = o
        .events
        .iter()
        .map(|e| json!({"name": e.name, "dateTime": ms(e.at), "orderNumber": 1, "Instrument": instruments.clone()}))
        .collect();
    let commission = if o.commission_paid.is_zero() {
        o.est_commission
    } else {
        o.commission_paid
    };
    json!({
        "orderId": o.order_id,
        "details": format!("{BASE_URL}/v1/accounts/{}/orders/{}.json", a.key, o.order_id),
        "orderType": r.order_type,
        "totalOrderValue": num(o.est_value),
        "totalCommission": num(commission),
        "OrderDetail": [detail],
        "Events": {"Event": events},
    })
}

const ORDER_STATUSES: &[&str] = &[
    "OPEN",
    "EXECUTED",
    "CANCELLED",
    "INDIVIDUAL_FILLS",
    "CANCEL_REQUESTED",
    "EXPIRED",
    "REJECTED",
];

pub(crate) fn orders(state: &State, key: &str, q: &[(&str, String)]) -> Result<Value, PaperError> {
    let a = account(state, key)?;
    let count = count_param(q, 25, 100)?;
    let start = match query(q, "marker") {
        None => 0,
        Some(m) => order_offset(m).ok_or_else(|| invalid_param("marker"))?,
    };
    let status = query(q, "status");
    if status.is_some_and(|s| !ORDER_STATUSES.contains(&s)) {
        return Err(invalid_param("status"));
    }
    let from = query(q, "fromDate")
        .map(|v| mmddyyyy("fromDate", v))
        .transpose()?;
    let to = query(q, "toDate")
        .map(|v| mmddyyyy("toDate", v))
        .transpose()?;
    match (from, to) {
        (None, None) => {}
        (Some(f), Some(t)) if f <= t => {}
        (Some(_), _) => return Err(invalid_param("fromDate")),
        (None, _) => return Err(invalid_param("toDate")),
    }
    let symbols: Option<Vec<String>> = query(q, "symbol").map(|v| {
        v.split(',')
            .map(|x| x.trim().to_ascii_uppercase())
            .filter(|x| !x.is_empty())
            .collect()
    });
    if symbols.as_ref().is_some_and(|s| s.len() > 25) {
        return Err(invalid_param("symbol"));
    }
    let sec_type = query(q, "securityType");
    if sec_type.is_some_and(|v| !["EQ", "OPTN", "MF", "MMF"].contains(&v)) {
        return Err(invalid_param("securityType"));
    }
    let tx = query(q, "transactionType");
    if tx.is_some_and(|v| {
        ![
            "ATNM",
            "BUY",
            "SELL",
            "SELL_SHORT",
            "BUY_TO_COVER",
            "MF_EXCHANGE",
        ]
        .contains(&v)
    }) {
        return Err(invalid_param("transactionType"));
    }
    let session = query(q, "marketSession");
    if session.is_some_and(|v| !["REGULAR", "EXTENDED"].contains(&v)) {
        return Err(invalid_param("marketSession"));
    }
    let tz = time_zone();
    let mut list: Vec<&OrderRec> = state
        .orders
        .values()
        .filter(|o| o.account_key == key)
        .filter(|o| status.is_none_or(|s| o.status.as_str() == s))
        .filter(|o| {
            let day = tz.to_datetime(o.placed_at).date();
            from.is_none_or(|f| day >= f) && to.is_none_or(|t| day <= t)
        })
        .filter(|o| {
            symbols.as_ref().is_none_or(|syms| {
                o.legs
                    .iter()
                    .any(|l| syms.iter().any(|s| s == l.instrument.symbol()))
            })
        })
        .filter(|o| {
            sec_type.is_none_or(|t| o.legs.iter().any(|l| l.instrument.security_type() == t))
        })
        .filter(|o| tx.is_none_or(|t| t == "ATNM" || list_transaction_type(o) == t))
        .filter(|o| session.is_none_or(|m| o.request.market_session == m))
        .collect();
    list.sort_by_key(|o| {
        (
            std::cmp::Reverse(o.placed_at),
            std::cmp::Reverse(o.order_id),
        )
    });
    if start >= list.len() {
        return Err(PaperError::Empty);
    }
    let end = (start + count).min(list.len());
    let page: Vec<Value> = list
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .map(|o| order_json(a, o))
        .collect();
    let mut body = json!({ "Order": page });
    if end < list.len()
        && let Some(m) = body.as_object_mut()
    {
        let next = order_marker(end);
        m.insert(
            "next".into(),
            json!(format!(
                "{BASE_URL}/v1/accounts/{}/orders?count={count}&marker={next}",
                a.key
            )),
        );
        m.insert("marker".into(), json!(next));
    }
    Ok(json!({ "OrdersResponse": body }))
}

pub(crate) fn message(code: i64, description: &str) -> Value {
    json!({"description": description, "code": code, "type": "WARNING"})
}

/// The `Order[]` entry of a preview or place answer.
pub(crate) fn echo_order(r: &OrderRequest, est: &Estimate, messages: &[Value]) -> Value {
    let instruments: Vec<Value> = r
        .legs
        .iter()
        .map(|l| {
            json!({"symbolDescription": l.instrument.display(), "orderAction": l.action.as_str(),
                "quantityType": "QUANTITY", "quantity": num(l.quantity), "cancelQuantity": 0,
                "reserveOrder": true, "reserveQuantity": 0,
                "Product": product_json(&l.instrument, false)})
        })
        .collect();
    let mut o = Map::new();
    o.insert("orderTerm".into(), json!(r.order_term));
    o.insert("priceType".into(), json!(r.price_type));
    if let Some(p) = r.limit_price {
        o.insert("limitPrice".into(), num(p));
    }
    if let Some(p) = r.stop_price {
        o.insert("stopPrice".into(), num(p));
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
    o.insert("estimatedCommission".into(), num(est.commission));
    o.insert("estimatedTotalAmount".into(), num(est.total()));
    for k in ["netPrice", "netBid", "netAsk", "gcd"] {
        o.insert(k.into(), json!(0));
    }
    o.insert("ratio".into(), json!(""));
    o.insert("Instrument".into(), Value::Array(instruments));
    Value::Object(o)
}

pub(crate) fn dst(now: Timestamp) -> bool {
    time_zone().to_offset_info(now).dst().is_dst()
}

pub(crate) fn disclosure(r: &OrderRequest) -> Value {
    json!({"ehDisclosureFlag": r.extended(), "ahDisclosureFlag": false,
        "conditionalDisclosureFlag": true, "aoDisclosureFlag": r.all_or_none})
}

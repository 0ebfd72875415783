//! Market: quotes (symbol limits, per-symbol problems, detail flags), product lookup,
//! option chains (with greeks) and option expiry dates.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use jiff::civil::{Date, Weekday};
use serde_json::Value;

use runtime::emulation::answers::chains::{
    ChainSide, ChainType, expire_dates, option_chain, option_pair,
};
use runtime::emulation::answers::lookup::{
    LookupEntry, lookup_response, name_matches, search_words,
};
use runtime::emulation::answers::quotes::{
    DetailFlag, EquityQuote, ExtendedHours, FundDetail, OptionQuote, QuoteHeader, bad_symbol,
    quote_response,
};
use runtime::emulation::json_number::{from_f64, to_f64};
use runtime::emulation::option_model::{black_scholes, greeks_json, money, smile};
use runtime::emulation::{Instrument, Right, answers};
use rust_decimal::Decimal;

use crate::api::bool_param;
use crate::fixtures::round;
use crate::fixtures_market::{LOOKUP_EXTRA, QUOTES, QuoteFx, quote_fx};
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

/// A quoted security: a table entry or a synthesized plain equity.
struct Sec {
    symbol: String,
    name: String,
    security_type: &'static str,
    exchange: &'static str,
    last: f64,
    previous_close: f64,
    volume: i64,
    eps: f64,
    dividend: f64,
    high52: f64,
    low52: f64,
    shares_outstanding: i64,
    beta: f64,
}

impl From<&QuoteFx> for Sec {
    fn from(q: &QuoteFx) -> Sec {
        Sec {
            symbol: q.symbol.to_string(),
            name: q.name.to_string(),
            security_type: q.security_type,
            exchange: q.exchange,
            last: q.last,
            previous_close: q.previous_close,
            volume: q.volume,
            eps: q.eps,
            dividend: q.dividend,
            high52: q.high52,
            low52: q.low52,
            shares_outstanding: q.shares_outstanding,
            beta: q.beta,
        }
    }
}

fn security(symbol: &str) -> Option<Sec> {
    if let Some(q) = quote_fx(symbol) {
        return Some(q.into());
    }
    let up = symbol.to_ascii_uppercase();
    if up.is_empty()
        || up.len() > 5
        || up.starts_with("XX")
        || !up.chars().all(|c| c.is_ascii_alphabetic())
    {
        return None;
    }
    let h = up
        .bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let last = round(10.0 + (h % 9000) as f64 / 100.0, 2);
    Some(Sec {
        name: format!("{up} CORP COM"),
        symbol: up,
        security_type: "EQ",
        exchange: "NYSE",
        last,
        previous_close: round(last * 0.99, 2),
        volume: (h % 5_000_000) as i64 + 10_000,
        eps: round(last / 25.0, 2),
        dividend: 0.0,
        high52: round(last * 1.3, 2),
        low52: round(last * 0.7, 2),
        shares_outstanding: 100_000_000,
        beta: 1.0,
    })
}

/// An option contract, from `UNDERLIER:YYYY:M:D:CALL|PUT:STRIKE`.
struct Opt {
    underlier: Sec,
    year: i16,
    month: i8,
    day: i8,
    call_put: &'static str,
    strike: f64,
}

fn option_symbol(symbol: &str) -> Option<Opt> {
    let p: Vec<&str> = symbol.split(':').collect();
    if p.len() != 6 {
        return None;
    }
    let underlier: Sec = quote_fx(p[0])?.into();
    let call_put = match p[4].to_ascii_uppercase().as_str() {
        "CALL" => "CALL",
        "PUT" => "PUT",
        _ => return None,
    };
    let (year, month, day) = (p[1].parse().ok()?, p[2].parse().ok()?, p[3].parse().ok()?);
    Date::new(year, month, day).ok()?;
    let strike: f64 = p[5].parse().ok()?;
    (strike > 0.0).then_some(Opt {
        underlier,
        year,
        month,
        day,
        call_put,
        strike,
    })
}

impl Opt {
    fn right(&self) -> Right {
        if self.call_put == "PUT" {
            Right::Put
        } else {
            Right::Call
        }
    }

    /// The contract as an instrument, whose OSI key and display name are E*TRADE's.
    fn instrument(&self) -> Option<Instrument> {
        Some(Instrument::Option {
            underlying: self.underlier.symbol.clone(),
            expiry: Date::new(self.year, self.month, self.day).ok()?,
            right: self.right(),
            strike: from_f64(self.strike),
        })
    }
}

/// An option valued by the emulation's model at the fixed implied volatility
/// [`FAKE_IV`] (with its smile): the price in cents and the `OptionGreeks` block.
fn option_values(s: f64, k: f64, days: i64, right: Right) -> (f64, Value) {
    let t = days.max(1) as f64 / 365.0;
    let iv = smile(FAKE_IV, s, k);
    let model = black_scholes(right, s, k, t, iv);
    (to_f64(money(model.price.max(0.0))), greeks_json(&model, iv))
}

/// The at-the-money implied volatility of every option the fake quotes.
const FAKE_IV: f64 = 0.25;

fn today(s: &Shared) -> Date {
    s.now().to_zoned_datetime(s.tz.clone()).date()
}

fn display_time(s: &Shared) -> String {
    s.now()
        .to_zoned_datetime(s.tz.clone())
        .strftime("%H:%M:%S %Z %m-%d-%Y")
        .to_string()
}

fn header(s: &Shared) -> QuoteHeader<'static> {
    QuoteHeader {
        date_time: display_time(s),
        date_time_utc: s.now().as_second(),
        after_hours: false,
        time_zone: None,
        source: None,
    }
}

fn equity_quote(sec: &Sec, earnings: bool, now_s: i64, dt: &str) -> EquityQuote {
    let d = from_f64;
    let change = round(sec.last - sec.previous_close, 2);
    let change_pct = round(change / sec.previous_close * 100.0, 2);
    let (bid, ask) = (round(sec.last - 0.02, 2), round(sec.last + 0.03, 2));
    let instrument = if sec.security_type == "MF" {
        Instrument::Fund {
            symbol: sec.symbol.clone(),
            money_market: false,
        }
    } else {
        Instrument::Equity {
            symbol: sec.symbol.clone(),
        }
    };
    EquityQuote {
        instrument,
        name: sec.name.clone(),
        exchange: sec.exchange.to_string(),
        last: d(sec.last),
        bid: d(bid),
        ask: d(ask),
        bid_size: 200,
        ask_size: 300,
        bid_exchange: " ",
        quote_time: dt.to_string(),
        change: d(change),
        change_pct: d(change_pct),
        volume: u64::try_from(sec.volume).unwrap_or(0),
        open: d(sec.previous_close),
        high: d(round(sec.last * 1.01, 2)),
        low: d(round(sec.last * 0.985, 2)),
        high_ask: Decimal::ZERO,
        high_bid: Decimal::ZERO,
        low_ask: Decimal::ZERO,
        low_bid: Decimal::ZERO,
        previous_close: d(sec.previous_close),
        previous_day_volume: u64::try_from(sec.volume - 1_000).unwrap_or(0),
        today_close: Decimal::ZERO,
        high52: d(sec.high52),
        low52: d(sec.low52),
        week52_low_date: now_s - 200 * 86_400,
        week52_hi_date: now_s - 60 * 86_400,
        perf_12_months: d(round((sec.last - sec.low52) / sec.low52 * 100.0, 2)),
        eps: d(sec.eps),
        est_earnings: d(round(sec.eps * 1.06, 2)),
        pe: d(if sec.eps > 0.0 {
            round(sec.last / sec.eps, 2)
        } else {
            0.0
        }),
        dividend: d(sec.dividend),
        annual_dividend: d(round(sec.dividend * 4.0, 2)),
        yield_pct: d(if sec.last > 0.0 {
            round(sec.dividend * 4.0 / sec.last * 100.0, 2)
        } else {
            0.0
        }),
        declared_dividend: d(sec.dividend),
        ex_dividend_date: now_s - 20 * 86_400,
        dividend_payable_date: now_s - 10 * 86_400,
        market_cap: d(round(sec.last * sec.shares_outstanding as f64, 2)),
        shares_outstanding: u64::try_from(sec.shares_outstanding).unwrap_or(0),
        beta: d(sec.beta),
        number_of_trades: 123_456,
        volume_10_day: u64::try_from(sec.volume + 2_000).unwrap_or(0),
        average_volume: u64::try_from(sec.volume + 5_000).unwrap_or(0),
        time_of_last_trade: now_s,
        extended: ExtendedHours {
            last: d(round(sec.last + 0.04, 2)),
            change: d(0.04),
            percent_change: d(round(0.04 / sec.last * 100.0, 2)),
            bid_size: 100,
            ask_size: 100,
            volume: u64::try_from(sec.volume).unwrap_or(0),
            time_of_last_trade: now_s,
            status: "EH_CLOSED",
        },
        next_earning_date: earnings.then(|| "01/27/2027".to_string()),
        fund: Some(FundDetail {
            cusip: "922908728".into(),
            family: "VANGUARD".into(),
            expense_ratio: d(0.04),
            initial_investment: Decimal::from(3000),
            subsequent_investment: Decimal::ONE,
            availability: "Open to new buy and sell".into(),
            category: "Large Blend".into(),
        }),
    }
}

fn option_quote(o: &Opt, today: Date, now_s: i64) -> Option<OptionQuote> {
    let d = from_f64;
    let expiry = Date::new(o.year, o.month, o.day).unwrap_or(today);
    let days = (expiry - today).get_days().into();
    let call = o.call_put == "CALL";
    let (price, greeks) = option_values(o.underlier.last, o.strike, days, o.right());
    let instrument = o.instrument()?;
    let intrinsic = if call {
        (o.underlier.last - o.strike).max(0.0)
    } else {
        (o.strike - o.underlier.last).max(0.0)
    };
    Some(OptionQuote {
        description: instrument.display(),
        instrument,
        company_name: o.underlier.name.clone(),
        exchange: "NYSE".into(),
        last: d(price),
        bid: d(round((price - 0.05).max(0.0), 2)),
        ask: d(round(price + 0.05, 2)),
        bid_size: 10,
        ask_size: 12,
        previous_close: Some(d(round(price * 0.98, 2))),
        days_to_expiration: days,
        open_interest: 1_250,
        total_volume: 321,
        intrinsic_value: d(round(intrinsic, 2)),
        time_premium: d(round(price - intrinsic, 2)),
        expiration_date: expiry
            .to_zoned_datetime(jiff::tz::TimeZone::UTC)
            .map(|z| z.timestamp().as_second())
            .unwrap_or(0),
        time_of_last_trade: now_s,
        greeks,
    })
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
    let (now_s, dt, today, header) = (s.now().as_second(), display_time(&s), today(&s), header(&s));
    let mut data = Vec::new();
    let mut messages = Vec::new();
    for sym in list {
        if sym.contains(':') {
            match option_symbol(sym).and_then(|o| option_quote(&o, today, now_s)) {
                Some(o) => data.push(answers::quotes::option_quote(&o, flag, &header)),
                None => messages.push(bad_symbol(sym)),
            }
        } else {
            match security(sym) {
                Some(sec) => {
                    let quote = equity_quote(&sec, earnings, now_s, &dt);
                    data.push(answers::quotes::equity_quote(&quote, flag, &header));
                }
                None => messages.push(bad_symbol(sym)),
            }
        }
    }
    if data.is_empty() {
        return api_error(StatusCode::BAD_REQUEST, 1019, "Invalid symbol.");
    }
    ok_json(&quote_response(data, messages))
}

/// `GET /v1/market/lookup/{search}`: every word must occur in the company name (or the
/// search is the symbol).
pub(crate) async fn lookup(Path(search): Path<String>) -> Response {
    let words = search_words(&search);
    if words.is_empty() {
        return api_error(
            StatusCode::BAD_REQUEST,
            10043,
            "Missing symbol. Please enter valid symbol.",
        );
    }
    let entries: Vec<LookupEntry<'_>> = QUOTES
        .iter()
        .map(|q| LookupEntry {
            symbol: q.symbol,
            description: q.name,
            kind: if q.security_type == "MF" {
                "MUTUAL_FUND"
            } else {
                "EQUITY"
            },
        })
        .chain(
            LOOKUP_EXTRA
                .iter()
                .map(|&(symbol, description, kind)| LookupEntry {
                    symbol,
                    description,
                    kind,
                }),
        )
        .filter(|e| {
            (words.len() == 1 && words[0] == e.symbol) || name_matches(&words, e.description)
        })
        .collect();
    ok_json(&lookup_response(&entries))
}

/// Third Friday of a month.
fn third_friday(year: i16, month: i8) -> Option<Date> {
    let first = Date::new(year, month, 1).ok()?;
    let offset = (4 - first.weekday().to_monday_zero_offset() + 7) % 7;
    first
        .checked_add(jiff::Span::new().days(i64::from(offset) + 14))
        .ok()
}

/// (date, expiryType) from today on: six monthlies and the weeklies before the last one.
fn expiries(today: Date) -> Vec<(Date, &'static str)> {
    let mut out = Vec::new();
    let mut first = today.first_of_month();
    for _ in 0..7 {
        if let Some(d) = third_friday(first.year(), first.month())
            && d >= today
            && out.len() < 6
        {
            out.push((d, "MONTHLY"));
        }
        first = first
            .checked_add(jiff::Span::new().months(1))
            .unwrap_or(first);
    }
    let last = out.last().map(|x| x.0).unwrap_or(today);
    let mut d = today;
    for _ in 0..400 {
        if d > last {
            break;
        }
        if d.weekday() == Weekday::Friday && !out.iter().any(|x| x.0 == d) {
            out.push((d, "WEEKLY"));
        }
        match d.tomorrow() {
            Ok(n) => d = n,
            Err(_) => break,
        }
    }
    out.sort();
    out
}

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

fn symbol_param(q: &HashMap<String, String>) -> Result<Sec, Response> {
    match q.get("symbol").map(|v| v.trim()) {
        None | Some("") => Err(api_error(
            StatusCode::BAD_REQUEST,
            10043,
            "Missing symbol. Please enter valid symbol.",
        )),
        Some(v) => quote_fx(v)
            .map(Sec::from)
            .ok_or_else(|| api_error(StatusCode::BAD_REQUEST, 1019, "Invalid symbol.")),
    }
}

/// `GET /v1/market/optionexpiredate?symbol=&expiryType=`
pub(crate) async fn option_expire_dates(
    State(s): State<Arc<Shared>>,
    Query(q): Params,
) -> Response {
    let sec = match symbol_param(&q) {
        Ok(x) => x,
        Err(r) => return r,
    };
    let kind = match enum_param(&q, "expiryType", EXPIRY_TYPES, "ALL") {
        Ok(k) => k,
        Err(r) => return r,
    };
    let _ = sec;
    let dates: Vec<(Date, &str)> = expiries(today(&s))
        .into_iter()
        .filter(|(_, t)| matches!(kind, "ALL" | "UNSPECIFIED") || *t == kind)
        .collect();
    ok_json(&expire_dates(&dates))
}

fn int_param(q: &HashMap<String, String>, name: &str) -> Result<Option<i64>, Response> {
    match q.get(name) {
        None => Ok(None),
        Some(v) => v.parse().map(Some).map_err(|_| invalid_param(name)),
    }
}

/// `GET /v1/market/optionchains`
pub(crate) async fn option_chains(State(s): State<Arc<Shared>>, Query(q): Params) -> Response {
    match chain(&s, &q) {
        Ok(v) => ok_json(&v),
        Err(r) => r,
    }
}

fn chain(s: &Shared, q: &HashMap<String, String>) -> Result<Value, Response> {
    let sec = symbol_param(q)?;
    let (y, m, d) = (
        int_param(q, "expiryYear")?,
        int_param(q, "expiryMonth")?,
        int_param(q, "expiryDay")?,
    );
    let near = match q.get("strikePriceNear") {
        None => sec.last,
        Some(v) => v
            .parse::<f64>()
            .ok()
            .filter(|x| *x > 0.0)
            .ok_or_else(|| invalid_param("strikePriceNear"))?,
    };
    let strikes_wanted = match int_param(q, "noOfStrikes")? {
        None => None,
        Some(n) if n > 0 => Some(n as usize),
        Some(_) => return Err(invalid_param("noOfStrikes")),
    };
    let weekly = bool_param(q, "includeWeekly", false)?;
    bool_param(q, "skipAdjusted", true)?;
    let category = enum_param(
        q,
        "optionCategory",
        &["STANDARD", "ALL", "MINI"],
        "STANDARD",
    )?;
    let chain_type = enum_param(q, "chainType", &["CALL", "PUT", "CALLPUT"], "CALLPUT")?;
    let price_type = enum_param(q, "priceType", &["ATNM", "ALL"], "ATNM")?;
    let today = today(s);
    let candidates: Vec<Date> = expiries(today)
        .into_iter()
        .filter(|(_, t)| weekly || *t == "MONTHLY")
        .map(|(d, _)| d)
        .collect();
    let expiry = candidates
        .iter()
        .copied()
        .find(|e| {
            y.is_none_or(|y| i64::from(e.year()) == y)
                && m.is_none_or(|m| i64::from(e.month()) == m)
                && d.is_none_or(|d| i64::from(e.day()) == d)
        })
        .ok_or_else(|| api_error(StatusCode::BAD_REQUEST, 10031, "Invalid expiry date."))?;
    let step = if sec.last < 50.0 {
        1.0
    } else if sec.last < 200.0 {
        2.5
    } else {
        5.0
    };
    let center = (near / step).round() * step;
    let mut strikes: Vec<f64> = (-12..12)
        .map(|i| center + f64::from(i) * step)
        .filter(|k| *k > 0.0)
        .collect();
    let take = match (price_type, strikes_wanted) {
        ("ALL", None) => strikes.len(),
        (_, Some(n)) => n,
        (_, None) => 10,
    };
    strikes.sort_by(|a, b| (a - near).abs().total_cmp(&(b - near).abs()));
    strikes.truncate(take);
    strikes.sort_by(f64::total_cmp);
    let days: i64 = (expiry - today).get_days().into();
    let now_s = s.now().as_second();
    let chain_type = ChainType::parse(chain_type).unwrap_or(ChainType::CallPut);
    let side = |k: f64, right: Right| -> ChainSide {
        let (price, greeks) = option_values(sec.last, k, days, right);
        let call = right == Right::Call;
        let d = from_f64;
        ChainSide {
            instrument: Instrument::Option {
                underlying: sec.symbol.clone(),
                expiry,
                right,
                strike: d(k),
            },
            time_stamp: now_s,
            bid: d(round((price - 0.05).max(0.0), 2)),
            ask: d(round(price + 0.05, 2)),
            bid_size: 10,
            ask_size: 12,
            in_the_money: if call { sec.last > k } else { sec.last < k },
            volume: 100 + (k as u64 % 50),
            open_interest: 1_000 + (k as u64 % 700),
            net_change: d(-0.05),
            last: d(price),
            greeks,
        }
    };
    let pairs: Vec<Value> = if category == "MINI" {
        Vec::new()
    } else {
        strikes
            .iter()
            .filter_map(|k| {
                let call = chain_type.calls().then(|| side(*k, Right::Call));
                let put = chain_type.puts().then(|| side(*k, Right::Put));
                option_pair(chain_type, call.as_ref(), put.as_ref(), &s.base_url)
            })
            .collect()
    };
    Ok(option_chain(pairs, now_s, from_f64(near), expiry, None))
}

/// The quoted bid, ask and description of an equity or fund (order estimates use them);
/// `None` when the fake has no quote for the symbol.
pub(crate) fn equity_bid_ask(symbol: &str) -> Option<(f64, f64, String)> {
    let sec = security(symbol)?;
    Some((
        round(sec.last - 0.02, 2),
        round(sec.last + 0.03, 2),
        sec.name,
    ))
}

/// The same for an option contract, priced as the quote endpoint prices it.
pub(crate) fn option_bid_ask(
    s: &Shared,
    underlier: &str,
    (year, month, day): (i64, i64, i64),
    call_put: &str,
    strike: f64,
) -> Option<(f64, f64, String)> {
    let o = option_symbol(&format!(
        "{underlier}:{year}:{month}:{day}:{call_put}:{strike}"
    ))?;
    let today = today(s);
    let expiry = Date::new(o.year, o.month, o.day).ok()?;
    let days = (expiry - today).get_days().into();
    let (price, _) = option_values(o.underlier.last, o.strike, days, o.right());
    let desc = o.instrument()?.display();
    Some((
        round((price - 0.05).max(0.0), 2),
        round(price + 0.05, 2),
        desc,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osi_keys_third_fridays_and_expiries() {
        let pltr = Instrument::Option {
            underlying: "PLTR".into(),
            expiry: Date::new(2022, 2, 18).expect("date"),
            right: Right::Put,
            strike: from_f64(23.0),
        };
        assert_eq!(pltr.osi_key().as_deref(), Some("PLTR--220218P00023000"));
        assert_eq!(third_friday(2026, 12), Date::new(2026, 12, 18).ok());
        assert_eq!(third_friday(2027, 1), Date::new(2027, 1, 15).ok());
        let today = Date::new(2026, 12, 1).expect("date");
        let e = expiries(today);
        assert_eq!(e.iter().filter(|x| x.1 == "MONTHLY").count(), 6);
        assert!(e.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(
            e.iter()
                .all(|x| x.0.weekday() == Weekday::Friday && x.0 >= today)
        );
        let (call, g) = option_values(100.0, 90.0, 30, Right::Call);
        let (put, _) = option_values(100.0, 90.0, 30, Right::Put);
        assert!(call > 10.0 && put < call);
        assert!(g["delta"].as_f64().is_some_and(|d| d > 0.5 && d < 1.0));
    }
}

//! `GET /v1/market/quote/{symbols}`: equity, fund and option quotes for each detail flag,
//! and the per-symbol warnings beside them. Prices are written as JSON floats, as E*TRADE's
//! quotes are.

use rust_decimal::Decimal;
use serde_json::{Map, Value, json};

use super::super::Instrument;
use super::super::json_number::float;

/// Which block a quote carries (`detailFlag`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailFlag {
    All,
    Fundamental,
    Intraday,
    Options,
    Week52,
    MutualFund,
}

impl DetailFlag {
    /// The flag E*TRADE spells `text`; None for anything else.
    pub fn parse(text: &str) -> Option<DetailFlag> {
        Some(match text {
            "ALL" => DetailFlag::All,
            "FUNDAMENTAL" => DetailFlag::Fundamental,
            "INTRADAY" => DetailFlag::Intraday,
            "OPTIONS" => DetailFlag::Options,
            "WEEK_52" => DetailFlag::Week52,
            "MF_DETAIL" => DetailFlag::MutualFund,
            _ => return None,
        })
    }
}

/// What every quote starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteHeader<'a> {
    /// `HH:MM:SS ZONE MM-DD-YYYY` in the exchange's time zone.
    pub date_time: String,
    /// Epoch seconds.
    pub date_time_utc: i64,
    /// In pre-market or after-hours trading.
    pub after_hours: bool,
    /// The zone's abbreviation (`EDT`), written with `dstFlag`, when the emulator tells it.
    pub time_zone: Option<String>,
    /// Where the numbers come from, when the emulator tells it (`simulated`).
    pub source: Option<&'a str>,
}

/// The extended-hours figures of an equity's ALL block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtendedHours {
    pub last: Decimal,
    pub change: Decimal,
    pub percent_change: Decimal,
    pub bid_size: u64,
    pub ask_size: u64,
    pub volume: u64,
    /// Epoch seconds.
    pub time_of_last_trade: i64,
    /// EH_REALTIME | EH_CLOSED
    pub status: &'static str,
}

/// A mutual fund's MF_DETAIL block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FundDetail {
    pub cusip: String,
    pub family: String,
    pub expense_ratio: Decimal,
    pub initial_investment: Decimal,
    pub subsequent_investment: Decimal,
    pub availability: String,
    pub category: String,
}

/// An equity's (or a fund's) quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EquityQuote {
    pub instrument: Instrument,
    pub name: String,
    pub exchange: String,
    pub last: Decimal,
    pub bid: Decimal,
    pub ask: Decimal,
    pub bid_size: u64,
    pub ask_size: u64,
    pub bid_exchange: &'static str,
    /// The `askTime`/`bidTime` text.
    pub quote_time: String,
    pub change: Decimal,
    pub change_pct: Decimal,
    pub volume: u64,
    pub open: Decimal,
    pub high: Decimal,
    pub low: Decimal,
    pub high_ask: Decimal,
    pub high_bid: Decimal,
    pub low_ask: Decimal,
    pub low_bid: Decimal,
    pub previous_close: Decimal,
    pub previous_day_volume: u64,
    pub today_close: Decimal,
    pub high52: Decimal,
    pub low52: Decimal,
    /// Epoch seconds.
    pub week52_low_date: i64,
    pub week52_hi_date: i64,
    pub perf_12_months: Decimal,
    pub eps: Decimal,
    pub est_earnings: Decimal,
    pub pe: Decimal,
    pub dividend: Decimal,
    pub annual_dividend: Decimal,
    pub yield_pct: Decimal,
    pub declared_dividend: Decimal,
    /// Epoch seconds; 0 when none.
    pub ex_dividend_date: i64,
    pub dividend_payable_date: i64,
    pub market_cap: Decimal,
    pub shares_outstanding: u64,
    pub beta: Decimal,
    pub number_of_trades: u64,
    pub volume_10_day: u64,
    pub average_volume: u64,
    /// Epoch seconds.
    pub time_of_last_trade: i64,
    pub extended: ExtendedHours,
    /// `MM/DD/YYYY`, when asked for (`requireEarningsDate`) and known.
    pub next_earning_date: Option<String>,
    /// For a fund, what MF_DETAIL shows; None answers MF_DETAIL with the ALL block.
    pub fund: Option<FundDetail>,
}

/// An option contract's quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionQuote {
    pub instrument: Instrument,
    pub company_name: String,
    pub description: String,
    pub exchange: String,
    pub last: Decimal,
    pub bid: Decimal,
    pub ask: Decimal,
    pub bid_size: u64,
    pub ask_size: u64,
    pub previous_close: Option<Decimal>,
    pub days_to_expiration: i64,
    pub open_interest: u64,
    pub total_volume: u64,
    pub intrinsic_value: Decimal,
    pub time_premium: Decimal,
    /// Epoch seconds of the expiry's close.
    pub expiration_date: i64,
    pub time_of_last_trade: i64,
    /// [`crate::emulation::option_model::greeks_json`].
    pub greeks: Value,
}

fn merge(into: &mut Value, part: Value) {
    if let (Value::Object(o), Value::Object(p)) = (into, part) {
        o.extend(p);
    }
}

fn with_header(h: &QuoteHeader<'_>, product: Value, block: (&str, Value)) -> Value {
    let mut m = Map::new();
    m.insert("dateTime".into(), json!(h.date_time));
    m.insert("dateTimeUTC".into(), json!(h.date_time_utc));
    m.insert("quoteStatus".into(), json!("DELAYED"));
    m.insert(
        "ahFlag".into(),
        json!(if h.after_hours { "true" } else { "false" }),
    );
    m.insert("hasMiniOptions".into(), json!(false));
    if let Some(zone) = &h.time_zone {
        m.insert("timeZone".into(), json!(zone));
        m.insert("dstFlag".into(), json!(zone.ends_with("DT")));
    }
    if let Some(source) = h.source {
        m.insert("source".into(), json!(source));
    }
    m.insert(block.0.into(), block.1);
    m.insert("Product".into(), product);
    Value::Object(m)
}

fn all_block(q: &EquityQuote) -> Value {
    let n = float;
    let mut all = json!({"adjustedFlag": false, "annualDividend": n(q.annual_dividend),
        "ask": n(q.ask), "askExchange": "Q", "askSize": q.ask_size, "askTime": q.quote_time,
        "bid": n(q.bid), "bidExchange": q.bid_exchange, "bidSize": q.bid_size,
        "bidTime": q.quote_time, "changeClose": n(q.change),
        "changeClosePercentage": n(q.change_pct), "companyName": q.name,
        "daysToExpiration": 0, "dirLast": if q.change >= Decimal::ZERO { "1" } else { "2" },
        "dividend": n(q.dividend), "eps": n(q.eps), "estEarnings": n(q.est_earnings),
        "exDividendDate": q.ex_dividend_date, "exchgLastTrade": q.exchange, "fsi": "",
        "high": n(q.high), "high52": n(q.high52), "highAsk": n(q.high_ask),
        "highBid": n(q.high_bid), "lastTrade": n(q.last), "low": n(q.low), "low52": n(q.low52),
        "lowAsk": n(q.low_ask), "lowBid": n(q.low_bid)});
    merge(
        &mut all,
        json!({"numberOfTrades": q.number_of_trades, "open": n(q.open), "openInterest": 0,
        "optionStyle": "", "optionUnderlier": "", "previousClose": n(q.previous_close),
        "previousDayVolume": q.previous_day_volume, "primaryExchange": q.exchange,
        "symbolDescription": q.name, "todayClose": n(q.today_close), "totalVolume": q.volume,
        "upc": 0, "volume10Day": q.volume_10_day, "cashDeliverable": 0,
        "marketCap": n(q.market_cap), "sharesOutstanding": q.shares_outstanding,
        "beta": n(q.beta), "yield": n(q.yield_pct), "declaredDividend": n(q.declared_dividend),
        "dividendPayableDate": q.dividend_payable_date, "pe": n(q.pe)}),
    );
    let e = &q.extended;
    merge(
        &mut all,
        json!({"marketCloseBidSize": 0, "marketCloseAskSize": 0, "marketCloseVolume": 0,
        "week52LowDate": q.week52_low_date, "week52HiDate": q.week52_hi_date,
        "intrinsicValue": 0, "timePremium": 0, "optionMultiplier": 0, "contractSize": 0,
        "expirationDate": 0, "timeOfLastTrade": q.time_of_last_trade,
        "averageVolume": q.average_volume,
        "ExtendedHourQuoteDetail": {"lastPrice": n(e.last), "change": n(e.change),
            "percentChange": n(e.percent_change), "bid": n(q.bid), "bidSize": e.bid_size,
            "ask": n(q.ask), "askSize": e.ask_size, "volume": e.volume,
            "timeOfLastTrade": e.time_of_last_trade, "timeZone": "", "quoteStatus": e.status}}),
    );
    if let (Some(date), Some(o)) = (&q.next_earning_date, all.as_object_mut()) {
        o.insert("nextEarningDate".into(), json!(date));
    }
    all
}

/// One equity or fund quote, with the block `flag` asks for.
pub fn equity_quote(q: &EquityQuote, flag: DetailFlag, header: &QuoteHeader<'_>) -> Value {
    let n = float;
    let name = &q.name;
    let block = match (flag, &q.fund) {
        (DetailFlag::Fundamental, _) => (
            "Fundamental",
            json!({"companyName": name, "eps": n(q.eps), "estEarnings": n(q.est_earnings),
                "high52": n(q.high52), "lastTrade": n(q.last), "low52": n(q.low52),
                "symbolDescription": name}),
        ),
        (DetailFlag::Intraday, _) => (
            "Intraday",
            json!({"ask": n(q.ask), "bid": n(q.bid), "changeClose": n(q.change),
                "changeClosePercentage": n(q.change_pct), "companyName": name,
                "high": n(q.high), "lastTrade": n(q.last), "low": n(q.low),
                "totalVolume": q.volume}),
        ),
        (DetailFlag::Options, _) => (
            "Option",
            json!({"ask": n(q.ask), "askSize": q.ask_size, "bid": n(q.bid),
                "bidSize": q.bid_size, "companyName": name, "daysToExpiration": 0,
                "lastTrade": n(q.last), "openInterest": 0, "optionPreviousBidPrice": 0,
                "optionPreviousAskPrice": 0, "osiKey": "", "intrinsicValue": 0,
                "timePremium": 0, "optionMultiplier": 0, "contractSize": 0,
                "symbolDescription": name}),
        ),
        (DetailFlag::Week52, _) => (
            "Week52",
            json!({"companyName": name, "high52": n(q.high52), "lastTrade": n(q.last),
                "low52": n(q.low52), "perf12Months": n(q.perf_12_months),
                "previousClose": n(q.previous_close), "symbolDescription": name,
                "totalVolume": q.volume}),
        ),
        (DetailFlag::MutualFund, Some(f)) => (
            "MutualFund",
            json!({"symbolDescription": name, "cusip": f.cusip, "changeClose": n(q.change),
                "previousClose": n(q.previous_close), "netAssetValue": n(q.last),
                "publicOfferPrice": n(q.last), "fundFamily": f.family, "fundName": name,
                "changeClosePercentage": n(q.change_pct),
                "timeOfLastTrade": q.time_of_last_trade,
                "netExpenseRatio": n(f.expense_ratio), "grossExpenseRatio": n(f.expense_ratio),
                "initialInvestment": n(f.initial_investment),
                "subsequentInvestment": n(f.subsequent_investment),
                "availability": f.availability, "morningStarCategory": f.category}),
        ),
        (DetailFlag::All | DetailFlag::MutualFund, _) => ("All", all_block(q)),
    };
    let product = q
        .instrument
        .product_json(super::super::NumberStyle::Float, false);
    with_header(header, product, block)
}

/// One option quote: the OPTIONS flag shows the Option block, any other the All block.
pub fn option_quote(q: &OptionQuote, flag: DetailFlag, header: &QuoteHeader<'_>) -> Value {
    let n = float;
    let underlier = q.instrument.symbol();
    let block = if flag == DetailFlag::Options {
        (
            "Option",
            json!({"ask": n(q.ask), "askSize": q.ask_size, "bid": n(q.bid),
                "bidSize": q.bid_size, "companyName": q.company_name,
                "daysToExpiration": q.days_to_expiration, "lastTrade": n(q.last),
                "openInterest": q.open_interest, "optionPreviousBidPrice": n(q.bid),
                "optionPreviousAskPrice": n(q.ask), "osiKey": q.instrument.osi_key(),
                "intrinsicValue": n(q.intrinsic_value), "timePremium": n(q.time_premium),
                "optionMultiplier": 100, "contractSize": 100,
                "symbolDescription": q.description, "OptionGreeks": q.greeks}),
        )
    } else {
        let mut all = json!({"adjustedFlag": false, "ask": n(q.ask), "askSize": q.ask_size,
            "bid": n(q.bid), "bidSize": q.bid_size, "companyName": q.company_name,
            "daysToExpiration": q.days_to_expiration, "lastTrade": n(q.last),
            "openInterest": q.open_interest, "optionStyle": "AMERICAN",
            "optionUnderlier": underlier, "symbolDescription": q.description,
            "totalVolume": q.total_volume, "intrinsicValue": n(q.intrinsic_value),
            "timePremium": n(q.time_premium), "optionMultiplier": 100, "contractSize": 100,
            "expirationDate": q.expiration_date, "timeOfLastTrade": q.time_of_last_trade,
            "OptionDeliverableList": [{"rootSymbol": underlier,
                "deliverableSymbol": underlier, "deliverableTypeCode": "EQUITY",
                "deliverableExchangeCode": q.exchange, "deliverableStrikePercent": 100,
                "deliverableCILShares": 0, "deliverableWholeShares": 100}]});
        if let (Some(pc), Some(o)) = (q.previous_close, all.as_object_mut()) {
            o.insert("previousClose".into(), n(pc));
        }
        ("All", all)
    };
    let product = q
        .instrument
        .product_json(super::super::NumberStyle::Float, false);
    with_header(header, product, block)
}

/// The warning a symbol with no quote gets.
pub fn bad_symbol(symbol: &str) -> Value {
    json!({"description": format!("{} is not a valid symbol.", symbol.trim().to_ascii_uppercase()),
        "code": 1019, "type": "WARNING"})
}

/// The answer: the quotes, and a `Messages` container only when a symbol had none. With no
/// quote at all E*TRADE sends the messages alone (its own sample client reads `Messages`
/// when `QuoteData` is missing), so an empty `QuoteData` is left out.
pub fn quote_response(data: Vec<Value>, messages: Vec<Value>) -> Value {
    let mut body = Map::new();
    if !data.is_empty() || messages.is_empty() {
        body.insert("QuoteData".into(), Value::Array(data));
    }
    if !messages.is_empty() {
        body.insert("Messages".into(), json!({ "Message": messages }));
    }
    json!({ "QuoteResponse": body })
}

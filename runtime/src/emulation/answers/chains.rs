//! `GET /v1/market/optionchains` (call/put pairs around a strike) and
//! `GET /v1/market/optionexpiredate` (the listed expiries).

use jiff::civil::Date;
use rust_decimal::Decimal;
use serde_json::{Map, Value, json};

use super::super::Instrument;
use super::super::json_number::float;

/// One side (a call or a put) of a chain's pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainSide {
    /// The contract.
    pub instrument: Instrument,
    /// Epoch seconds.
    pub time_stamp: i64,
    pub bid: Decimal,
    pub ask: Decimal,
    pub bid_size: u64,
    pub ask_size: u64,
    pub in_the_money: bool,
    pub volume: u64,
    pub open_interest: u64,
    pub net_change: Decimal,
    pub last: Decimal,
    /// [`crate::emulation::option_model::greeks_json`].
    pub greeks: Value,
}

/// Which sides the chain's pairs carry (`chainType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainType {
    Call,
    Put,
    CallPut,
}

impl ChainType {
    /// CALL, PUT, CALLPUT; None for anything else.
    pub fn parse(text: &str) -> Option<ChainType> {
        match text {
            "CALL" => Some(ChainType::Call),
            "PUT" => Some(ChainType::Put),
            "CALLPUT" => Some(ChainType::CallPut),
            _ => None,
        }
    }

    pub fn calls(self) -> bool {
        self != ChainType::Put
    }

    pub fn puts(self) -> bool {
        self != ChainType::Call
    }

    fn pair_type(self) -> &'static str {
        match self {
            ChainType::Call => "CALLONLY",
            ChainType::Put => "PUTONLY",
            ChainType::CallPut => "CALLPUT",
        }
    }
}

/// `base_url` is the host of the sides' `quoteDetail` links (empty for a relative link).
fn side_json(s: &ChainSide, base_url: &str) -> Value {
    let root = s.instrument.symbol();
    let strike = s.instrument.strike().unwrap_or_default();
    let right = match &s.instrument {
        Instrument::Option { right, .. } => right.as_str(),
        Instrument::Equity { .. } | Instrument::Fund { .. } => "",
    };
    json!({"optionCategory": "STANDARD", "optionRootSymbol": root, "timeStamp": s.time_stamp,
        "adjustedFlag": false, "displaySymbol": s.instrument.display(), "optionType": right,
        "strikePrice": float(strike), "symbol": root, "bid": float(s.bid), "ask": float(s.ask),
        "bidSize": s.bid_size, "askSize": s.ask_size,
        "inTheMoney": if s.in_the_money { "y" } else { "n" }, "volume": s.volume,
        "openInterest": s.open_interest, "netChange": float(s.net_change),
        "lastPrice": float(s.last),
        "quoteDetail": format!("{base_url}/v1/market/quote/{}", s.instrument.quote_symbol()),
        "osiKey": s.instrument.osi_key(), "OptionGreeks": s.greeks})
}

/// One strike's pair; None when it has neither side.
pub fn option_pair(
    chain_type: ChainType,
    call: Option<&ChainSide>,
    put: Option<&ChainSide>,
    base_url: &str,
) -> Option<Value> {
    let mut pair = Map::new();
    pair.insert("pairType".into(), json!(chain_type.pair_type()));
    if let Some(c) = call.filter(|_| chain_type.calls()) {
        pair.insert("Call".into(), side_json(c, base_url));
    }
    if let Some(p) = put.filter(|_| chain_type.puts()) {
        pair.insert("Put".into(), side_json(p, base_url));
    }
    (pair.len() > 1).then_some(Value::Object(pair))
}

/// The chain: its pairs, the strike they centre on and the expiry they are for.
pub fn option_chain(
    pairs: Vec<Value>,
    time_stamp: i64,
    near: Decimal,
    expiry: Date,
    source: Option<&str>,
) -> Value {
    let mut body = Map::new();
    body.insert("OptionPair".into(), Value::Array(pairs));
    body.insert("timeStamp".into(), json!(time_stamp));
    body.insert("quoteType".into(), json!("DELAYED"));
    body.insert("nearPrice".into(), float(near));
    if let Some(source) = source {
        body.insert("source".into(), json!(source));
    }
    body.insert(
        "SelectedED".into(),
        json!({"day": expiry.day(), "month": expiry.month(), "year": expiry.year()}),
    );
    json!({ "OptionChainResponse": body })
}

/// The expiries, each with its `expiryType` (WEEKLY, MONTHLY, …).
pub fn expire_dates(dates: &[(Date, &str)]) -> Value {
    let dates: Vec<Value> = dates
        .iter()
        .map(|(d, kind)| {
            json!({"year": d.year(), "month": d.month(), "day": d.day(), "expiryType": kind})
        })
        .collect();
    json!({"OptionExpireDateResponse": {"ExpirationDate": dates}})
}

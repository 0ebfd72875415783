//! Query-parameter values of the read endpoints, and how a bad one is refused.

use jiff::civil::Date;

use super::codes;

/// A refused query parameter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// HTTP 400, [`codes::INVALID_PARAMETER`].
    #[error("{}", codes::invalid_parameter(.0))]
    Invalid(&'static str),
    /// HTTP 500, [`codes::REQUEST_NOT_COMPLETED`]: a `count` above the most the list serves.
    #[error("{}", codes::REQUEST_NOT_COMPLETED_MESSAGE)]
    CountTooLarge,
}

impl ParamError {
    pub fn status(&self) -> u16 {
        match self {
            ParamError::Invalid(_) => 400,
            ParamError::CountTooLarge => 500,
        }
    }

    pub fn code(&self) -> i64 {
        match self {
            ParamError::Invalid(_) => codes::INVALID_PARAMETER,
            ParamError::CountTooLarge => codes::REQUEST_NOT_COMPLETED,
        }
    }
}

/// `count`: `default` when absent, else a positive integer up to `max`.
pub fn count(text: Option<&str>, default: usize, max: usize) -> Result<usize, ParamError> {
    match text.map(str::parse::<usize>) {
        None => Ok(default),
        Some(Ok(0) | Err(_)) => Err(ParamError::Invalid("count")),
        Some(Ok(n)) if n > max => Err(ParamError::CountTooLarge),
        Some(Ok(n)) => Ok(n),
    }
}

/// E*TRADE's query-string date, `MMDDYYYY`.
pub fn mmddyyyy(text: &str) -> Option<Date> {
    if text.len() != 8 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (m, d, y) = (
        text.get(0..2)?.parse().ok()?,
        text.get(2..4)?.parse().ok()?,
        text.get(4..8)?.parse().ok()?,
    );
    Date::new(y, m, d).ok()
}

/// `pairs` as a query string, `name=value` joined by `&`, both sides percent-encoded by
/// `encode`. The encoder is the caller's: the emulation must not depend on the E*TRADE
/// client, which has one.
pub fn query_string<K: AsRef<str>, V: AsRef<str>>(
    pairs: &[(K, V)],
    encode: impl Fn(&str) -> String,
) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k.as_ref()), encode(v.as_ref())))
        .collect::<Vec<_>>()
        .join("&")
}

/// Portfolio `sortBy` values E*TRADE accepts (note the required `INSTRINIC_VALUE`).
pub const PORTFOLIO_SORT_KEYS: &[&str] = &[
    "SYMBOL",
    "TYPE_NAME",
    "EXCHANGE_NAME",
    "CURRENCY",
    "QUANTITY",
    "LONG_OR_SHORT",
    "DATE_ACQUIRED",
    "PRICEPAID",
    "TOTAL_GAIN",
    "TOTAL_GAIN_PCT",
    "MARKET_VALUE",
    "BI",
    "BID",
    "ASK",
    "PRICE_CHANGE",
    "PRICE_CHANGE_PCT",
    "VOLUME",
    "WEEK_52_HIGH",
    "WEEK_52_LOW",
    "EPS",
    "PE_RATIO",
    "OPTION_TYPE",
    "STRIKE_PRICE",
    "PREMIUM",
    "EXPIRATION",
    "DAYS_GAIN",
    "COMMISSION",
    "MARKETCAP",
    "PREV_CLOSE",
    "OPEN",
    "DAYS_RANGE",
    "TOTAL_COST",
    "DAYS_GAIN_PCT",
    "PCT_OF_PORTFOLIO",
    "LAST_TRADE_TIME",
    "BASE_SYMBOL_PRICE",
    "WEEK_52_RANGE",
    "LAST_TRADE",
    "SYMBOL_DESC",
    "BID_SIZE",
    "ASK_SIZE",
    "OTHER_FEES",
    "HELD_AS",
    "OPTION_MULTIPLIER",
    "DELIVERABLES",
    "COST_PERSHARE",
    "DIVIDEND",
    "DIV_YIELD",
    "DIV_PAY_DATE",
    "EST_EARN",
    "EX_DIV_DATE",
    "TEN_DAY_AVG_VOL",
    "BETA",
    "BID_ASK_SPREAD",
    "MARGINABLE",
    "DELTA_52WK_HI",
    "DELTA_52WK_LOW",
    "PERF_1MON",
    "ANNUAL_DIV",
    "PERF_12MON",
    "PERF_3MON",
    "PERF_6MON",
    "PRE_DAY_VOL",
    "SV_1MON_AVG",
    "SV_10DAY_AVG",
    "SV_20DAY_AVG",
    "SV_2MON_AVG",
    "SV_3MON_AVG",
    "SV_4MON_AVG",
    "SV_6MON_AVG",
    "DELTA",
    "GAMMA",
    "IV_PCT",
    "THETA",
    "VEGA",
    "ADJ_NONADJ_FLAG",
    "DAYS_EXPIRATION",
    "OPEN_INTEREST",
    "INSTRINIC_VALUE",
    "RHO",
    "TYPE_CODE",
    "DISPLAY_SYMBOL",
    "AFTER_HOURS_PCTCHANGE",
    "PRE_MARKET_PCTCHANGE",
    "EXPAND_COLLAPSE_FLAG",
];

/// The portfolio `view` values.
pub const PORTFOLIO_VIEWS: &[&str] = &[
    "QUICK",
    "PERFORMANCE",
    "FUNDAMENTAL",
    "OPTIONSWATCH",
    "COMPLETE",
];

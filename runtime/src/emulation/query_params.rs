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

/// The portfolio `view` values.
pub const PORTFOLIO_VIEWS: &[&str] = &[
    "QUICK",
    "PERFORMANCE",
    "FUNDAMENTAL",
    "OPTIONSWATCH",
    "COMPLETE",
];

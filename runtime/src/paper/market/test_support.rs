//! Fixtures shared by the market's unit tests.

use std::str::FromStr;

use jiff::Timestamp;
use jiff::civil::Date;
use rust_decimal::Decimal;

use super::SimulatedMarket;
use crate::paper::touch::{CallPut, OptionContract};

pub(super) fn ts(s: &str) -> Timestamp {
    s.parse().expect("valid timestamp")
}

/// Every symbol the market lists (for properties that must hold for each).
pub(super) fn listed_symbols() -> Vec<String> {
    super::symbols::universe()
        .map(|u| u.iter().map(|l| l.symbol.clone()).collect())
        .unwrap_or_default()
}

pub(super) fn m() -> SimulatedMarket {
    SimulatedMarket::new(42)
}

pub(super) fn contract(sym: &str, exp: Date, cp: CallPut, strike: &str) -> OptionContract {
    OptionContract {
        underlying: sym.into(),
        expiration: exp,
        call_put: cp,
        strike: Decimal::from_str(strike).expect("strike"),
    }
}

/// 2026-03-10 (Tuesday, EDT): 11:00 ET.
pub(super) const TUE_11: &str = "2026-03-10T15:00:00Z";

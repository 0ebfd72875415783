//! Parsing the colon-separated quote symbol of an option back into a contract (its
//! spellings are [`crate::emulation::Instrument`]'s).

use std::str::FromStr;

use jiff::civil::Date;
use rust_decimal::Decimal;

use super::symbols::listed;
use crate::paper::touch::{CallPut, OptionContract};

pub(super) fn parse_option_symbol(s: &str) -> Option<OptionContract> {
    let p: Vec<&str> = s.split(':').map(str::trim).collect();
    let [root, year, month, day, cp, strike] = p.as_slice() else {
        return None;
    };
    let underlying = listed(root)?.symbol.clone();
    let expiration = Date::new(year.parse().ok()?, month.parse().ok()?, day.parse().ok()?).ok()?;
    let call_put = match cp.to_ascii_uppercase().as_str() {
        "CALL" | "C" => CallPut::Call,
        "PUT" | "P" => CallPut::Put,
        _ => return None,
    };
    let strike = Decimal::from_str(strike).ok()?.normalize();
    Some(OptionContract {
        underlying,
        expiration,
        call_put,
        strike,
    })
}

//! Option symbols in their three spellings (the OSI key, the display name and the
//! colon-separated quote symbol), and parsing the quote symbol back into a contract.

use std::str::FromStr;

use jiff::civil::Date;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use super::symbols::normalize;
use crate::paper::touch::{CallPut, OptionContract};

pub(super) fn osi_key(c: &OptionContract) -> String {
    let strike = (c.strike * Decimal::from(1000))
        .round()
        .to_i64()
        .unwrap_or(0);
    format!(
        "{:-<6}{:02}{:02}{:02}{}{:08}",
        c.underlying,
        i32::from(c.expiration.year()).rem_euclid(100),
        c.expiration.month(),
        c.expiration.day(),
        if c.call_put == CallPut::Call {
            'C'
        } else {
            'P'
        },
        strike
    )
}

/// `IBM Aug 17 '18 $200 Call`.
pub(super) fn display_symbol(c: &OptionContract) -> String {
    format!(
        "{} {} {:02} '{:02} ${} {}",
        c.underlying,
        c.expiration.strftime("%b"),
        c.expiration.day(),
        i32::from(c.expiration.year()).rem_euclid(100),
        c.strike.normalize(),
        if c.call_put == CallPut::Call {
            "Call"
        } else {
            "Put"
        }
    )
}

/// `IBM:2018:8:17:CALL:200.000000`, the option symbol of quote requests.
pub(super) fn quote_symbol(c: &OptionContract) -> String {
    format!(
        "{}:{}:{}:{}:{}:{:.6}",
        c.underlying,
        c.expiration.year(),
        c.expiration.month(),
        c.expiration.day(),
        c.call_put.as_str(),
        c.strike
    )
}

pub(super) fn parse_option_symbol(s: &str) -> Option<OptionContract> {
    let p: Vec<&str> = s.split(':').map(str::trim).collect();
    let [root, year, month, day, cp, strike] = p.as_slice() else {
        return None;
    };
    let underlying = normalize(root)?;
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

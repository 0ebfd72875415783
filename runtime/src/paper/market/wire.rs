//! JSON building blocks shared by the quote and option-chain answers.

use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::option_value::OptionValue;
use super::rounding::round_dec;

/// A decimal as a JSON number with exactly its digits (E*TRADE sends money as numbers).
pub(super) fn num(d: Decimal) -> Value {
    d.normalize()
        .to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

pub(super) fn greeks_json(v: &OptionValue) -> Value {
    let m = &v.model;
    json!({"rho": num(round_dec(m.rho, 4)), "vega": num(round_dec(m.vega, 4)),
        "theta": num(round_dec(m.theta, 4)), "delta": num(round_dec(m.delta, 4)),
        "gamma": num(round_dec(m.gamma, 4)), "iv": num(round_dec(v.iv, 4)),
        "currentValue": false})
}

//! JSON building blocks shared by the quote and option-chain answers.

use rust_decimal::Decimal;
use serde_json::Value;

use super::option_value::OptionValue;
use crate::emulation::option_model;

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
    option_model::greeks_json(&v.model, v.iv)
}

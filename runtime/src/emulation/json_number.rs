//! How a decimal becomes a JSON number in an emulator's answers, and back.
//!
//! The paper book keeps money exact and writes it so ([`exact`]); the fake server has always
//! answered with floats ([`float`]), and tests of the E*TRADE client rely on both forms.

use std::str::FromStr;

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde_json::{Value, json};

/// Which of the two ways an emulator writes numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberStyle {
    /// [`exact`]: the paper book.
    Exact,
    /// [`float`]: the fake server.
    Float,
}

impl NumberStyle {
    pub fn json(self, d: Decimal) -> Value {
        match self {
            NumberStyle::Exact => exact(d),
            NumberStyle::Float => float(d),
        }
    }
}

/// A decimal as a JSON number: an integer when it has no fraction, else the nearest float.
pub fn exact(d: Decimal) -> Value {
    let d = d.normalize();
    if d.scale() == 0
        && let Some(i) = d.to_i64()
    {
        return json!(i);
    }
    match d.to_string().parse::<f64>() {
        Ok(f) if f.is_finite() => json!(f),
        _ => json!(0),
    }
}

/// A decimal as a JSON float (`10.0`, `170.05`).
pub fn float(d: Decimal) -> Value {
    json!(to_f64(d))
}

/// The float nearest the decimal (through its text, so `170.05` is the float that JSON's
/// `170.05` reads as); 0 when there is none.
pub fn to_f64(d: Decimal) -> f64 {
    match d.to_string().parse::<f64>() {
        Ok(f) if f.is_finite() => f,
        _ => 0.0,
    }
}

/// The decimal a float is written as (its shortest text, so `12.345` stays `12.345`); 0 for
/// NaN and the infinities.
pub fn from_f64(f: f64) -> Decimal {
    if !f.is_finite() {
        return Decimal::ZERO;
    }
    Decimal::from_str(&f.to_string())
        .map(|d| d.normalize())
        .unwrap_or_default()
}

//! Where the model's f64 arithmetic meets exact decimals: every price leaves the market
//! through the option model's explicit roundings, so the same input always yields the same
//! cents.

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

pub(super) use crate::emulation::option_model::{money, round_dec};

pub(super) fn to_f64(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

//! Where the model's f64 arithmetic meets exact decimals: every price leaves the market
//! through these explicit roundings, so the same input always yields the same cents.

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

/// `x` rounded half away from zero to `dp` decimals (0 for a non-finite or huge value).
pub(super) fn round_dec(x: f64, dp: u32) -> Decimal {
    let scaled = (x * 10f64.powi(dp as i32)).round();
    if !scaled.is_finite() || scaled.abs() >= 9.0e15 {
        return Decimal::ZERO;
    }
    Decimal::new(scaled as i64, dp)
}

/// Money: cents, or 4 decimals below $1.
pub(super) fn money(x: f64) -> Decimal {
    if x.abs() < 1.0 {
        round_dec(x, 4)
    } else {
        round_dec(x, 2)
    }
}

pub(super) fn to_f64(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

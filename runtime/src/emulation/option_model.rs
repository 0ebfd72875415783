//! The option model both emulators price options with: Black-Scholes prices and greeks, the
//! implied-volatility smile, and the explicit roundings by which its f64 arithmetic leaves as
//! exact decimals (so the same input always yields the same cents).

use std::f64::consts::{SQRT_2, TAU};

use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::CallPut;
use super::json_number::float;

/// Risk-free rate of the option model.
pub const RATE: f64 = 0.04;

/// Standard normal CDF from a Chebyshev erfc (fractional error < 1.2e-7), symmetric so
/// that N(x) + N(-x) = 1 exactly (put-call parity holds to rounding).
fn norm_cdf(x: f64) -> f64 {
    let z = x.abs() / SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let tail = 0.5 * t * poly.exp();
    if x >= 0.0 { 1.0 - tail } else { tail }
}

fn norm_pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / TAU.sqrt()
}

/// A Black-Scholes value: price per share, and greeks per share (theta per calendar day,
/// vega and rho per 1 point of volatility / rate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    pub price: f64,
    pub delta: f64,
    pub gamma: f64,
    pub theta: f64,
    pub vega: f64,
    pub rho: f64,
}

pub fn black_scholes(right: CallPut, s: f64, k: f64, t: f64, sigma: f64) -> Model {
    let call = right == CallPut::Call;
    if t <= 0.0 || sigma <= 0.0 || s <= 0.0 || k <= 0.0 {
        let intrinsic = if call { s - k } else { k - s }.max(0.0);
        let itm = intrinsic > 0.0;
        return Model {
            price: intrinsic,
            delta: match (call, itm) {
                (true, true) => 1.0,
                (false, true) => -1.0,
                _ => 0.0,
            },
            gamma: 0.0,
            theta: 0.0,
            vega: 0.0,
            rho: 0.0,
        };
    }
    let sq = t.sqrt();
    let d1 = ((s / k).ln() + (RATE + 0.5 * sigma * sigma) * t) / (sigma * sq);
    let d2 = d1 - sigma * sq;
    let df = (-RATE * t).exp();
    let pdf = norm_pdf(d1);
    let decay = -s * pdf * sigma / (2.0 * sq);
    let (price, delta, theta, rho) = if call {
        let nd2 = norm_cdf(d2);
        (
            s * norm_cdf(d1) - k * df * nd2,
            norm_cdf(d1),
            (decay - RATE * k * df * nd2) / 365.0,
            k * t * df * nd2 / 100.0,
        )
    } else {
        let nmd2 = norm_cdf(-d2);
        (
            k * df * nmd2 - s * norm_cdf(-d1),
            norm_cdf(d1) - 1.0,
            (decay + RATE * k * df * nmd2) / 365.0,
            -k * t * df * nmd2 / 100.0,
        )
    };
    Model {
        price,
        delta,
        gamma: pdf / (s * sigma * sq),
        theta,
        vega: s * pdf * sq / 100.0,
        rho,
    }
}

/// The implied volatility at strike `k`: the at-the-money level with a mild skewed smile.
pub fn smile(atm: f64, s: f64, k: f64) -> f64 {
    let m = (k / s).ln();
    (atm * (1.0 + 0.4 * m * m - 0.15 * m)).clamp(0.05, 3.0)
}

/// The `OptionGreeks` block of quotes and chains: greeks to 4 decimals, `iv` the volatility
/// the model priced with (a fraction).
pub fn greeks_json(m: &Model, iv: f64) -> Value {
    json!({"rho": float(round_dec(m.rho, 4)), "vega": float(round_dec(m.vega, 4)),
        "theta": float(round_dec(m.theta, 4)), "delta": float(round_dec(m.delta, 4)),
        "gamma": float(round_dec(m.gamma, 4)), "iv": float(round_dec(iv, 4)),
        "currentValue": false})
}

/// `x` rounded half away from zero to `dp` decimals (0 for a non-finite or huge value).
pub fn round_dec(x: f64, dp: u32) -> Decimal {
    let scaled = (x * 10f64.powi(dp as i32)).round();
    if !scaled.is_finite() || scaled.abs() >= 9.0e15 {
        return Decimal::ZERO;
    }
    Decimal::new(scaled as i64, dp)
}

/// Money: cents, or 4 decimals below $1.
pub fn money(x: f64) -> Decimal {
    if x.abs() < 1.0 {
        round_dec(x, 4)
    } else {
        round_dec(x, 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm_cdf_is_accurate() {
        for (x, want) in [
            (0.0, 0.5),
            (1.0, 0.841_344_746),
            (-1.96, 0.024_997_895),
            (3.0, 0.998_650_102),
        ] {
            assert!((norm_cdf(x) - want).abs() < 1e-7, "{x}");
        }
    }

    #[test]
    fn roundings() {
        assert_eq!(round_dec(1.23456, 4), Decimal::new(12346, 5 - 1));
        assert_eq!(money(0.123456), Decimal::new(1235, 4));
        assert_eq!(money(12.345), Decimal::new(1235, 2));
        assert_eq!(round_dec(f64::NAN, 2), Decimal::ZERO);
    }
}

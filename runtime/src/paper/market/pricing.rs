//! The option model: Black-Scholes prices and greeks, and the implied-volatility smile.

use std::f64::consts::{SQRT_2, TAU};

use crate::paper::touch::CallPut;

/// Risk-free rate of the option model.
const RATE: f64 = 0.04;

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
pub(super) struct Model {
    pub(super) price: f64,
    pub(super) delta: f64,
    pub(super) gamma: f64,
    pub(super) theta: f64,
    pub(super) vega: f64,
    pub(super) rho: f64,
}

pub(super) fn black_scholes(cp: CallPut, s: f64, k: f64, t: f64, sigma: f64) -> Model {
    let call = cp == CallPut::Call;
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
pub(super) fn smile(atm: f64, s: f64, k: f64) -> f64 {
    let m = (k / s).ln();
    (atm * (1.0 + 0.4 * m * m - 0.15 * m)).clamp(0.05, 3.0)
}

#[cfg(test)]
mod tests {
    use super::super::rounding::{round_dec, to_f64};
    use super::super::sessions::{YEAR_SECS, secs};
    use super::super::test_support::{TUE_11, contract, m, ts};
    use super::*;
    use crate::calendar;
    use crate::paper::touch::{CallPut, Touch};
    use jiff::civil::date;

    #[test]
    fn parity_and_greeks() {
        let mk = m();
        let at = ts(TUE_11);
        for (sym, exp) in [
            ("AAPL", date(2026, 3, 20)),
            ("IBM", date(2026, 6, 18)),
            ("QRS", date(2026, 4, 17)),
        ] {
            let s = to_f64(mk.underlying_price(sym, at).expect("u"));
            let strikes = mk.strikes_near(sym, round_dec(s, 2)).expect("strikes");
            for k in strikes {
                let (_, call) = mk
                    .option_at(&contract(sym, exp, CallPut::Call, &k.to_string()), at)
                    .expect("call");
                let (_, put) = mk
                    .option_at(&contract(sym, exp, CallPut::Put, &k.to_string()), at)
                    .expect("put");
                let kf = to_f64(k);
                let close = calendar::regular_hours(exp).expect("trading day").1;
                let t = (secs(close) - secs(call.te)) / YEAR_SECS;
                let forward = call.s - kf * (-RATE * t).exp();
                let diff = call.model.price - put.model.price - forward;
                assert!(diff.abs() < 1e-6, "{sym} {k}: parity off by {diff}");
                // Quoted mids within their spreads of parity.
                let mid = |t: &Touch| to_f64(t.bid + t.ask) / 2.0;
                let slack = to_f64(call.touch.ask - call.touch.bid + put.touch.ask - put.touch.bid);
                assert!(
                    (mid(&call.touch) - mid(&put.touch) - forward).abs() <= slack + 0.02,
                    "{sym} {k}"
                );
                assert!((0.0..=1.0).contains(&call.model.delta));
                assert!((-1.0..=0.0).contains(&put.model.delta));
                assert!(call.model.gamma >= 0.0 && call.model.vega >= 0.0);
                assert!(call.model.theta <= 0.0);
                if (kf / s).ln().abs() < 0.1 {
                    assert!(call.model.delta > 0.0 && call.model.delta < 1.0);
                    assert!(call.model.rho > 0.0 && put.model.rho < 0.0);
                }
                assert!(call.iv >= 0.05 && call.iv <= 3.0);
            }
        }
    }

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
}

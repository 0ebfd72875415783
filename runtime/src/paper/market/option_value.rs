//! A listed option contract valued at an instant: its model value, its touch (spread,
//! sizes, volume) and its open interest.

use jiff::Timestamp;
use jiff::civil::Date;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use super::SimulatedMarket;
use super::listing::{listed_expirations, strike_listed};
use super::price_path::Profile;
use super::rounding::to_f64;
use super::seeded::{
    T_ASK_SIZE, T_BID_SIZE, T_OPT_OI, T_OPT_VOLUME, day_key, hash, minute_key, unit,
};
use super::sessions::{YEAR_SECS, effective, secs, volume_fraction};
use crate::calendar;
use crate::emulation::option_model::{self, Model, black_scholes, smile};
use crate::paper::touch::{CallPut, OptionContract, Touch};

/// An option valued at an effective instant.
pub(super) struct OptionValue {
    /// Underlying path price.
    pub(super) s: f64,
    pub(super) iv: f64,
    pub(super) model: Model,
    pub(super) touch: Touch,
    pub(super) te: Timestamp,
}

impl OptionValue {
    /// The `OptionGreeks` block of quotes and chains.
    pub(super) fn greeks_json(&self) -> serde_json::Value {
        option_model::greeks_json(&self.model, self.iv)
    }

    pub(super) fn intrinsic(&self, c: &OptionContract) -> f64 {
        let k = to_f64(c.strike);
        match c.call_put {
            CallPut::Call => self.s - k,
            CallPut::Put => k - self.s,
        }
        .max(0.0)
    }
}

impl SimulatedMarket {
    /// An option at an effective (regular-session) instant, without listing checks.
    pub(super) fn option_value(
        p: &Profile,
        c: &OptionContract,
        te: Timestamp,
    ) -> Option<OptionValue> {
        let (_, expiry_close) = calendar::regular_hours(c.expiration)?;
        let s = p.path(te);
        let k = to_f64(c.strike);
        let t = ((secs(expiry_close) - secs(te)) / YEAR_SECS).max(0.0);
        let iv = smile(p.iv, s, k);
        let model = black_scholes(c.call_put, s, k, t, iv);
        let theo = model.price.max(0.0);
        // Ticks in cents: 1 below $3, 5 above.
        let tick: i64 = if theo < 3.0 { 1 } else { 5 };
        let tick_f = tick as f64 / 100.0;
        let width = (0.02 + theo * p.opt_width).max(tick_f);
        let bid_t = ((theo - width / 2.0) / tick_f).floor().max(0.0) as i64;
        let ask_t = (((theo + width / 2.0) / tick_f).ceil() as i64).max(bid_t + 1);
        let (bid, ask) = (bid_t * tick, ask_t * tick);
        let last = ((bid + ask) / 2).max(1);
        let ck = hash(&[
            p.key,
            day_key(c.expiration),
            (c.strike * Decimal::from(1000))
                .round()
                .to_i64()
                .unwrap_or(0) as u64,
            c.call_put as u64,
        ]);
        let day = calendar::trading_day(te);
        let minute = minute_key(te);
        let pick = |tag: u64, key: u64, n: u64| hash(&[ck, tag, key]) % n;
        // Activity fades away from the money (measured at the base price, so that it is
        // constant through the day).
        let activity = (-6.0 * (k / p.base).ln().abs()).exp();
        let day_volume = unit(hash(&[ck, T_OPT_VOLUME, day_key(day)])) * 5_000.0 * activity;
        Some(OptionValue {
            s,
            iv,
            model,
            touch: Touch {
                bid: Decimal::new(bid, 2),
                ask: Decimal::new(ask, 2),
                bid_size: (1 + pick(T_BID_SIZE, minute, 50)) * 10,
                ask_size: (1 + pick(T_ASK_SIZE, minute, 50)) * 10,
                last: Decimal::new(last, 2),
                volume: (day_volume * volume_fraction(te, true)).round() as u64,
            },
            te,
        })
    }

    pub(super) fn open_interest(p: &Profile, c: &OptionContract, day: Date) -> u64 {
        let k = to_f64(c.strike);
        let activity = (-5.0 * (k / p.base).ln().abs()).exp();
        let h = hash(&[
            p.key,
            T_OPT_OI,
            day_key(c.expiration),
            day_key(day),
            (c.strike * Decimal::from(1000))
                .round()
                .to_i64()
                .unwrap_or(0) as u64,
            c.call_put as u64,
        ]);
        10 + (unit(h) * 20_000.0 * activity) as u64
    }

    /// A listed contract valued at `at`; None for an unknown underlying or an unlisted or
    /// expired contract.
    pub(super) fn option_at(
        &self,
        c: &OptionContract,
        at: Timestamp,
    ) -> Option<(Profile, OptionValue)> {
        let p = self.profile(&c.underlying)?;
        let today = calendar::trading_day(at);
        if c.expiration < today
            || !listed_expirations(today)
                .iter()
                .any(|(d, _)| *d == c.expiration)
            || !strike_listed(p.base, c.strike)
        {
            return None;
        }
        let contract = OptionContract {
            underlying: p.symbol.clone(),
            strike: c.strike.normalize(),
            ..c.clone()
        };
        let v = Self::option_value(&p, &contract, effective(at, false))?;
        Some((p, v))
    }
}

#[cfg(test)]
mod tests {
    use super::super::rounding::{round_dec, to_f64};
    use super::super::sessions::{YEAR_SECS, secs};
    use super::super::test_support::{TUE_11, contract, listed_symbols, m, ts};
    use crate::calendar;
    use crate::emulation::option_model::RATE;
    use crate::paper::touch::{CallPut, MarketData, OptionContract, Touch};
    use jiff::Timestamp;
    use jiff::civil::date;
    use proptest::prelude::*;
    use rust_decimal::Decimal;

    #[test]
    fn parity_and_greeks() {
        let mk = m();
        let at = ts(TUE_11);
        for (sym, exp) in [
            ("AAPL", date(2026, 3, 20)),
            ("IBM", date(2026, 6, 18)),
            ("ZTS", date(2026, 4, 17)),
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
    fn unlisted_contracts() {
        let mk = m();
        let at = ts(TUE_11);
        let exp = date(2026, 3, 20);
        assert!(
            mk.option(&contract("AAPL", exp, CallPut::Put, "230"), at)
                .is_some()
        );
        for c in [
            contract("AAPL", exp, CallPut::Put, "231.3"),
            contract("AAPL", exp, CallPut::Put, "232.5"), // not on the $5 ladder
            contract("AAPL", date(2026, 3, 18), CallPut::Put, "230"), // a Wednesday
            contract("AAPL", date(2026, 3, 6), CallPut::Put, "230"), // expired
            contract("AAPL", exp, CallPut::Put, "5000"),
            contract("ZZTOP", exp, CallPut::Put, "230"),
            contract("AAPL", date(2028, 3, 17), CallPut::Call, "230"), // too far out
        ] {
            assert_eq!(mk.option(&c, at), None, "{c:?}");
        }
        // Expiration day is still quoted; the day after, it is gone.
        let c = contract("AAPL", date(2026, 3, 13), CallPut::Call, "230");
        assert!(mk.option(&c, ts("2026-03-13T21:00:00Z")).is_some());
        assert_eq!(mk.option(&c, ts("2026-03-14T15:00:00Z")), None);
    }

    proptest! {
        #[test]
        fn option_touch_is_well_formed(
            sym in proptest::sample::select(listed_symbols()),
            second in 946_684_800i64..4_102_444_800,
            pick in any::<u64>(),
        ) {
            let at = Timestamp::from_second(second).expect("in range");
            let mk = m();
            let exps = mk.expirations(&sym, at).expect("known");
            prop_assert!(!exps.is_empty());
            let exp = exps[(pick % exps.len() as u64) as usize].0;
            let s = mk.underlying_price(&sym, at).expect("price");
            let strikes = mk.strikes_near(&sym, s).expect("strikes");
            prop_assert!(!strikes.is_empty());
            let k = strikes[((pick >> 8) % strikes.len() as u64) as usize];
            for cp in [CallPut::Call, CallPut::Put] {
                let c = OptionContract { underlying: sym.clone(), expiration: exp, call_put: cp, strike: k };
                let (_, v) = mk.option_at(&c, at).expect("listed");
                let t = &v.touch;
                prop_assert!(t.bid >= Decimal::ZERO && t.bid < t.ask);
                prop_assert!(t.bid <= t.last && t.last <= t.ask);
                prop_assert!((10..=500).contains(&t.bid_size));
                match cp {
                    CallPut::Call => prop_assert!((0.0..=1.0).contains(&v.model.delta)),
                    CallPut::Put => prop_assert!((-1.0..=0.0).contains(&v.model.delta)),
                }
                prop_assert!(v.model.price >= -1e-6);
            }
        }
    }
}

//! An equity's touch at an instant, and the day's derived figures a full quote shows
//! (previous close, open, high/low, 52-week range).

use jiff::{SignedDuration, Timestamp};
use rust_decimal::Decimal;

use super::SimulatedMarket;
use super::price_path::Profile;
use super::rounding::money;
use super::seeded::{T_ASK_SIZE, T_BID_SIZE, T_LAST, hash, minute_key};
use super::sessions::{
    DAY_SECS, effective, in_regular, plus, previous_trading_day, secs, volume_fraction,
};
use crate::calendar;
use crate::paper::touch::Touch;

pub(super) struct EquitySnapshot {
    pub(super) touch: Touch,
    pub(super) te: Timestamp,
    pub(super) previous_close: Decimal,
    pub(super) previous_day_volume: u64,
    pub(super) open: Decimal,
    pub(super) high: Decimal,
    pub(super) low: Decimal,
    pub(super) high52: (Decimal, i64),
    pub(super) low52: (Decimal, i64),
    /// The current day's regular close, once the regular session is over.
    pub(super) regular_close: Option<Decimal>,
}

impl SimulatedMarket {
    /// The touch of an equity at an effective instant.
    pub(super) fn equity_touch(p: &Profile, te: Timestamp) -> Touch {
        let mid = p.path(te);
        let (tick, dp) = if mid >= 1.0 { (0.01, 2) } else { (0.0001, 4) };
        let widen = if in_regular(te) { 1.0 } else { 3.0 };
        let spread = ((mid * p.spread_frac * widen / tick).round() as i64).max(1);
        let bid = ((mid / tick - spread as f64 / 2.0).floor() as i64).max(1);
        let ask = bid + spread;
        let minute = minute_key(te);
        let pick = |tag: u64, n: u64| hash(&[p.key, tag, minute]) % n;
        let last = bid + pick(T_LAST, spread as u64 + 1) as i64;
        let day = calendar::trading_day(te);
        Touch {
            bid: Decimal::new(bid, dp),
            ask: Decimal::new(ask, dp),
            bid_size: (1 + pick(T_BID_SIZE, 20)) * 100,
            ask_size: (1 + pick(T_ASK_SIZE, 20)) * 100,
            last: Decimal::new(last, dp),
            volume: (p.day_volume(day) * volume_fraction(te, false)).round() as u64,
        }
    }

    pub(super) fn equity_snapshot(p: &Profile, at: Timestamp) -> EquitySnapshot {
        let te = effective(at, true);
        let touch = Self::equity_touch(p, te);
        let day = calendar::trading_day(te);
        let hours = calendar::regular_hours(day);
        let prev_day = previous_trading_day(day);
        let prev_close_at = prev_day.and_then(calendar::regular_hours).map(|(_, c)| c);
        let previous_close = prev_close_at.map_or(touch.last, |c| money(p.path(c)));
        let previous_day_volume = prev_day.map_or(0, |d| p.day_volume(d).round() as u64);
        let mut samples = vec![touch.last];
        let mut open = previous_close;
        let mut regular_close = None;
        if let Some((o, c)) = hours
            && te >= o
        {
            open = money(p.path(o));
            samples.push(open);
            let end = te.min(c);
            let mut s = o;
            while s < end {
                samples.push(money(p.path(s)));
                s = plus(s, SignedDuration::from_mins(30)).unwrap_or(end);
            }
            samples.push(money(p.path(end)));
            if te >= c {
                regular_close = Some(money(p.path(c)));
            }
        }
        let high = samples.iter().copied().max().unwrap_or(touch.last);
        let low = samples.iter().copied().min().unwrap_or(touch.last);
        let mut high52 = (high, te.as_second());
        let mut low52 = (low, te.as_second());
        let week = 7.0 * DAY_SECS;
        for k in 1..=52 {
            let at_s = secs(te) - f64::from(k) * week;
            let v = money(p.base * p.log_path(at_s).exp());
            if v > high52.0 {
                high52 = (v, at_s as i64);
            }
            if v < low52.0 {
                low52 = (v, at_s as i64);
            }
        }
        EquitySnapshot {
            touch,
            te,
            previous_close,
            previous_day_volume,
            open,
            high,
            low,
            high52,
            low52,
            regular_close,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::SimulatedMarket;
    use super::super::test_support::listed_symbols;
    use crate::paper::touch::MarketData;
    use jiff::Timestamp;
    use proptest::prelude::*;
    use rust_decimal::Decimal;

    proptest! {
        #[test]
        fn equity_touch_is_well_formed(
            sym in proptest::sample::select(listed_symbols()),
            second in 946_684_800i64..4_102_444_800,
            seed in any::<u64>(),
        ) {
            let at = Timestamp::from_second(second).expect("in range");
            let mk = SimulatedMarket::new(seed);
            let t = mk.equity(&sym, at).expect("known");
            prop_assert!(t.bid > Decimal::ZERO);
            prop_assert!(t.bid < t.ask);
            prop_assert!(t.ask - t.bid >= Decimal::new(1, 2));
            prop_assert!(t.bid <= t.last && t.last <= t.ask);
            prop_assert!(t.bid.scale() <= 2 && t.ask.scale() <= 2);
            prop_assert!((100..=2_000).contains(&t.bid_size) && t.bid_size % 100 == 0);
            prop_assert!((100..=2_000).contains(&t.ask_size) && t.ask_size % 100 == 0);
            prop_assert_eq!(mk.equity(&sym, at), Some(t));
        }
    }
}

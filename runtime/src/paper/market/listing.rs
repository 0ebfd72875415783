//! Which options are listed: the expiries (weeklies and monthlies, holiday Fridays moved
//! back) and the strike ladder within a band of the underlying's base price.

use jiff::civil::{Date, Weekday};
use jiff::{Span, Timestamp};
use rust_decimal::Decimal;

use super::price_path::Profile;
use super::rounding::to_f64;
use super::{ExpiryType, SimulatedMarket};
use crate::calendar;

/// Listed strikes lie within [LOW, HIGH] × the base price (the path stays within about
/// ±30% of it), so listings do not depend on the instant.
const STRIKE_BAND: (f64, f64) = (0.25, 4.0);
/// Strikes on each side of the centre of a chain.
const CHAIN_HALF_WIDTH: usize = 20;
const WEEKLY_EXPIRIES: i64 = 8;
const MONTHLY_EXPIRIES: usize = 12;

/// A holiday Friday's expiry moves back to the previous trading day (the Thursday).
fn trading_day_on_or_before(d: Date) -> Option<Date> {
    let mut day = d;
    for _ in 0..5 {
        if calendar::is_trading_day(day) {
            return Some(day);
        }
        day = day.yesterday().ok()?;
    }
    None
}

/// The expiries listed on `today`, sorted: the Fridays of the next 8 weeks and the third
/// Fridays of the next 12 months (a date that is both is MONTHLY).
pub(super) fn listed_expirations(today: Date) -> Vec<(Date, ExpiryType)> {
    let mut out: Vec<(Date, ExpiryType)> = Vec::new();
    let first = today.first_of_month();
    for k in 0..=MONTHLY_EXPIRIES as i64 {
        if out.len() >= MONTHLY_EXPIRIES {
            break;
        }
        let Some(d) = first
            .checked_add(Span::new().months(k))
            .and_then(|m| m.nth_weekday_of_month(3, Weekday::Friday))
            .ok()
            .and_then(trading_day_on_or_before)
        else {
            continue;
        };
        if d >= today {
            out.push((d, ExpiryType::Monthly));
        }
    }
    let to_friday = i64::from(
        (Weekday::Friday.to_monday_zero_offset() - today.weekday().to_monday_zero_offset())
            .rem_euclid(7),
    );
    for w in 0..WEEKLY_EXPIRIES {
        let Some(d) = today
            .checked_add(Span::new().days(to_friday + 7 * w))
            .ok()
            .and_then(trading_day_on_or_before)
        else {
            continue;
        };
        if d >= today && !out.iter().any(|(e, _)| *e == d) {
            out.push((d, ExpiryType::Weekly));
        }
    }
    out.sort();
    out
}

fn strike_step(k: Decimal) -> Decimal {
    if k < Decimal::from(25) {
        Decimal::ONE
    } else if k < Decimal::from(200) {
        Decimal::new(25, 1)
    } else {
        Decimal::from(5)
    }
}

fn on_ladder(k: Decimal) -> bool {
    k > Decimal::ZERO && (k % strike_step(k)).is_zero()
}

fn strike_up(k: Decimal) -> Decimal {
    (k + strike_step(k)).normalize()
}

fn strike_down(k: Decimal) -> Decimal {
    let step = if k <= Decimal::from(25) {
        Decimal::ONE
    } else if k <= Decimal::from(200) {
        Decimal::new(25, 1)
    } else {
        Decimal::from(5)
    };
    (k - step).normalize()
}

/// The ladder strike nearest `x` (at least 1).
fn nearest_strike(x: Decimal) -> Decimal {
    let step = strike_step(x);
    let k = ((x / step).round() * step).normalize();
    if k < Decimal::ONE { Decimal::ONE } else { k }
}

pub(super) fn strike_listed(base: f64, k: Decimal) -> bool {
    let kf = to_f64(k);
    on_ladder(k) && kf >= (base * STRIKE_BAND.0).max(1.0) && kf <= base * STRIKE_BAND.1
}

/// Listed strikes within ±20 ladder steps of the ladder strike nearest `near`, ascending.
pub(super) fn strike_window(p: &Profile, near: Decimal) -> Vec<Decimal> {
    // Far beyond any listed strike; keeps the ladder arithmetic away from Decimal's limits.
    let near = near.clamp(Decimal::ZERO, Decimal::from(1_000_000_000u64));
    let centre = nearest_strike(near);
    let mut out = Vec::new();
    let mut k = centre;
    for _ in 0..CHAIN_HALF_WIDTH {
        k = strike_down(k);
        if k <= Decimal::ZERO {
            break;
        }
        out.push(k);
    }
    out.reverse();
    out.push(centre);
    let mut k = centre;
    for _ in 0..CHAIN_HALF_WIDTH {
        k = strike_up(k);
        out.push(k);
    }
    out.retain(|k| strike_listed(p.base, *k));
    out
}

impl SimulatedMarket {
    /// The expiries listed for `symbol` on the trading day of `at`, sorted; None for an
    /// unknown symbol.
    pub fn expirations(&self, symbol: &str, at: Timestamp) -> Option<Vec<(Date, ExpiryType)>> {
        self.profile(symbol)?;
        Some(listed_expirations(calendar::trading_day(at)))
    }

    /// The listed strikes within ±20 ladder steps of `near` (ascending); None for an
    /// unknown symbol.
    pub fn strikes_near(&self, symbol: &str, near: Decimal) -> Option<Vec<Decimal>> {
        let p = self.profile(symbol)?;
        Some(strike_window(&p, near))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    use super::super::test_support::m;
    use crate::calendar;
    use jiff::civil::date;

    #[test]
    fn expirations_are_listed_trading_days() {
        let today = date(2026, 3, 10);
        let e = listed_expirations(today);
        assert!(e.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(
            e.iter()
                .all(|(d, _)| calendar::is_trading_day(*d) && *d >= today)
        );
        assert_eq!(
            e.iter().filter(|x| x.1 == ExpiryType::Monthly).count(),
            MONTHLY_EXPIRIES
        );
        assert_eq!(e[0], (date(2026, 3, 13), ExpiryType::Weekly));
        assert!(e.contains(&(date(2026, 3, 20), ExpiryType::Monthly)));
        // Good Friday 2026-04-03 → Thursday; Juneteenth 2026-06-19 is the June monthly.
        assert!(e.contains(&(date(2026, 4, 2), ExpiryType::Weekly)));
        assert!(e.contains(&(date(2026, 6, 18), ExpiryType::Monthly)));
        assert!(!e.iter().any(|(d, _)| *d == date(2026, 4, 3)));
        assert_eq!(e.last().map(|x| x.0), Some(date(2027, 2, 19)));
        // The weeklies cover 8 weeks: the last is 2026-05-01.
        assert!(e.contains(&(date(2026, 5, 1), ExpiryType::Weekly)));
        assert!(!e.iter().any(|(d, _)| *d == date(2026, 5, 8)));
        // On an expiry Friday, that day is still listed.
        assert_eq!(
            listed_expirations(date(2026, 3, 13))[0].0,
            date(2026, 3, 13)
        );
    }

    #[test]
    fn strike_ladder() {
        for (k, ok) in [
            ("24", true),
            ("24.5", false),
            ("25", true),
            ("27.5", true),
            ("28", false),
            ("197.5", true),
            ("200", true),
            ("202.5", false),
            ("205", true),
            ("0", false),
        ] {
            assert_eq!(on_ladder(Decimal::from_str(k).expect("k")), ok, "{k}");
        }
        assert_eq!(strike_down(Decimal::from(25)), Decimal::from(24));
        assert_eq!(strike_down(Decimal::from(200)), Decimal::new(1975, 1));
        assert_eq!(strike_up(Decimal::new(1975, 1)), Decimal::from(200));
        assert_eq!(nearest_strike(Decimal::new(23_130, 2)), Decimal::from(230));
        let w = m().strikes_near("AAPL", Decimal::from(231)).expect("aapl");
        assert_eq!(w.len(), 41);
        assert_eq!(w[20], Decimal::from(230));
        assert!(w.windows(2).all(|p| p[0] < p[1]));
    }
}

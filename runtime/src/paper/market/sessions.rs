//! Session timing: which instant's price is shown at a given moment (prices freeze between
//! sessions), and how much of a day's volume has traded by then.

use std::f64::consts::TAU;

use jiff::civil::Date;
use jiff::{SignedDuration, Timestamp};

use crate::calendar::{self, SessionPhase};

pub(super) const DAY_SECS: f64 = 86_400.0;
pub(super) const YEAR_SECS: f64 = 365.0 * DAY_SECS;

pub(super) fn secs(t: Timestamp) -> f64 {
    t.as_second() as f64 + f64::from(t.subsec_nanosecond()) * 1e-9
}

pub(super) fn plus(t: Timestamp, d: SignedDuration) -> Option<Timestamp> {
    t.checked_add(d).ok()
}

/// The instant whose price is shown at `t`: `t` itself inside a session (any session when
/// `extended`, else the regular one), otherwise the end of the last session before it.
pub(super) fn effective(t: Timestamp, extended: bool) -> Timestamp {
    let phase = calendar::phase_at(t);
    let open = if extended {
        phase != SessionPhase::Closed
    } else {
        phase == SessionPhase::Regular
    };
    if open {
        return t;
    }
    let mut day = calendar::trading_day(t);
    // The longest closure is four days; the bound keeps this O(1) at the ends of time.
    for _ in 0..16 {
        if let Some((open, close)) = calendar::regular_hours(day) {
            let ends = if extended {
                // Pre-market ends 5 minutes before the open, after-hours 4 hours after the
                // close (20:00, or 17:00 after an early close).
                [
                    plus(open, SignedDuration::from_mins(-5)),
                    Some(close),
                    plus(close, SignedDuration::from_hours(4)),
                ]
            } else {
                [None, Some(close), None]
            };
            if let Some(end) = ends.into_iter().flatten().filter(|e| *e <= t).max() {
                return end;
            }
        }
        match day.yesterday() {
            Ok(d) => day = d,
            Err(_) => break,
        }
    }
    t
}

/// Whether `te` (an effective instant) lies in its day's regular session, ends included.
pub(super) fn in_regular(te: Timestamp) -> bool {
    calendar::regular_hours(calendar::trading_day(te))
        .is_some_and(|(open, close)| open <= te && te <= close)
}

fn elapsed(te: Timestamp, from: Option<Timestamp>, to: Option<Timestamp>) -> f64 {
    match (from, to) {
        (Some(a), Some(b)) if b > a => ((secs(te) - secs(a)) / (secs(b) - secs(a))).clamp(0.0, 1.0),
        _ => 0.0,
    }
}

/// U-shaped cumulative share of the regular session's volume after a fraction x of it.
fn regular_curve(x: f64) -> f64 {
    (x + 0.3 / TAU * (TAU * x).sin()).clamp(0.0, 1.0)
}

/// The share of its day's volume traded by the effective instant `te`: 3% pre-market, 90%
/// in the regular session, 7% after hours. (`regular_only`: the regular session's share.)
pub(super) fn volume_fraction(te: Timestamp, regular_only: bool) -> f64 {
    let Some((open, close)) = calendar::regular_hours(calendar::trading_day(te)) else {
        return 1.0;
    };
    let regular = regular_curve(elapsed(te, Some(open), Some(close)));
    if regular_only {
        return regular;
    }
    let pre = elapsed(
        te,
        plus(open, SignedDuration::from_mins(-150)),
        plus(open, SignedDuration::from_mins(-5)),
    );
    let after = elapsed(
        te,
        plus(close, SignedDuration::from_mins(5)),
        plus(close, SignedDuration::from_hours(4)),
    );
    0.03 * pre + 0.90 * regular + 0.07 * after
}

pub(super) fn previous_trading_day(d: Date) -> Option<Date> {
    let mut day = d;
    for _ in 0..16 {
        day = day.yesterday().ok()?;
        if calendar::is_trading_day(day) {
            return Some(day);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{TUE_11, contract, m, ts};
    use crate::paper::touch::{CallPut, MarketData, Touch};
    use jiff::SignedDuration;
    use jiff::civil::date;
    use rust_decimal::Decimal;

    #[test]
    fn frozen_outside_sessions_moving_inside() {
        let mk = m();
        let fri_close = mk.equity("AAPL", ts("2026-03-07T01:00:00Z")); // Fri 20:00 EST
        for t in [
            "2026-03-07T01:30:00Z", // Fri 20:30
            "2026-03-07T17:00:00Z", // Saturday
            "2026-03-08T20:00:00Z", // Sunday (EDT from 02:00)
            "2026-03-09T10:59:59Z", // Mon 06:59:59 EDT
        ] {
            assert_eq!(mk.equity("AAPL", ts(t)), fri_close, "{t}");
        }
        // Overnight Tuesday → Wednesday.
        let tue = mk.equity("MSFT", ts("2026-03-11T00:00:00Z"));
        assert_eq!(mk.equity("MSFT", ts("2026-03-11T09:00:00Z")), tue);
        // Gaps between sessions: 09:25–09:30 and 16:00–16:05.
        assert_eq!(
            mk.equity("MSFT", ts("2026-03-10T13:25:00Z")),
            mk.equity("MSFT", ts("2026-03-10T13:29:59Z"))
        );
        assert_eq!(
            mk.equity("MSFT", ts("2026-03-10T20:00:00Z")),
            mk.equity("MSFT", ts("2026-03-10T20:04:59Z"))
        );
        // A holiday (Good Friday 2026-04-03) holds Thursday's after-hours close.
        assert_eq!(
            mk.equity("IBM", ts("2026-04-03T15:00:00Z")),
            mk.equity("IBM", ts("2026-04-03T00:00:00Z"))
        );
        // During the regular session the price moves and the volume grows.
        let day: Vec<Touch> = (0..13)
            .map(|i| {
                let t = ts("2026-03-10T13:30:00Z")
                    .checked_add(SignedDuration::from_mins(30 * i))
                    .expect("t");
                mk.equity("AAPL", t).expect("aapl")
            })
            .collect();
        let mids: std::collections::HashSet<Decimal> = day.iter().map(|t| t.bid + t.ask).collect();
        assert!(mids.len() > 5, "price moves: {mids:?}");
        assert!(day.windows(2).all(|w| w[0].volume < w[1].volume));
        // Options do not move outside the regular session.
        let c = contract("AAPL", date(2026, 3, 20), CallPut::Call, "230");
        assert_eq!(
            mk.option(&c, ts("2026-03-10T20:00:00Z")),
            mk.option(&c, ts("2026-03-10T23:00:00Z"))
        );
        // Options only count regular-session volume; each one's spread is positive.
        let t = mk.option(&c, ts(TUE_11)).expect("listed");
        assert!(t.bid < t.ask);
    }
}

//! The US equity market calendar in America/New_York: NYSE full-day holidays, early
//! closes, and the regular and E*TRADE extended-hours sessions.
//!
//! Holidays are computed from the current NYSE rules for any year, so one-off closures
//! (national days of mourning, weather, 2001-09-11) are not known, and years before a
//! rule took effect are only as accurate as the `from` years noted below.

use std::sync::{LazyLock, Mutex, PoisonError};

use jiff::Timestamp;
use jiff::civil::{Date, DateTime, Time, Weekday, time};
use jiff::tz::TimeZone;

/// Name of the market's time zone, for messages.
pub const TIME_ZONE_NAME: &str = "America/New_York";

const PRE_MARKET_OPEN: Time = time(7, 0, 0, 0);
const PRE_MARKET_CLOSE: Time = time(9, 25, 0, 0);
const REGULAR_OPEN: Time = time(9, 30, 0, 0);
const REGULAR_CLOSE: Time = time(16, 0, 0, 0);
const AFTER_HOURS_OPEN: Time = time(16, 5, 0, 0);
const AFTER_HOURS_CLOSE: Time = time(20, 0, 0, 0);
const EARLY_CLOSE: Time = time(13, 0, 0, 0);
const EARLY_AFTER_HOURS_OPEN: Time = time(13, 5, 0, 0);
const EARLY_AFTER_HOURS_CLOSE: Time = time(17, 0, 0, 0);

/// America/New_York, from the bundled tzdb (the `tzdb-bundle-always` feature), so it
/// does not depend on the host having zoneinfo files.
static NEW_YORK: LazyLock<TimeZone> = LazyLock::new(|| {
    TimeZone::get(TIME_ZONE_NAME)
        // The US rule in force since 2007; only reached if the bundle were missing.
        .or_else(|_| TimeZone::posix("EST5EDT,M3.2.0,M11.1.0"))
        .expect("America/New_York is bundled and the POSIX rule is valid")
});

/// The market's time zone.
pub fn time_zone() -> &'static TimeZone {
    &NEW_YORK
}

/// Which trading session is in progress at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionPhase {
    Closed,
    /// E*TRADE's pre-market session, 07:00–09:25 ET.
    PreMarket,
    /// 09:30–16:00 ET (13:00 on early-close days).
    Regular,
    /// E*TRADE's after-hours session, 16:05–20:00 ET (13:05–17:00 after an early close).
    AfterHours,
}

/// The session in progress at `t`. Sessions are half-open: 09:30:00 is Regular and
/// 16:00:00 is not.
pub fn phase_at(t: Timestamp) -> SessionPhase {
    // Comparing wall-clock times is safe: DST switches happen at 02:00, outside every
    // session, so no session is ever stretched or shortened by one.
    let local = NEW_YORK.to_datetime(t);
    let day = local.date();
    if !is_trading_day(day) {
        return SessionPhase::Closed;
    }
    let (close, after_open, after_close) = match early_close(day) {
        Some(close) => (close, EARLY_AFTER_HOURS_OPEN, EARLY_AFTER_HOURS_CLOSE),
        None => (REGULAR_CLOSE, AFTER_HOURS_OPEN, AFTER_HOURS_CLOSE),
    };
    let now = local.time();
    if (PRE_MARKET_OPEN..PRE_MARKET_CLOSE).contains(&now) {
        SessionPhase::PreMarket
    } else if (REGULAR_OPEN..close).contains(&now) {
        SessionPhase::Regular
    } else if (after_open..after_close).contains(&now) {
        SessionPhase::AfterHours
    } else {
        SessionPhase::Closed
    }
}

/// The New York civil date of `t`: the trading day daily limits are counted against.
pub fn trading_day(t: Timestamp) -> Date {
    NEW_YORK.to_datetime(t).date()
}

/// Whether the market has a regular session on `d`: a weekday that is not a holiday.
pub fn is_trading_day(d: Date) -> bool {
    !is_weekend(d) && holiday(d).is_none()
}

/// The name of the NYSE full-day holiday observed on `d`, if any.
pub fn holiday(d: Date) -> Option<&'static str> {
    // Every session check asks, several times per order, mostly about one year: the last
    // year's holidays (Easter's among them) are kept rather than worked out each time.
    static LAST_YEAR: Mutex<Option<(i16, Holidays)>> = Mutex::new(None);
    let year = d.year();
    let days = {
        let mut last = LAST_YEAR.lock().unwrap_or_else(PoisonError::into_inner);
        match *last {
            Some((y, days)) if y == year => days,
            _ => {
                let days = holidays(year);
                *last = Some((year, days));
                days
            }
        }
    };
    days.into_iter()
        .find_map(|(date, name)| (date == Some(d)).then_some(name))
}

type Holidays = [(Option<Date>, &'static str); 10];

/// The early close (13:00 ET) of `d`, if it is an early-close trading day: the day after
/// Thanksgiving, Christmas Eve, and July 3 (the last two only when they are trading days,
/// which rules out weekends and the Friday a Saturday holiday is observed on).
pub fn early_close(d: Date) -> Option<Time> {
    if !is_trading_day(d) {
        return None;
    }
    let day_after_thanksgiving = thanksgiving(d.year()).and_then(|t| t.tomorrow().ok());
    let fixed = |month, day| Date::new(d.year(), month, day).ok();
    let early =
        day_after_thanksgiving == Some(d) || fixed(12, 24) == Some(d) || fixed(7, 3) == Some(d);
    early.then_some(EARLY_CLOSE)
}

/// The regular session's open and close instants on `d`; None when the market is closed
/// (or, at the very end of jiff's range, when the instants cannot be represented).
pub fn regular_hours(d: Date) -> Option<(Timestamp, Timestamp)> {
    if !is_trading_day(d) {
        return None;
    }
    let close = early_close(d).unwrap_or(REGULAR_CLOSE);
    Some((
        instant(d.to_datetime(REGULAR_OPEN))?,
        instant(d.to_datetime(close))?,
    ))
}

/// The open of the first regular session starting after `t` (the next day's when `t` is
/// inside a session). `Timestamp::MAX` when there is none before the end of jiff's range.
pub fn next_regular_open(t: Timestamp) -> Timestamp {
    let mut day = trading_day(t);
    // The longest rule-based closure is a holiday next to a weekend (four days), so two
    // weeks always finds an open; the bound keeps the loop finite at the end of time.
    for _ in 0..14 {
        if let Some((open, _)) = regular_hours(day)
            && open > t
        {
            return open;
        }
        match day.tomorrow() {
            Ok(next) => day = next,
            Err(_) => break,
        }
    }
    Timestamp::MAX
}

fn instant(local: DateTime) -> Option<Timestamp> {
    NEW_YORK.to_timestamp(local).ok()
}

fn is_weekend(d: Date) -> bool {
    matches!(d.weekday(), Weekday::Saturday | Weekday::Sunday)
}

/// Every full-day holiday of `year` as (observed date, name). A date is None only when it
/// cannot be represented (never for years jiff supports), which simply means no holiday.
fn holidays(year: i16) -> Holidays {
    let fixed = |month, day| Date::new(year, month, day).ok();
    let nth = |month, nth, weekday| {
        Date::new(year, month, 1)
            .and_then(|first| first.nth_weekday_of_month(nth, weekday))
            .ok()
    };
    [
        // NYSE rule 7.2: a Saturday New Year's Day is not observed on Friday December 31,
        // which would fall in the previous year's books.
        (
            fixed(1, 1).and_then(|d| observed(d, false)),
            "New Year's Day",
        ),
        (
            nth(1, 3, Weekday::Monday).filter(|_| year >= 1998),
            "Martin Luther King Jr. Day",
        ),
        (nth(2, 3, Weekday::Monday), "Washington's Birthday"),
        (good_friday(year), "Good Friday"),
        (nth(5, -1, Weekday::Monday), "Memorial Day"),
        (
            fixed(6, 19)
                .filter(|_| year >= 2022)
                .and_then(|d| observed(d, true)),
            "Juneteenth National Independence Day",
        ),
        (
            fixed(7, 4).and_then(|d| observed(d, true)),
            "Independence Day",
        ),
        (nth(9, 1, Weekday::Monday), "Labor Day"),
        (thanksgiving(year), "Thanksgiving Day"),
        (
            fixed(12, 25).and_then(|d| observed(d, true)),
            "Christmas Day",
        ),
    ]
}

/// Where a fixed-date holiday is observed: Sunday moves to Monday, Saturday to Friday
/// (or, when `saturday_to_friday` is false, is not observed at all).
fn observed(d: Date, saturday_to_friday: bool) -> Option<Date> {
    match d.weekday() {
        Weekday::Saturday if saturday_to_friday => d.yesterday().ok(),
        Weekday::Saturday => None,
        Weekday::Sunday => d.tomorrow().ok(),
        _ => Some(d),
    }
}

fn thanksgiving(year: i16) -> Option<Date> {
    Date::new(year, 11, 1)
        .and_then(|first| first.nth_weekday_of_month(4, Weekday::Thursday))
        .ok()
}

/// Two days before Easter Sunday, by the anonymous Gregorian computus (Meeus/Jones/
/// Butcher). Euclidean division keeps it well-defined for the negative years jiff allows.
fn good_friday(year: i16) -> Option<Date> {
    let y = i32::from(year);
    let a = y.rem_euclid(19);
    let (b, c) = (y.div_euclid(100), y.rem_euclid(100));
    let (d, e) = (b.div_euclid(4), b.rem_euclid(4));
    let f = (b + 8).div_euclid(25);
    let g = (b - f + 1).div_euclid(3);
    let h = (19 * a + b - d - g + 15).rem_euclid(30);
    let (i, k) = (c.div_euclid(4), c.rem_euclid(4));
    let l = (32 + 2 * e + 2 * i - h - k).rem_euclid(7);
    let m = (a + 11 * h + 22 * l).div_euclid(451);
    let n = h + l - 7 * m + 114;
    let month = i8::try_from(n / 31).ok()?;
    let day = i8::try_from(n % 31 + 1).ok()?;
    let easter = Date::new(year, month, day).ok()?;
    easter.yesterday().and_then(Date::yesterday).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;
    use proptest::prelude::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().expect("valid timestamp")
    }

    fn holidays_of(year: i16) -> Vec<Date> {
        let mut d = date(year, 1, 1);
        let mut out = Vec::new();
        while d.year() == year {
            if holiday(d).is_some() {
                out.push(d);
            }
            d = d.tomorrow().expect("in range");
        }
        out
    }

    #[test]
    fn nyse_holidays_2025_to_2027() {
        // 2025-01-09 (national day of mourning) was a one-off closure and is not a rule.
        assert_eq!(
            holidays_of(2025),
            [
                date(2025, 1, 1),
                date(2025, 1, 20),
                date(2025, 2, 17),
                date(2025, 4, 18),
                date(2025, 5, 26),
                date(2025, 6, 19),
                date(2025, 7, 4),
                date(2025, 9, 1),
                date(2025, 11, 27),
                date(2025, 12, 25),
            ]
        );
        assert_eq!(
            holidays_of(2026),
            [
                date(2026, 1, 1),
                date(2026, 1, 19),
                date(2026, 2, 16),
                date(2026, 4, 3),
                date(2026, 5, 25),
                date(2026, 6, 19),
                date(2026, 7, 3),
                date(2026, 9, 7),
                date(2026, 11, 26),
                date(2026, 12, 25),
            ]
        );
        assert_eq!(
            holidays_of(2027),
            [
                date(2027, 1, 1),
                date(2027, 1, 18),
                date(2027, 2, 15),
                date(2027, 3, 26),
                date(2027, 5, 31),
                date(2027, 6, 18),
                date(2027, 7, 5),
                date(2027, 9, 6),
                date(2027, 11, 25),
                date(2027, 12, 24),
            ]
        );
    }

    #[test]
    fn holiday_names_and_observance() {
        assert_eq!(holiday(date(2026, 4, 3)), Some("Good Friday"));
        assert_eq!(
            holiday(date(2027, 6, 18)),
            Some("Juneteenth National Independence Day")
        );
        assert_eq!(holiday(date(2027, 12, 24)), Some("Christmas Day"));
        assert_eq!(holiday(date(2027, 7, 5)), Some("Independence Day"));
        // New Year's Day 2028 is a Saturday and is not observed on Friday 2027-12-31.
        assert_eq!(date(2028, 1, 1).weekday(), Weekday::Saturday);
        assert_eq!(holiday(date(2027, 12, 31)), None);
        assert!(is_trading_day(date(2027, 12, 31)));
        assert!(
            holidays_of(2028)
                .iter()
                .all(|d| d.month() != 1 || d.day() > 1)
        );
        // Sunday New Year's Day moves to Monday.
        assert_eq!(holiday(date(2023, 1, 2)), Some("New Year's Day"));
        // Rules that began in a given year.
        assert_eq!(holiday(date(2021, 6, 18)), None);
        assert_eq!(
            holiday(date(2022, 6, 20)),
            Some("Juneteenth National Independence Day")
        );
        assert_eq!(holiday(date(1997, 1, 20)), None);
        assert_eq!(
            holiday(date(1998, 1, 19)),
            Some("Martin Luther King Jr. Day")
        );
        // Easter extremes: 2285 has the earliest (March 22), 2038 the latest (April 25).
        assert_eq!(holiday(date(2285, 3, 20)), Some("Good Friday"));
        assert_eq!(holiday(date(2038, 4, 23)), Some("Good Friday"));
    }

    #[test]
    fn trading_days() {
        assert!(is_trading_day(date(2026, 3, 9)));
        assert!(!is_trading_day(date(2026, 3, 7)), "Saturday");
        assert!(!is_trading_day(date(2026, 3, 8)), "Sunday");
        assert!(!is_trading_day(date(2026, 12, 25)), "holiday");
        assert_eq!(regular_hours(date(2026, 3, 7)), None);
        assert_eq!(regular_hours(date(2026, 12, 25)), None);
    }

    #[test]
    fn early_closes() {
        let one_pm = Some(time(13, 0, 0, 0));
        assert_eq!(early_close(date(2025, 7, 3)), one_pm);
        assert_eq!(early_close(date(2025, 11, 28)), one_pm);
        assert_eq!(early_close(date(2025, 12, 24)), one_pm);
        assert_eq!(early_close(date(2026, 11, 27)), one_pm);
        assert_eq!(early_close(date(2026, 12, 24)), one_pm);
        assert_eq!(early_close(date(2027, 11, 26)), one_pm);
        // July 3 2026 is the observed Independence Day; July 3 2027 is a Saturday;
        // Christmas Eve 2027 is the observed Christmas.
        assert_eq!(early_close(date(2026, 7, 3)), None);
        assert_eq!(early_close(date(2027, 7, 3)), None);
        assert_eq!(early_close(date(2027, 12, 24)), None);
        assert_eq!(early_close(date(2026, 3, 9)), None);

        let (open, close) = regular_hours(date(2025, 12, 24)).expect("trading day");
        assert_eq!(open, ts("2025-12-24T14:30:00Z"));
        assert_eq!(close, ts("2025-12-24T18:00:00Z"));
        assert_eq!(phase_at(ts("2025-12-24T17:59:59Z")), SessionPhase::Regular);
        assert_eq!(phase_at(ts("2025-12-24T18:00:00Z")), SessionPhase::Closed);
        assert_eq!(
            phase_at(ts("2025-12-24T18:05:00Z")),
            SessionPhase::AfterHours
        );
        assert_eq!(
            phase_at(ts("2025-12-24T21:59:59Z")),
            SessionPhase::AfterHours
        );
        assert_eq!(phase_at(ts("2025-12-24T22:00:00Z")), SessionPhase::Closed);
        assert_eq!(
            phase_at(ts("2025-12-24T12:00:00Z")),
            SessionPhase::PreMarket
        );
    }

    #[test]
    fn session_boundaries() {
        // 2026-03-10 is a Tuesday in EDT (UTC-4).
        let cases = [
            ("2026-03-10T10:59:59Z", SessionPhase::Closed),
            ("2026-03-10T11:00:00Z", SessionPhase::PreMarket),
            ("2026-03-10T13:24:59Z", SessionPhase::PreMarket),
            ("2026-03-10T13:25:00Z", SessionPhase::Closed),
            ("2026-03-10T13:30:00Z", SessionPhase::Regular),
            ("2026-03-10T19:59:59Z", SessionPhase::Regular),
            ("2026-03-10T20:00:00Z", SessionPhase::Closed),
            ("2026-03-10T20:05:00Z", SessionPhase::AfterHours),
            ("2026-03-10T23:59:59Z", SessionPhase::AfterHours),
            ("2026-03-11T00:00:00Z", SessionPhase::Closed),
            // Saturday and a holiday are closed all day.
            ("2026-03-07T15:00:00Z", SessionPhase::Closed),
            ("2026-04-03T15:00:00Z", SessionPhase::Closed),
        ];
        for (at, phase) in cases {
            assert_eq!(phase_at(ts(at)), phase, "{at}");
        }
    }

    #[test]
    fn dst_transitions() {
        // 2026: DST starts Sunday March 8 and ends Sunday November 1. 09:30 ET is 14:30Z
        // in EST and 13:30Z in EDT.
        assert_eq!(phase_at(ts("2026-03-06T14:30:00Z")), SessionPhase::Regular);
        assert_eq!(phase_at(ts("2026-03-06T14:29:00Z")), SessionPhase::Closed);
        assert_eq!(
            phase_at(ts("2026-03-06T13:30:00Z")),
            SessionPhase::PreMarket
        );
        assert_eq!(phase_at(ts("2026-03-09T13:30:00Z")), SessionPhase::Regular);
        assert_eq!(phase_at(ts("2026-03-09T13:29:00Z")), SessionPhase::Closed);
        assert_eq!(phase_at(ts("2026-10-30T13:30:00Z")), SessionPhase::Regular);
        assert_eq!(
            phase_at(ts("2026-11-02T13:30:00Z")),
            SessionPhase::PreMarket
        );
        assert_eq!(phase_at(ts("2026-11-02T14:30:00Z")), SessionPhase::Regular);
        assert_eq!(
            regular_hours(date(2026, 3, 9)),
            Some((ts("2026-03-09T13:30:00Z"), ts("2026-03-09T20:00:00Z")))
        );
        assert_eq!(
            regular_hours(date(2026, 11, 2)),
            Some((ts("2026-11-02T14:30:00Z"), ts("2026-11-02T21:00:00Z")))
        );
        // The trading day is the New York date, not the UTC one.
        assert_eq!(trading_day(ts("2026-03-10T03:00:00Z")), date(2026, 3, 9));
    }

    #[test]
    fn next_open() {
        // Friday evening before a Monday holiday (MLK Day 2026-01-19) → Tuesday.
        assert_eq!(
            next_regular_open(ts("2026-01-16T22:00:00Z")),
            ts("2026-01-20T14:30:00Z")
        );
        // Before the open on a trading day → that day; during the session → the next.
        assert_eq!(
            next_regular_open(ts("2026-03-10T12:00:00Z")),
            ts("2026-03-10T13:30:00Z")
        );
        assert_eq!(
            next_regular_open(ts("2026-03-10T13:30:00Z")),
            ts("2026-03-11T13:30:00Z")
        );
        // Over Good Friday and a weekend, across the DST switch: Thursday → Monday.
        assert_eq!(
            next_regular_open(ts("2026-04-02T21:00:00Z")),
            ts("2026-04-06T13:30:00Z")
        );
        assert_eq!(next_regular_open(Timestamp::MAX), Timestamp::MAX);
    }

    proptest! {
        #[test]
        fn calendar_never_panics_and_regular_is_a_trading_day(
            second in Timestamp::MIN.as_second()..=Timestamp::MAX.as_second()
        ) {
            let t = Timestamp::from_second(second).expect("in range");
            let day = trading_day(t);
            let _ = holiday(day);
            let _ = early_close(day);
            let hours = regular_hours(day);
            let next = next_regular_open(t);
            prop_assert!(next > t || next == Timestamp::MAX);
            if phase_at(t) == SessionPhase::Regular {
                prop_assert!(is_trading_day(day));
                if let Some((open, close)) = hours {
                    prop_assert!(open <= t && t < close);
                }
            }
        }

        #[test]
        fn regular_sessions_in_modern_years(
            second in 946_684_800i64..4_102_444_800 // 2000..2100
        ) {
            let t = Timestamp::from_second(second).expect("in range");
            let inside = regular_hours(trading_day(t))
                .is_some_and(|(open, close)| open <= t && t < close);
            prop_assert_eq!(phase_at(t) == SessionPhase::Regular, inside);
        }
    }
}

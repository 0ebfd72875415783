//! How every time leaves the server: RFC 3339 in UTC, `2026-10-17T12:00:00Z`, with a
//! fraction of exactly three digits (`2026-10-17T12:00:00.123Z`) when the instant has
//! milliseconds, and never finer: E*TRADE's millisecond times keep their milliseconds, its
//! second times and whole seconds read as before, and the server's own clock readings are
//! cut to the millisecond. A leaf module, so the E*TRADE models, the credential estimate, the
//! order desk's records and the result envelope share one format without depending on each
//! other.

use jiff::Timestamp;

/// `2026-10-17T12:00:00Z`, or `2026-10-17T12:00:00.123Z`: cut (not rounded) to the
/// millisecond, the fraction written only when it is not zero.
pub fn rfc3339(t: Timestamp) -> String {
    // Flooring keeps an instant before 1970 in its own second.
    let ms = t.as_millisecond();
    let cut = Timestamp::from_millisecond(ms).unwrap_or(t);
    if ms.rem_euclid(1000) == 0 {
        cut.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
    } else {
        cut.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: i64) -> String {
        rfc3339(Timestamp::from_millisecond(ms).expect("in range"))
    }

    #[test]
    fn seconds_stay_seconds_and_milliseconds_are_kept() {
        assert_eq!(at(1_760_702_400_000), "2025-10-17T12:00:00Z");
        assert_eq!(at(1_760_702_400_123), "2025-10-17T12:00:00.123Z");
        assert_eq!(at(1_760_702_400_050), "2025-10-17T12:00:00.050Z");
        assert_eq!(at(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn nothing_finer_than_a_millisecond() {
        let t = Timestamp::new(1_760_702_400, 123_456_789).expect("in range");
        assert_eq!(rfc3339(t), "2025-10-17T12:00:00.123Z");
        let t = Timestamp::new(1_760_702_400, 999_999).expect("in range");
        assert_eq!(rfc3339(t), "2025-10-17T12:00:00Z");
        assert_eq!(
            rfc3339(t).parse::<Timestamp>().ok(),
            Timestamp::new(1_760_702_400, 0).ok()
        );
    }
}

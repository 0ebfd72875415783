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
    let whole = ms.rem_euclid(1000) == 0;
    // jiff's own printer writes the same text without reading a format string at each call
    // (`server_status` writes a few per call), but only for four-digit years: it writes
    // others with a sign and six digits.
    if FOUR_DIGIT_YEARS.contains(&cut.as_second()) {
        if whole {
            format!("{cut}")
        } else {
            format!("{cut:.3}")
        }
    } else {
        strftime_rfc3339(cut, whole)
    }
}

/// 0000-01-01T00:00:00Z up to, not including, 10000-01-01T00:00:00Z, in seconds.
const FOUR_DIGIT_YEARS: std::ops::Range<i64> = -62_167_219_200..253_402_300_800;

fn strftime_rfc3339(cut: Timestamp, whole: bool) -> String {
    if whole {
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
    fn the_printer_writes_what_the_format_string_writes() {
        // Instants spread over jiff's whole range, half of them whole seconds.
        let first = Timestamp::MIN.as_millisecond() + 1000;
        let span = (253_402_207_200_000 - first) as u64;
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for i in 0..20_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let mut ms = first + ((seed >> 11) % span) as i64;
            if i % 2 == 0 {
                ms -= ms.rem_euclid(1000);
            }
            let t = Timestamp::from_millisecond(ms).expect("in range");
            assert_eq!(
                rfc3339(t),
                strftime_rfc3339(t, ms.rem_euclid(1000) == 0),
                "{ms}"
            );
        }
        for t in [
            Timestamp::from_second(-62_167_219_201).expect("in range"),
            Timestamp::from_second(-62_167_219_200).expect("in range"),
            Timestamp::MAX,
        ] {
            let whole = t.as_millisecond().rem_euclid(1000) == 0;
            assert_eq!(rfc3339(t), strftime_rfc3339(t, whole), "{t:?}");
        }
        let first: Timestamp = "0000-01-01T00:00:00Z".parse().expect("instant");
        assert_eq!(rfc3339(first), "0000-01-01T00:00:00Z");
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

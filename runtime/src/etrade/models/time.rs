//! E*TRADE times on the wire: epoch milliseconds or seconds, with 0 meaning "none". Outputs
//! carry RFC 3339 UTC strings instead, keeping the milliseconds of a millisecond time
//! (`crate::time::rfc3339`).

use super::scalars::Scalar;
use serde::{Deserialize, Deserializer};

fn to_rfc3339(t: jiff::Timestamp) -> String {
    crate::time::rfc3339(t)
}

/// A boolean is refused (a malformed answer); an unusable number or string is no time.
fn number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(match Option::<Scalar>::deserialize(d)? {
        Some(Scalar::I(i)) => Some(i),
        Some(Scalar::U(_)) => None,
        Some(Scalar::F(f)) if f.is_finite() => Some(f as i64),
        Some(Scalar::S(s)) => s.trim().parse().ok(),
        Some(Scalar::B(_)) => return Err(serde::de::Error::custom("not a time")),
        _ => None,
    })
}

/// Any E*TRADE time. Values of 10^11 and above are milliseconds (after March 1973), smaller
/// ones seconds (before the year 5138), so the unit follows from the magnitude: one reader
/// serves the fields sent in seconds, those sent in milliseconds, and those recorded answers
/// show both ways (`executedTime`, balance `asOfDate`, alert times). 0 or absent → null.
pub fn epoch_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(number(d)?
        .filter(|n| *n > 0)
        .and_then(|n| {
            if n >= 100_000_000_000 {
                jiff::Timestamp::from_millisecond(n).ok()
            } else {
                jiff::Timestamp::from_second(n).ok()
            }
        })
        .map(to_rfc3339))
}

//! OAuth token state on the fake clock.

use std::time::Duration;

use jiff::{Timestamp, tz::TimeZone};
use serde::Serialize;

#[derive(Debug, Clone)]
pub(crate) struct RequestToken {
    pub secret: String,
    pub consumer_key: String,
    pub created_at: Timestamp,
    pub verifier: String,
    pub used: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct AccessToken {
    pub secret: String,
    pub consumer_key: String,
    pub expires_at: Timestamp,
    pub last_used: Timestamp,
    pub inactive: bool,
    pub revoked: bool,
}

/// Where an access token is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenState {
    Active,
    /// Idle too long; `renew_access_token` reactivates it.
    Inactive,
    /// Past midnight (ET) of its issue day; only a new login helps.
    Expired,
    Revoked,
}

impl AccessToken {
    /// The state now; marks the token inactive (sticky until renewed) once idle too long.
    pub fn state(&mut self, now: Timestamp, idle: Duration) -> TokenState {
        if self.revoked {
            return TokenState::Revoked;
        }
        if now >= self.expires_at {
            return TokenState::Expired;
        }
        let idle_for = now.duration_since(self.last_used);
        if idle_for.is_positive() && idle_for.unsigned_abs() > idle {
            self.inactive = true;
        }
        if self.inactive {
            TokenState::Inactive
        } else {
            TokenState::Active
        }
    }
}

/// The first midnight in `tz` strictly after `t`.
pub(crate) fn next_midnight(t: Timestamp, tz: &TimeZone) -> Timestamp {
    let zoned = t.to_zoned_datetime(tz.clone());
    zoned
        .date()
        .tomorrow()
        .ok()
        .and_then(|d| d.to_zoned_datetime(tz.clone()).ok())
        .map(|z| z.timestamp())
        .unwrap_or(Timestamp::MAX)
}

/// A small non-cryptographic generator for token material (this is a test fake).
#[derive(Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub fn seeded() -> Self {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        Self(h.finish())
    }

    pub fn next_u64(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A base64 string of 32 random bytes that contains `/`, `+` and `=` like E*TRADE's.
    pub fn token(&mut self) -> String {
        loop {
            let bytes: Vec<u8> = (0..4).flat_map(|_| self.next_u64().to_le_bytes()).collect();
            let s = base64(&bytes);
            if s.contains('/') && s.contains('+') {
                return s;
            }
        }
    }

    /// A short verification code like `WXYZ8`.
    pub fn verifier(&mut self) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        (0..5)
            .map(|_| ALPHABET[(self.next_u64() % ALPHABET.len() as u64) as usize] as char)
            .collect()
    }
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_known_values() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn tokens_look_like_etrade_tokens() {
        let mut rng = Rng::seeded();
        for _ in 0..20 {
            let t = rng.token();
            assert_eq!(t.len(), 44);
            assert!(t.contains('/') && t.contains('+') && t.ends_with('='));
        }
        assert_eq!(rng.verifier().len(), 5);
    }

    #[test]
    fn midnight_eastern() {
        let tz = TimeZone::get("America/New_York").unwrap();
        // 2026-03-07 23:30 EST = 2026-03-08 04:30Z; next midnight EST = 05:00Z
        let t: Timestamp = "2026-03-08T04:30:00Z".parse().unwrap();
        assert_eq!(
            next_midnight(t, &tz),
            "2026-03-08T05:00:00Z".parse::<Timestamp>().unwrap()
        );
        // Summer (EDT, UTC-4): 2026-07-01 10:00Z → 2026-07-02 04:00Z
        let t: Timestamp = "2026-07-01T10:00:00Z".parse().unwrap();
        assert_eq!(
            next_midnight(t, &tz),
            "2026-07-02T04:00:00Z".parse::<Timestamp>().unwrap()
        );
    }
}

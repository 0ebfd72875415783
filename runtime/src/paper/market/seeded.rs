//! Seeded hashing: the market's only source of variety. Every draw hashes its inputs
//! (seed, symbol, domain, day or minute) instead of advancing a generator, so any value at
//! any instant costs O(1) and never depends on what was asked before.

use jiff::Timestamp;
use jiff::civil::Date;

// Hash domains.
pub(super) const T_BASE: u64 = 1;
pub(super) const T_VOL: u64 = 2;
pub(super) const T_SPREAD: u64 = 3;
pub(super) const T_PERIOD: u64 = 4;
pub(super) const T_PHASE: u64 = 5;
pub(super) const T_NOISE: u64 = 6;
pub(super) const T_BID_SIZE: u64 = 7;
pub(super) const T_ASK_SIZE: u64 = 8;
pub(super) const T_LAST: u64 = 9;
pub(super) const T_DAY_VOLUME: u64 = 10;
pub(super) const T_VOLUME: u64 = 11;
pub(super) const T_SHARES: u64 = 12;
pub(super) const T_PE: u64 = 13;
pub(super) const T_BETA: u64 = 14;
pub(super) const T_OPT_WIDTH: u64 = 15;
pub(super) const T_OPT_VOLUME: u64 = 16;
pub(super) const T_OPT_OI: u64 = 17;

/// SplitMix64's finalizer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub(super) fn hash(parts: &[u64]) -> u64 {
    parts.iter().fold(0x5EED_5EED, |h, p| mix(h ^ mix(*p)))
}

/// FNV-1a of a string.
pub(super) fn str_key(s: &str) -> u64 {
    s.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
    })
}

/// A hash → [0, 1).
pub(super) fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Dates and instants as hash inputs.
pub(super) fn day_key(d: Date) -> u64 {
    let n = i64::from(d.year()) * 10_000 + i64::from(d.month()) * 100 + i64::from(d.day());
    n as u64
}

pub(super) fn minute_key(t: Timestamp) -> u64 {
    t.as_second().div_euclid(60) as u64
}

//! A symbol's profile (its levels, drawn once from the seed) and its deterministic price
//! path: seeded sinusoids plus interpolated per-minute noise, and its daily volume.

use std::f64::consts::TAU;

use jiff::Timestamp;
use jiff::civil::Date;

use super::SimulatedMarket;
use super::seeded::{
    T_BASE, T_BETA, T_DAY_VOLUME, T_NOISE, T_OPT_WIDTH, T_PE, T_PERIOD, T_PHASE, T_SHARES,
    T_SPREAD, T_VOL, T_VOLUME, day_key, hash, str_key, unit,
};
use super::sessions::{DAY_SECS, secs};
use super::symbols::listed;

/// (period in days, amplitude of the log price) of the path's sinusoids. At a volatility
/// multiplier of 1 the one-day change has a standard deviation of about 2%.
const WAVES: [(f64, f64); 7] = [
    (180.0, 0.15),
    (40.0, 0.06),
    (9.0, 0.02),
    (2.3, 0.01),
    (0.4, 0.006),
    (70.0 / 1440.0, 0.003),
    (13.0 / 1440.0, 0.0015),
];
/// Amplitude of the per-minute noise of the log price.
const NOISE: f64 = 0.0008;

/// Everything about a symbol that does not depend on the instant.
pub(super) struct Profile {
    pub(super) symbol: String,
    pub(super) name: String,
    pub(super) exchange: &'static str,
    /// Seeded key of the path, sizes and volumes.
    pub(super) key: u64,
    pub(super) base: f64,
    /// Multiplier of the path's amplitudes, 0.5–1.0 (≈ 1–2% a day).
    vol: f64,
    /// At-the-money implied volatility, 0.20–0.60 (higher for the more volatile paths).
    pub(super) iv: f64,
    /// Relative equity spread, 0.5–3 bp.
    pub(super) spread_frac: f64,
    /// Relative option spread, 1–3%.
    pub(super) opt_width: f64,
    /// (period s, amplitude, phase) of each sinusoid.
    waves: [(f64, f64, f64); WAVES.len()],
    pub(super) daily_volume: f64,
    pub(super) shares: u64,
    pub(super) eps: f64,
    pub(super) beta: f64,
}

impl Profile {
    /// Natural log of price / base at `secs` (Unix seconds), ignoring sessions.
    pub(super) fn log_path(&self, secs: f64) -> f64 {
        let waves: f64 = self
            .waves
            .iter()
            .map(|(period, amp, phase)| amp * (TAU * secs / period + phase).sin())
            .sum();
        let m = (secs / 60.0).floor();
        let frac = secs / 60.0 - m;
        let knot = |i: f64| unit(hash(&[self.key, T_NOISE, i as i64 as u64])) * 2.0 - 1.0;
        let (n0, n1) = (knot(m), knot(m + 1.0));
        self.vol * (waves + NOISE * (n0 + (n1 - n0) * frac))
    }

    /// The path price at an instant, ignoring sessions.
    pub(super) fn path(&self, t: Timestamp) -> f64 {
        self.base * self.log_path(secs(t)).exp()
    }

    pub(super) fn day_volume(&self, day: Date) -> f64 {
        self.daily_volume * (0.7 + 0.6 * unit(hash(&[self.key, T_DAY_VOLUME, day_key(day)])))
    }
}

impl SimulatedMarket {
    pub(super) fn profile(&self, symbol: &str) -> Option<Profile> {
        let listing = listed(symbol)?;
        let symbol = listing.symbol.clone();
        let sk = str_key(&symbol);
        // Levels belong to the symbol; the path's shape to the seed.
        let level = |tag: u64| unit(hash(&[sk, tag]));
        let key = hash(&[self.seed, sk]);
        let vol_level = level(T_VOL);
        let mut waves = [(1.0, 0.0, 0.0); WAVES.len()];
        for (i, (w, (days, amp))) in waves.iter_mut().zip(WAVES).enumerate() {
            let i = i as u64;
            let stretch = 0.8 + 0.4 * unit(hash(&[key, T_PERIOD, i]));
            *w = (
                days * DAY_SECS * stretch,
                amp,
                TAU * unit(hash(&[key, T_PHASE, i])),
            );
        }
        let base = listing
            .base
            .unwrap_or_else(|| 10.0 * 50f64.powf(level(T_BASE)));
        Some(Profile {
            // The name is real, the prices are not: every quote says so.
            name: format!("{} (SIMULATED)", listing.name),
            exchange: listing.exchange,
            key,
            base,
            vol: 0.5 + 0.5 * vol_level,
            iv: 0.20 + 0.40 * vol_level,
            spread_frac: 0.000_05 + 0.000_25 * level(T_SPREAD),
            opt_width: 0.01 + 0.02 * level(T_OPT_WIDTH),
            waves,
            daily_volume: listing
                .daily_volume
                .unwrap_or_else(|| 10f64.powf(5.5 + 2.0 * level(T_VOLUME))),
            shares: 10f64.powf(7.7 + 2.0 * level(T_SHARES)) as u64,
            eps: base / (12.0 + 28.0 * level(T_PE)),
            beta: 0.6 + level(T_BETA),
            symbol,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::SimulatedMarket;
    use super::super::rounding::to_f64;
    use super::super::test_support::{TUE_11, m, ts};
    use crate::calendar;
    use crate::paper::touch::MarketData;
    use jiff::civil::date;
    use rust_decimal::Decimal;

    #[test]
    fn deterministic_and_seeded() {
        let at = ts(TUE_11);
        for sym in ["AAPL", "MSFT", "SPY", "IBM", "QQQ", "F", "BRK.B", "ZTS"] {
            let a = m().equity(sym, at).expect("known");
            assert_eq!(Some(a.clone()), SimulatedMarket::new(42).equity(sym, at));
            assert_eq!(
                m().quote_response(&[sym.into()], None, at),
                m().quote_response(&[sym.into()], None, at)
            );
        }
        let instants = [
            "2026-03-10T14:00:00Z",
            "2026-03-10T15:17:00Z",
            "2026-03-11T18:43:00Z",
            "2026-05-20T16:00:00Z",
        ];
        let differ = instants
            .iter()
            .any(|i| m().equity("AAPL", ts(i)) != SimulatedMarket::new(7).equity("AAPL", ts(i)));
        assert!(differ, "different seeds give different paths");
        // Realistic levels for well-known symbols.
        let aapl = m().underlying_price("AAPL", at).expect("aapl");
        assert!(
            aapl > Decimal::from(150) && aapl < Decimal::from(320),
            "{aapl}"
        );
        // Case-insensitive.
        assert_eq!(m().equity("aapl", at), m().equity("AAPL", at));
    }

    #[test]
    fn daily_moves_are_modest() {
        let mk = m();
        let mut moves = Vec::new();
        let mut d = date(2026, 1, 5);
        let mut prev: Option<f64> = None;
        for _ in 0..120 {
            if let Some((_, close)) = calendar::regular_hours(d) {
                let px = to_f64(mk.underlying_price("SPY", close).expect("spy"));
                if let Some(p) = prev {
                    moves.push((px / p).ln());
                }
                prev = Some(px);
            }
            d = d.tomorrow().expect("d");
        }
        let n = moves.len() as f64;
        let sd = (moves.iter().map(|x| x * x).sum::<f64>() / n).sqrt();
        assert!(sd > 0.003 && sd < 0.04, "daily sd {sd}");
    }
}

//! The paper broker's deterministic market: every price is a pure function of
//! (seed, symbol, instant), evaluated in O(1) — no state, no iteration from an epoch.
//!
//! * Equities: the symbols of a fixed universe of real US-listed stocks and ETFs
//!   (`runtime/data/paper-universe.tsv`: the S&P 500, the Nasdaq-100, the largest ETFs) are
//!   listed, with their real names and reference price levels; any other symbol is
//!   E*TRADE's invalid symbol. A symbol's price is
//!   `base × exp(vol × (Σ seeded sinusoids from months down to minutes + interpolated
//!   per-minute hash noise))`, a daily move of about 1–2%. The price only moves during the
//!   sessions of [`calendar`](crate::calendar) (pre-market, regular,
//!   after-hours); between them it stays at the last session's close. Bid/ask straddle the
//!   path price with a spread proportional to it (at least one cent; wider in the extended
//!   sessions), sizes are round lots and the volume grows through the day.
//! * Options: every Friday of the next 8 weeks and the third Friday of the next 12 months
//!   (a holiday Friday moves back to the Thursday), strikes on a fixed ladder ($1 below $25,
//!   $2.50 below $200, $5 above) within a wide band of the symbol's base price — so a listed
//!   contract stays listed until it expires. Prices and greeks are Black-Scholes (r = 4%,
//!   an implied volatility per underlying with a mild smile), evaluated at the last regular
//!   session instant: option quotes do not move outside regular hours.
//! * The figures of quotes, lookup, option chains and expiry dates, which
//!   [`crate::emulation::answers`] writes as E*TRADE's JSON.
//!
//! Computation is in f64 internally (sin/exp/erfc); every price leaves as a
//! [`Decimal`] rounded explicitly to cents (4 decimals below $1), greeks to 4 decimals.
//! Results are bit-for-bit reproducible for a given build; across platforms whose libm
//! differs in the last ulp, a price could in principle differ by a cent at a rounding edge.
//!
//! The parts, one job each: `symbols` (the universe: which symbols are listed), `seeded` (the hashing
//! every draw comes from), `price_path` (a symbol's profile and price path), `sessions`
//! (which instant's price is shown, and the volume curve), `equity` (an equity's touch and
//! day figures), `listing` (expiries and strikes), `option_value` (a listed contract valued
//! at an instant, by [`crate::emulation::option_model`]), `osi` (parsing option symbols),
//! `rounding` (f64 to cents), and the figures of each answer: `quotes`, `lookup`, `chains`.

mod chains;
mod equity;
mod listing;
mod lookup;
mod option_value;
mod osi;
mod price_path;
mod quotes;
mod rounding;
mod seeded;
mod sessions;
mod symbols;
#[cfg(test)]
mod test_support;

use jiff::Timestamp;
use jiff::civil::Date;
use rust_decimal::Decimal;

use self::rounding::round_dec;
use self::sessions::effective;
use super::touch::{Greeks, MarketData, OptionContract, Touch};

/// The deterministic simulated market of the paper broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimulatedMarket {
    seed: u64,
}

/// The query of `GET /v1/market/optionchains`, already parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OptionChainQuery {
    pub symbol: String,
    /// None → the nearest listed expiry (the nearest monthly unless `include_weekly`).
    /// A given date must be listed (weekly or monthly) or there is no chain.
    pub expiry: Option<Date>,
    /// Centre of the strikes; None (or not positive) → the underlying's last price.
    pub strike_price_near: Option<Decimal>,
    /// The n strikes nearest the centre; None (or 0) → all listed strikes within ±20
    /// ladder steps of it.
    pub no_of_strikes: Option<usize>,
    /// CALL | PUT | CALLPUT (the default, also for anything unrecognized).
    pub chain_type: Option<String>,
    pub include_weekly: bool,
}

/// Weekly or monthly listing of an expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExpiryType {
    Weekly,
    Monthly,
}

impl ExpiryType {
    pub fn as_str(self) -> &'static str {
        match self {
            ExpiryType::Weekly => "WEEKLY",
            ExpiryType::Monthly => "MONTHLY",
        }
    }
}

impl SimulatedMarket {
    pub fn new(seed: u64) -> SimulatedMarket {
        SimulatedMarket { seed }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The underlying's last trade at `at` (what the book marks positions at).
    pub fn underlying_price(&self, symbol: &str, at: Timestamp) -> Option<Decimal> {
        self.equity(symbol, at).map(|t| t.last)
    }
}

impl MarketData for SimulatedMarket {
    fn equity(&self, symbol: &str, at: Timestamp) -> Option<Touch> {
        let p = self.profile(symbol)?;
        Some(Self::equity_touch(&p, effective(at, true)))
    }

    fn option(&self, contract: &OptionContract, at: Timestamp) -> Option<Touch> {
        self.option_at(contract, at).map(|(_, v)| v.touch)
    }

    fn source(&self) -> &'static str {
        "simulated"
    }

    fn option_greeks(&self, contract: &OptionContract, at: Timestamp) -> Option<Greeks> {
        let (_, v) = self.option_at(contract, at)?;
        let m = &v.model;
        Some(Greeks {
            delta: round_dec(m.delta, 4),
            gamma: round_dec(m.gamma, 4),
            theta: round_dec(m.theta, 4),
            vega: round_dec(m.vega, 4),
            rho: round_dec(m.rho, 4),
            iv_pct: round_dec(v.iv * 100.0, 4),
        })
    }
}

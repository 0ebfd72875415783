//! What the paper book needs from a market: the touch (bid/ask, sizes, last) of an equity
//! or an option contract at a simulated instant.

use jiff::Timestamp;
use jiff::civil::Date;
use rust_decimal::Decimal;

use crate::emulation::Instrument;
pub use crate::etrade::vocabulary::CallPut;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touch {
    pub bid: Decimal,
    pub ask: Decimal,
    /// Displayed size at the bid/ask (shares, or contracts for options).
    pub bid_size: u64,
    pub ask_size: u64,
    pub last: Decimal,
    /// Volume so far in the trading day.
    pub volume: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OptionContract {
    /// Upper-case underlying symbol.
    pub underlying: String,
    pub expiration: Date,
    pub call_put: CallPut,
    pub strike: Decimal,
}

impl OptionContract {
    /// The contract an option instrument names; None for anything else.
    pub fn of(instrument: &Instrument) -> Option<OptionContract> {
        match instrument {
            Instrument::Option {
                underlying,
                expiry,
                right,
                strike,
            } => Some(OptionContract {
                underlying: underlying.clone(),
                expiration: *expiry,
                call_put: *right,
                strike: *strike,
            }),
            Instrument::Equity { .. } | Instrument::Fund { .. } => None,
        }
    }

    /// The option instrument naming this contract (whose OSI key, display name and quote
    /// symbol are E*TRADE's spellings of it).
    pub fn instrument(&self) -> Instrument {
        Instrument::Option {
            underlying: self.underlying.clone(),
            expiry: self.expiration,
            right: self.call_put,
            strike: self.strike,
        }
    }
}

/// An option's sensitivities, as E*TRADE's COMPLETE portfolio view shows them (4 places;
/// `iv_pct` in percent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Greeks {
    pub delta: Decimal,
    pub gamma: Decimal,
    pub theta: Decimal,
    pub vega: Decimal,
    pub rho: Decimal,
    pub iv_pct: Decimal,
}

/// A source of prices. Deterministic implementations make paper tests reproducible.
pub trait MarketData: Send + Sync {
    /// None: the symbol is unknown to this market.
    fn equity(&self, symbol: &str, at: Timestamp) -> Option<Touch>;
    /// None: no such contract (unknown underlying, expired, or not a listed strike/expiry).
    fn option(&self, contract: &OptionContract, at: Timestamp) -> Option<Touch>;
    /// Shown in every quote and in server_status, e.g. "simulated".
    fn source(&self) -> &'static str;
    /// The contract's greeks at `at`; None when this market does not model them.
    fn option_greeks(&self, _contract: &OptionContract, _at: Timestamp) -> Option<Greeks> {
        None
    }
}

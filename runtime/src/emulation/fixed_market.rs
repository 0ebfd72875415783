//! A fixed market: quotes, lookup, option chains and expiries from a hand-written table of
//! listings, the market mode of the fake E*TRADE. Prices never move; what is derived from a
//! listing (the touch, the day's range, options) is a fixed function of it, so every answer
//! can be asserted.
//!
//! * Quotes: each listing has its figures; any other plain symbol of one to five letters
//!   gets a synthesized listing, except symbols starting with `XX`, which are unknown.
//!   Option symbols `UNDERLIER:YYYY:M:D:CALL|PUT:STRIKE` are quoted when the underlier is a
//!   listing, priced by [`super::option_model`] at [`IMPLIED_VOLATILITY`].
//! * Option chains and expiry dates for every listing: six third-Friday monthlies and the
//!   weeklies before the last of them, strikes on a ladder around the last trade.

mod listing;
mod options;

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::Value;

use super::answers::lookup::{LookupEntry, lookup_response, name_matches, search_words};
use super::answers::quotes::{DetailFlag, QuoteHeader, bad_symbol, quote_response};
use super::order_estimate::{self, Commissions, Estimate};
use super::{Instrument, OrderRequest};

pub use self::listing::Listing;
pub use self::options::{ChainRequest, IMPLIED_VOLATILITY};

/// Why the fixed market refuses a request, as E*TRADE words it (all HTTP 400).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MarketRefusal {
    #[error("Missing symbol. Please enter valid symbol.")]
    MissingSymbol,
    #[error("Invalid symbol.")]
    InvalidSymbol,
    #[error("Invalid expiry date.")]
    InvalidExpiry,
}

impl MarketRefusal {
    pub fn code(self) -> i64 {
        match self {
            MarketRefusal::MissingSymbol => 10043,
            MarketRefusal::InvalidSymbol => super::codes::INVALID_SYMBOL,
            MarketRefusal::InvalidExpiry => 10031,
        }
    }
}

/// One more product lookup finds by name (beside the listings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupExtra {
    pub symbol: String,
    pub name: String,
    /// EQUITY | ETF | MUTUAL_FUND
    pub kind: String,
}

/// The price of a leg the market has no quote for.
pub const UNQUOTED_PRICE: Decimal = Decimal::from_parts(100, 0, 0, false, 0);
/// The commission per option contract.
pub const OPTION_COMMISSION: Decimal = Decimal::from_parts(65, 0, 0, false, 2);

/// Money rounded to cents, half away from zero.
fn cents(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

#[derive(Debug, Clone)]
pub struct FixedMarket {
    listings: Vec<Listing>,
    lookup_extra: Vec<LookupExtra>,
    /// The exchange's zone: its clock names the day and the quote times.
    tz: TimeZone,
}

impl FixedMarket {
    pub fn new(listings: Vec<Listing>, lookup_extra: Vec<LookupExtra>, tz: TimeZone) -> Self {
        FixedMarket {
            listings,
            lookup_extra,
            tz,
        }
    }

    /// A listing of the table (not a synthesized one).
    fn listed(&self, symbol: &str) -> Option<&Listing> {
        self.listings
            .iter()
            .find(|l| l.symbol.eq_ignore_ascii_case(symbol))
    }

    fn today(&self, now: Timestamp) -> Date {
        now.to_zoned_datetime(self.tz.clone()).date()
    }

    fn header(&self, now: Timestamp) -> QuoteHeader<'static> {
        QuoteHeader {
            date_time: now
                .to_zoned_datetime(self.tz.clone())
                .strftime("%H:%M:%S %Z %m-%d-%Y")
                .to_string(),
            date_time_utc: now.as_second(),
            after_hours: false,
            time_zone: None,
            source: None,
        }
    }

    /// `GET /v1/market/quote/{symbols}`; None when no symbol has a quote (E*TRADE's 1019).
    pub fn quote_response(
        &self,
        symbols: &[&str],
        flag: DetailFlag,
        earnings: bool,
        now: Timestamp,
    ) -> Option<Value> {
        let header = self.header(now);
        let today = self.today(now);
        let mut data = Vec::new();
        let mut messages = Vec::new();
        for &symbol in symbols {
            let quote = if symbol.contains(':') {
                self.option_quote(symbol, flag, today, &header)
            } else {
                Listing::find_or_synthesize(&self.listings, symbol)
                    .map(|l| l.quote(flag, earnings, &header))
            };
            match quote {
                Some(q) => data.push(q),
                None => messages.push(bad_symbol(symbol)),
            }
        }
        (!data.is_empty()).then(|| quote_response(data, messages))
    }

    /// `GET /v1/market/lookup/{search}`: every word must start a word of the name (or the
    /// search is the symbol).
    pub fn lookup_response(&self, search: &str) -> Result<Value, MarketRefusal> {
        let words = search_words(search);
        if words.is_empty() {
            return Err(MarketRefusal::MissingSymbol);
        }
        let entries: Vec<LookupEntry<'_>> = self
            .listings
            .iter()
            .map(|l| LookupEntry {
                symbol: &l.symbol,
                description: &l.name,
                kind: if l.security_type == "MF" {
                    "MUTUAL_FUND"
                } else {
                    "EQUITY"
                },
            })
            .chain(self.lookup_extra.iter().map(|e| LookupEntry {
                symbol: &e.symbol,
                description: &e.name,
                kind: &e.kind,
            }))
            .filter(|e| {
                (words.len() == 1 && words[0] == e.symbol) || name_matches(&words, e.description)
            })
            .collect();
        Ok(lookup_response(&entries))
    }

    /// The listing an option request names: missing or not in the table is refused.
    pub fn option_underlier(&self, symbol: Option<&str>) -> Result<&Listing, MarketRefusal> {
        match symbol.map(str::trim) {
            None | Some("") => Err(MarketRefusal::MissingSymbol),
            Some(s) => self.listed(s).ok_or(MarketRefusal::InvalidSymbol),
        }
    }

    /// The bid, ask and description of an equity or fund (what order estimates price at);
    /// None when the market has no quote for it.
    pub fn equity_touch(&self, symbol: &str) -> Option<(Decimal, Decimal, String)> {
        let l = Listing::find_or_synthesize(&self.listings, symbol)?;
        let (bid, ask) = l.touch();
        Some((bid, ask, l.name.clone()))
    }

    /// The bid, ask and description of any instrument; None when the market has no quote.
    pub fn touch(&self, i: &Instrument, now: Timestamp) -> Option<(Decimal, Decimal, String)> {
        if i.is_option() {
            self.option_touch(&i.quote_symbol(), now)
        } else {
            self.equity_touch(i.symbol())
        }
    }

    /// How an order describes the instrument: its quote's description, else its symbol.
    pub fn describe(&self, i: &Instrument, now: Timestamp) -> String {
        self.touch(i, now)
            .map_or_else(|| i.symbol().to_string(), |(_, _, name)| name)
    }

    /// What `r` is estimated at now: each leg at its touch, or [`UNQUOTED_PRICE`] when the
    /// market has none; options at [`OPTION_COMMISSION`] a contract, equities free.
    pub fn estimate(&self, r: &OrderRequest, now: Timestamp) -> Estimate {
        let commissions = Commissions {
            per_trade: Decimal::ZERO,
            per_contract: OPTION_COMMISSION,
        };
        order_estimate::estimate(r, &commissions, |_, l| {
            self.touch(&l.instrument, now)
                .map_or(
                    UNQUOTED_PRICE,
                    |(bid, ask, _)| {
                        if l.action.is_buy() { ask } else { bid }
                    },
                )
        })
    }
}

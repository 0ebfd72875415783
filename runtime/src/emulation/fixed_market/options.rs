//! Options of the fixed market: contracts on listings priced by the emulation's model, the
//! listed expiries, and chains of strikes around a price.

use jiff::Timestamp;
use jiff::civil::{Date, Weekday};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde_json::Value;

use super::{FixedMarket, Listing, MarketRefusal, cents};
use crate::emulation::answers::chains::{
    ChainSide, ChainType, expire_dates, option_chain, option_pair,
};
use crate::emulation::answers::quotes::{DetailFlag, OptionQuote, QuoteHeader, option_quote};
use crate::emulation::option_model::{black_scholes, greeks_json, money, smile};
use crate::emulation::{CallPut, Instrument};

/// The at-the-money implied volatility of every option the fixed market quotes.
pub const IMPLIED_VOLATILITY: f64 = 0.25;

/// The option chain query, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainRequest {
    pub expiry_year: Option<i64>,
    pub expiry_month: Option<i64>,
    pub expiry_day: Option<i64>,
    /// Centre of the strikes (positive); None → the last trade.
    pub strike_price_near: Option<Decimal>,
    /// How many strikes; None → 10, or all with `all_prices`.
    pub no_of_strikes: Option<usize>,
    pub include_weekly: bool,
    /// MINI options: none are listed.
    pub mini: bool,
    pub chain_type: ChainType,
    /// `priceType=ALL`: every strike of the ladder, not only those near the money.
    pub all_prices: bool,
}

/// Third Friday of a month.
fn third_friday(year: i16, month: i8) -> Option<Date> {
    let first = Date::new(year, month, 1).ok()?;
    let offset = (4 - first.weekday().to_monday_zero_offset() + 7) % 7;
    first
        .checked_add(jiff::Span::new().days(i64::from(offset) + 14))
        .ok()
}

/// (date, expiryType) from today on: six monthlies and the weeklies before the last one.
fn expiries(today: Date) -> Vec<(Date, &'static str)> {
    let mut out = Vec::new();
    let mut first = today.first_of_month();
    for _ in 0..7 {
        if let Some(d) = third_friday(first.year(), first.month())
            && d >= today
            && out.len() < 6
        {
            out.push((d, "MONTHLY"));
        }
        first = first
            .checked_add(jiff::Span::new().months(1))
            .unwrap_or(first);
    }
    let last = out.last().map(|x| x.0).unwrap_or(today);
    let mut d = today;
    for _ in 0..400 {
        if d > last {
            break;
        }
        if d.weekday() == Weekday::Friday && !out.iter().any(|x| x.0 == d) {
            out.push((d, "WEEKLY"));
        }
        match d.tomorrow() {
            Ok(n) => d = n,
            Err(_) => break,
        }
    }
    out.sort();
    out
}

/// A contract valued by the model: its price (cents, 4 places below $1) and greeks block.
fn value(s: Decimal, k: Decimal, days: i64, right: CallPut) -> (Decimal, Value) {
    let (s, k) = (s.to_f64().unwrap_or(0.0), k.to_f64().unwrap_or(0.0));
    let t = days.max(1) as f64 / 365.0;
    let iv = smile(IMPLIED_VOLATILITY, s, k);
    let model = black_scholes(right, s, k, t, iv);
    (money(model.price.max(0.0)), greeks_json(&model, iv))
}

/// Five cents either side of the price (the bid not below zero).
fn spread(price: Decimal) -> (Decimal, Decimal) {
    let five = Decimal::new(5, 2);
    (
        cents((price - five).max(Decimal::ZERO)),
        cents(price + five),
    )
}

/// A contract from `UNDERLIER:YYYY:M:D:CALL|PUT:STRIKE` on a listing.
fn contract<'a>(market: &'a FixedMarket, symbol: &str) -> Option<(&'a Listing, Instrument)> {
    let p: Vec<&str> = symbol.split(':').collect();
    let [root, year, month, day, right, strike] = p.as_slice() else {
        return None;
    };
    let listing = market.listed(root)?;
    let right = match right.to_ascii_uppercase().as_str() {
        "CALL" => CallPut::Call,
        "PUT" => CallPut::Put,
        _ => return None,
    };
    let expiry = Date::new(year.parse().ok()?, month.parse().ok()?, day.parse().ok()?).ok()?;
    let strike: Decimal = strike.parse().ok()?;
    (strike > Decimal::ZERO).then(|| {
        let instrument = Instrument::Option {
            underlying: listing.symbol.clone(),
            expiry,
            right,
            strike: strike.normalize(),
        };
        (listing, instrument)
    })
}

fn terms(i: &Instrument) -> Option<(Date, CallPut, Decimal)> {
    match i {
        Instrument::Option {
            expiry,
            right,
            strike,
            ..
        } => Some((*expiry, *right, *strike)),
        Instrument::Equity { .. } | Instrument::Fund { .. } => None,
    }
}

impl FixedMarket {
    pub(super) fn option_quote(
        &self,
        symbol: &str,
        flag: DetailFlag,
        today: Date,
        header: &QuoteHeader<'_>,
    ) -> Option<Value> {
        let (listing, instrument) = contract(self, symbol)?;
        let (expiry, right, strike) = terms(&instrument)?;
        let days = i64::from((expiry - today).get_days());
        let (price, greeks) = value(listing.last, strike, days, right);
        let intrinsic = match right {
            CallPut::Call => listing.last - strike,
            CallPut::Put => strike - listing.last,
        }
        .max(Decimal::ZERO);
        let (bid, ask) = spread(price);
        let q = OptionQuote {
            description: instrument.display(),
            instrument,
            company_name: listing.name.clone(),
            exchange: "NYSE".into(),
            last: price,
            bid,
            ask,
            bid_size: 10,
            ask_size: 12,
            previous_close: Some(cents(price * Decimal::new(98, 2))),
            days_to_expiration: days,
            open_interest: 1_250,
            total_volume: 321,
            intrinsic_value: cents(intrinsic),
            time_premium: cents(price - intrinsic),
            expiration_date: expiry
                .to_zoned_datetime(jiff::tz::TimeZone::UTC)
                .map(|z| z.timestamp().as_second())
                .unwrap_or(0),
            time_of_last_trade: header.date_time_utc,
            greeks,
        };
        Some(option_quote(&q, flag, header))
    }

    /// The bid, ask and description of an option contract (`UNDERLIER:YYYY:M:D:CALL:STRIKE`),
    /// priced as its quote is; None when the market has none.
    pub fn option_touch(&self, symbol: &str, now: Timestamp) -> Option<(Decimal, Decimal, String)> {
        let (listing, instrument) = contract(self, symbol)?;
        let (expiry, right, strike) = terms(&instrument)?;
        let days = i64::from((expiry - self.today(now)).get_days());
        let (price, _) = value(listing.last, strike, days, right);
        let (bid, ask) = spread(price);
        Some((bid, ask, instrument.display()))
    }

    /// `GET /v1/market/optionexpiredate` for a listing: the expiries of `kind` (ALL and
    /// UNSPECIFIED are every one).
    pub fn expire_dates_response(
        &self,
        symbol: Option<&str>,
        kind: &str,
        now: Timestamp,
    ) -> Result<Value, MarketRefusal> {
        self.option_underlier(symbol)?;
        let dates: Vec<(Date, &str)> = expiries(self.today(now))
            .into_iter()
            .filter(|(_, t)| matches!(kind, "ALL" | "UNSPECIFIED") || *t == kind)
            .collect();
        Ok(expire_dates(&dates))
    }

    /// `GET /v1/market/optionchains` for a listing. Strikes step $1 below $50, $2.50 below
    /// $200, $5 above, twelve either side of the centre.
    pub fn option_chain_response(
        &self,
        symbol: Option<&str>,
        q: &ChainRequest,
        now: Timestamp,
        base_url: &str,
    ) -> Result<Value, MarketRefusal> {
        let listing = self.option_underlier(symbol)?;
        let today = self.today(now);
        let expiry = expiries(today)
            .into_iter()
            .filter(|(_, t)| q.include_weekly || *t == "MONTHLY")
            .map(|(d, _)| d)
            .find(|e| {
                q.expiry_year.is_none_or(|y| i64::from(e.year()) == y)
                    && q.expiry_month.is_none_or(|m| i64::from(e.month()) == m)
                    && q.expiry_day.is_none_or(|d| i64::from(e.day()) == d)
            })
            .ok_or(MarketRefusal::InvalidExpiry)?;
        let last = listing.last;
        let near = q.strike_price_near.unwrap_or(last);
        let step = if last < Decimal::from(50) {
            Decimal::ONE
        } else if last < Decimal::from(200) {
            Decimal::new(25, 1)
        } else {
            Decimal::from(5)
        };
        let center = (near / step)
            .round_dp_with_strategy(0, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
            * step;
        let mut strikes: Vec<Decimal> = (-12..12)
            .map(|i| center + Decimal::from(i) * step)
            .filter(|k| *k > Decimal::ZERO)
            .collect();
        let take = match (q.all_prices, q.no_of_strikes) {
            (true, None) => strikes.len(),
            (_, Some(n)) => n,
            (false, None) => 10,
        };
        strikes.sort_by_key(|k| (*k - near).abs());
        strikes.truncate(take);
        strikes.sort();
        let days = i64::from((expiry - today).get_days());
        let now_s = now.as_second();
        let side = |k: Decimal, right: CallPut| -> ChainSide {
            let (price, greeks) = value(last, k, days, right);
            let (bid, ask) = spread(price);
            let whole = k.trunc().to_u64().unwrap_or(0);
            ChainSide {
                instrument: Instrument::Option {
                    underlying: listing.symbol.clone(),
                    expiry,
                    right,
                    strike: k.normalize(),
                },
                time_stamp: now_s,
                bid,
                ask,
                bid_size: 10,
                ask_size: 12,
                in_the_money: match right {
                    CallPut::Call => last > k,
                    CallPut::Put => last < k,
                },
                volume: 100 + whole % 50,
                open_interest: 1_000 + whole % 700,
                net_change: Decimal::new(-5, 2),
                last: price,
                greeks,
            }
        };
        let pairs: Vec<Value> = if q.mini {
            Vec::new()
        } else {
            strikes
                .iter()
                .filter_map(|k| {
                    let call = q.chain_type.calls().then(|| side(*k, CallPut::Call));
                    let put = q.chain_type.puts().then(|| side(*k, CallPut::Put));
                    option_pair(q.chain_type, call.as_ref(), put.as_ref(), base_url)
                })
                .collect()
        };
        Ok(option_chain(pairs, now_s, near, expiry, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osi_keys_third_fridays_and_expiries() {
        let pltr = Instrument::Option {
            underlying: "PLTR".into(),
            expiry: Date::new(2022, 2, 18).expect("date"),
            right: CallPut::Put,
            strike: Decimal::from(23),
        };
        assert_eq!(pltr.osi_key().as_deref(), Some("PLTR--220218P00023000"));
        assert_eq!(third_friday(2026, 12), Date::new(2026, 12, 18).ok());
        assert_eq!(third_friday(2027, 1), Date::new(2027, 1, 15).ok());
        let today = Date::new(2026, 12, 1).expect("date");
        let e = expiries(today);
        assert_eq!(e.iter().filter(|x| x.1 == "MONTHLY").count(), 6);
        assert!(e.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(
            e.iter()
                .all(|x| x.0.weekday() == Weekday::Friday && x.0 >= today)
        );
        let (call, g) = value(Decimal::from(100), Decimal::from(90), 30, CallPut::Call);
        let (put, _) = value(Decimal::from(100), Decimal::from(90), 30, CallPut::Put);
        assert!(call > Decimal::from(10) && put < call);
        assert!(g["delta"].as_f64().is_some_and(|d| d > 0.5 && d < 1.0));
    }
}

//! `GET /v1/market/optionexpiredate` and `GET /v1/market/optionchains`: the listed
//! expiries and a chain of call/put pairs around a strike, in E*TRADE's wire shape.

use jiff::Timestamp;
use jiff::civil::Date;
use rust_decimal::Decimal;
use serde_json::Value;

use super::listing::{listed_expirations, strike_window};
use super::sessions::{effective, previous_trading_day};
use super::{ExpiryType, OptionChainQuery, SimulatedMarket};
use crate::calendar;
use crate::emulation::answers::chains::{
    ChainSide, ChainType, expire_dates, option_chain, option_pair,
};
use crate::paper::touch::{CallPut, MarketData, OptionContract};

impl SimulatedMarket {
    /// `GET /v1/market/optionexpiredate` → `{"OptionExpireDateResponse": {"ExpirationDate":
    /// [{year, month, day, expiryType}]}}`; None for an unknown symbol.
    pub fn option_expire_dates_response(&self, symbol: &str, at: Timestamp) -> Option<Value> {
        let dates: Vec<(Date, &str)> = self
            .expirations(symbol, at)?
            .into_iter()
            .map(|(d, kind)| (d, kind.as_str()))
            .collect();
        Some(expire_dates(&dates))
    }

    /// `GET /v1/market/optionchains` → `OptionChainResponse` with `OptionPair[]`,
    /// `SelectedED`, `nearPrice`; None for an unknown symbol or an unlisted expiry.
    pub fn option_chains_response(&self, query: &OptionChainQuery, at: Timestamp) -> Option<Value> {
        let p = self.profile(&query.symbol)?;
        let listed = listed_expirations(calendar::trading_day(at));
        let expiry = match query.expiry {
            Some(d) => listed.iter().find(|(e, _)| *e == d)?.0,
            None => {
                listed
                    .iter()
                    .find(|(_, kind)| query.include_weekly || *kind == ExpiryType::Monthly)?
                    .0
            }
        };
        let underlying = Self::equity_touch(&p, effective(at, false)).last;
        let near = query
            .strike_price_near
            .filter(|n| *n > Decimal::ZERO)
            .unwrap_or(underlying)
            .min(Decimal::from(1_000_000_000u64));
        let mut strikes = strike_window(&p, near);
        if let Some(n) = query.no_of_strikes.filter(|n| *n > 0) {
            strikes.sort_by_key(|k| (*k - near).abs());
            strikes.truncate(n);
            strikes.sort();
        }
        let chain_type = query
            .chain_type
            .as_deref()
            .and_then(|c| ChainType::parse(&c.trim().to_ascii_uppercase()))
            .unwrap_or(ChainType::CallPut);
        let today = calendar::trading_day(at);
        let te = effective(at, false);
        let prev_close = previous_trading_day(calendar::trading_day(te))
            .and_then(calendar::regular_hours)
            .map(|(_, c)| c);
        let side = |strike: Decimal, call_put: CallPut| -> Option<ChainSide> {
            let c = OptionContract {
                underlying: p.symbol.clone(),
                expiration: expiry,
                call_put,
                strike,
            };
            let v = Self::option_value(&p, &c, te)?;
            let t = &v.touch;
            let net_change = prev_close
                .and_then(|pc| Self::option_value(&p, &c, pc))
                .map_or(Decimal::ZERO, |prev| t.last - prev.touch.last);
            Some(ChainSide {
                instrument: c.instrument(),
                time_stamp: te.as_second(),
                bid: t.bid,
                ask: t.ask,
                bid_size: t.bid_size,
                ask_size: t.ask_size,
                in_the_money: v.intrinsic(&c) > 0.0,
                volume: t.volume,
                open_interest: Self::open_interest(&p, &c, today),
                net_change,
                last: t.last,
                greeks: v.greeks_json(),
            })
        };
        let pairs: Vec<Value> = strikes
            .into_iter()
            .filter_map(|k| {
                let call = chain_type.calls().then(|| side(k, CallPut::Call)).flatten();
                let put = chain_type.puts().then(|| side(k, CallPut::Put)).flatten();
                // Paper's links are relative: the host is whichever E*TRADE the client uses.
                option_pair(chain_type, call.as_ref(), put.as_ref(), "")
            })
            .collect();
        Some(option_chain(
            pairs,
            at.as_second(),
            near,
            expiry,
            Some(self.source()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::super::OptionChainQuery;
    use super::super::listing::listed_expirations;
    use super::super::test_support::{TUE_11, m, ts};
    use crate::calendar;
    use crate::etrade::models::options::{ExpirationDates, OptionChain};
    use crate::paper::touch::{CallPut, MarketData, OptionContract};
    use jiff::civil::{Date, date};
    use rust_decimal::Decimal;

    #[test]
    fn expire_dates_parse() {
        let mk = m();
        let at = ts(TUE_11);
        let wire = mk.option_expire_dates_response("AAPL", at).expect("aapl");
        let e = ExpirationDates::from_wire(Some(wire)).expect("parses");
        let listed = listed_expirations(date(2026, 3, 10));
        assert_eq!(e.expiration_dates.len(), listed.len());
        assert_eq!(
            (
                e.expiration_dates[0].year,
                e.expiration_dates[0].month,
                e.expiration_dates[0].day
            ),
            (2026, 3, 13)
        );
        assert_eq!(e.expiration_dates[0].expiry_type.as_deref(), Some("WEEKLY"));
        for x in &e.expiration_dates {
            let d = Date::new(x.year as i16, x.month as i8, x.day as i8).expect("date");
            assert!(calendar::is_trading_day(d));
        }
    }

    #[test]
    fn chains_parse() {
        let mk = m();
        let at = ts(TUE_11);
        let q = OptionChainQuery {
            symbol: "AAPL".into(),
            ..Default::default()
        };
        let chain = OptionChain::from_wire(mk.option_chains_response(&q, at)).expect("parses");
        let ed = chain.selected_ed.as_ref().expect("SelectedED");
        assert_eq!((ed.year, ed.month, ed.day), (Some(2026), Some(3), Some(20)));
        assert_eq!(chain.option_pairs.len(), 41);
        assert_eq!(chain.near_price, mk.equity("AAPL", at).map(|t| t.last));
        for pair in &chain.option_pairs {
            let call = pair.call.as_ref().expect("call");
            let put = pair.put.as_ref().expect("put");
            assert_eq!(call.strike_price, put.strike_price);
            assert!(call.bid < call.ask && put.bid < put.ask);
            assert!(call.in_the_money != put.in_the_money || call.in_the_money == Some(false));
            let g = call.option_greeks.as_ref().expect("greeks");
            assert!(g.delta.is_some() && g.iv.is_some() && g.theta.is_some());
            let contract = OptionContract {
                underlying: "AAPL".into(),
                expiration: date(2026, 3, 20),
                call_put: CallPut::Call,
                strike: call.strike_price.expect("strike"),
            };
            assert_eq!(call.bid, mk.option(&contract, at).map(|t| t.bid));
            assert_eq!(
                call.osi_key.as_deref(),
                contract.instrument().osi_key().as_deref()
            );
        }
        // Weekly, a few strikes near a price, puts only.
        let q = OptionChainQuery {
            symbol: "ibm".into(),
            expiry: None,
            strike_price_near: Some(Decimal::from(203)),
            no_of_strikes: Some(4),
            chain_type: Some("PUT".into()),
            include_weekly: true,
        };
        let chain = OptionChain::from_wire(mk.option_chains_response(&q, at)).expect("puts");
        let ed = chain.selected_ed.as_ref().expect("SelectedED");
        assert_eq!((ed.month, ed.day), (Some(3), Some(13)));
        let strikes: Vec<Option<Decimal>> = chain
            .option_pairs
            .iter()
            .map(|p| p.put.as_ref().and_then(|x| x.strike_price))
            .collect();
        let want: Vec<Option<Decimal>> = ["197.5", "200", "205", "210"]
            .iter()
            .map(|s| Decimal::from_str(s).ok())
            .collect();
        assert_eq!(strikes, want);
        assert!(chain.option_pairs.iter().all(|p| p.call.is_none()));
        assert_eq!(chain.option_pairs[0].pair_type.as_deref(), Some("PUTONLY"));
        // An explicit listed expiry, and an unlisted one.
        let q = OptionChainQuery {
            symbol: "SPY".into(),
            expiry: Some(date(2026, 6, 18)),
            ..Default::default()
        };
        assert!(mk.option_chains_response(&q, at).is_some());
        let q = OptionChainQuery {
            expiry: Some(date(2026, 6, 19)),
            ..q
        };
        assert_eq!(mk.option_chains_response(&q, at), None);
        let q = OptionChainQuery {
            symbol: "ZZZ".into(),
            ..Default::default()
        };
        assert_eq!(mk.option_chains_response(&q, at), None);
        // A strike centre far from every listing: an empty chain, not a panic.
        let q = OptionChainQuery {
            symbol: "AAPL".into(),
            strike_price_near: Some(Decimal::MAX),
            ..Default::default()
        };
        let chain = OptionChain::from_wire(mk.option_chains_response(&q, at)).expect("far");
        assert!(chain.option_pairs.is_empty());
        assert!(mk.strikes_near("AAPL", Decimal::MIN).is_some());
    }
}

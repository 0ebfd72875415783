//! `GET /v1/market/quote/{symbols}`: equity and option quotes in E*TRADE's wire shape, for
//! every detail flag.

use jiff::Timestamp;
use rust_decimal::Decimal;
use serde_json::Value;

use super::SimulatedMarket;
use super::osi::parse_option_symbol;
use super::rounding::{money, round_dec};
use super::sessions::{DAY_SECS, secs};
use crate::calendar::{self, SessionPhase};
use crate::emulation::Instrument;
use crate::emulation::answers::quotes::{
    DetailFlag, EquityQuote, ExtendedHours, OptionQuote, QuoteHeader, bad_symbol, equity_quote,
    option_quote, quote_response,
};
use crate::paper::touch::{MarketData, OptionContract};

fn parse_flag(flag: Option<&str>) -> DetailFlag {
    // MF_DETAIL (no funds here) and anything unknown answer with the ALL block.
    flag.and_then(|f| DetailFlag::parse(&f.trim().to_ascii_uppercase()))
        .unwrap_or(DetailFlag::All)
}

impl SimulatedMarket {
    /// `GET /v1/market/quote/{symbols}` → `{"QuoteResponse": {"QuoteData": [...],
    /// "Messages": {"Message": [...]}}}`. Symbols may be equities or option symbols
    /// (`IBM:2026:6:18:CALL:220`) of listed symbols; any other becomes a 1019 WARNING message
    /// (the container only when there is one), and with no quote at all the messages come
    /// alone, as E*TRADE sends them.
    pub fn quote_response(
        &self,
        symbols: &[String],
        detail_flag: Option<&str>,
        at: Timestamp,
    ) -> Value {
        let flag = parse_flag(detail_flag);
        let mut data = Vec::new();
        let mut messages = Vec::new();
        for symbol in symbols
            .iter()
            .flat_map(|s| s.split(','))
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let quote = if symbol.contains(':') {
                parse_option_symbol(symbol).and_then(|c| self.option_quote(&c, flag, at))
            } else {
                self.equity_quote(symbol, flag, at)
            };
            match quote {
                Some(q) => data.push(q),
                None => messages.push(bad_symbol(symbol)),
            }
        }
        quote_response(data, messages)
    }

    fn header(&self, at: Timestamp) -> QuoteHeader<'static> {
        let zoned = at.to_zoned_datetime(calendar::time_zone().clone());
        QuoteHeader {
            date_time: zoned.strftime("%H:%M:%S %Z %m-%d-%Y").to_string(),
            date_time_utc: at.as_second(),
            after_hours: matches!(
                calendar::phase_at(at),
                SessionPhase::PreMarket | SessionPhase::AfterHours
            ),
            time_zone: Some(zoned.strftime("%Z").to_string()),
            // Says where the numbers come from (the runtime's Quote model does not read it).
            source: Some(self.source()),
        }
    }

    fn equity_quote(&self, symbol: &str, flag: DetailFlag, at: Timestamp) -> Option<Value> {
        let p = self.profile(symbol)?;
        let q = Self::equity_snapshot(&p, at);
        let t = &q.touch;
        let te_s = q.te.as_second();
        let te_text =
            q.te.to_zoned_datetime(calendar::time_zone().clone())
                .strftime("%H:%M:%S %Z %m-%d-%Y")
                .to_string();
        let change = t.last - q.previous_close;
        let change_pct = if q.previous_close.is_zero() {
            Decimal::ZERO
        } else {
            (change / q.previous_close * Decimal::from(100)).round_dp(2)
        };
        let eps = money(p.eps);
        let pe = if eps.is_zero() {
            Decimal::ZERO
        } else {
            (t.last / eps).round_dp(2)
        };
        let shares = Decimal::from(p.shares);
        let name = p.name.clone();
        let perf12 = if q.low52.0.is_zero() {
            Decimal::ZERO
        } else {
            // Performance over the year, from the price 52 weeks ago.
            let ago = money(p.base * p.log_path(secs(q.te) - 364.0 * DAY_SECS).exp());
            if ago.is_zero() {
                Decimal::ZERO
            } else {
                ((t.last - ago) / ago * Decimal::from(100)).round_dp(2)
            }
        };
        let (eh_change, eh_pct) = match q.regular_close {
            Some(c) if !c.is_zero() => (
                t.last - c,
                ((t.last - c) / c * Decimal::from(100)).round_dp(2),
            ),
            _ => (Decimal::ZERO, Decimal::ZERO),
        };
        let eh_status = match calendar::phase_at(at) {
            SessionPhase::PreMarket | SessionPhase::AfterHours => "EH_REALTIME",
            _ => "EH_CLOSED",
        };
        let quote = EquityQuote {
            instrument: Instrument::Equity {
                symbol: p.symbol.clone(),
            },
            name,
            exchange: p.exchange.to_string(),
            last: t.last,
            bid: t.bid,
            ask: t.ask,
            bid_size: t.bid_size,
            ask_size: t.ask_size,
            bid_exchange: "Q",
            quote_time: te_text,
            change,
            change_pct,
            volume: t.volume,
            open: q.open,
            high: q.high,
            low: q.low,
            high_ask: q.high,
            high_bid: q.high,
            low_ask: q.low,
            low_bid: q.low,
            previous_close: q.previous_close,
            previous_day_volume: q.previous_day_volume,
            today_close: q.regular_close.unwrap_or(Decimal::ZERO),
            high52: q.high52.0,
            low52: q.low52.0,
            week52_low_date: q.low52.1,
            week52_hi_date: q.high52.1,
            perf_12_months: perf12,
            eps,
            est_earnings: money(p.eps * 1.08),
            pe,
            dividend: Decimal::ZERO,
            annual_dividend: Decimal::ZERO,
            yield_pct: Decimal::ZERO,
            declared_dividend: Decimal::ZERO,
            ex_dividend_date: 0,
            dividend_payable_date: 0,
            market_cap: (t.last * shares).round_dp(2),
            shares_outstanding: p.shares,
            beta: round_dec(p.beta, 2),
            number_of_trades: t.volume / 150,
            volume_10_day: p.daily_volume.round() as u64,
            average_volume: p.daily_volume.round() as u64,
            time_of_last_trade: te_s,
            extended: ExtendedHours {
                last: t.last,
                change: eh_change,
                percent_change: eh_pct,
                bid_size: t.bid_size,
                ask_size: t.ask_size,
                volume: t.volume,
                time_of_last_trade: te_s,
                status: eh_status,
            },
            next_earning_date: None,
            fund: None,
        };
        Some(equity_quote(&quote, flag, &self.header(at)))
    }

    fn option_quote(&self, c: &OptionContract, flag: DetailFlag, at: Timestamp) -> Option<Value> {
        let (p, v) = self.option_at(c, at)?;
        let c = OptionContract {
            underlying: p.symbol.clone(),
            strike: c.strike.normalize(),
            ..c.clone()
        };
        let t = &v.touch;
        let today = calendar::trading_day(at);
        let days = i64::from((c.expiration - today).get_days());
        let desc = format!("{} (SIMULATED)", c.instrument().display());
        let intrinsic = money(v.intrinsic(&c));
        let premium = (t.last - intrinsic).max(Decimal::ZERO);
        let oi = Self::open_interest(&p, &c, today);
        let expiry_s = calendar::regular_hours(c.expiration).map_or(0, |(_, e)| e.as_second());
        let quote = OptionQuote {
            instrument: c.instrument(),
            company_name: p.name.clone(),
            description: desc,
            exchange: p.exchange.to_string(),
            last: t.last,
            bid: t.bid,
            ask: t.ask,
            bid_size: t.bid_size,
            ask_size: t.ask_size,
            previous_close: None,
            days_to_expiration: days,
            open_interest: oi,
            total_volume: t.volume,
            intrinsic_value: intrinsic,
            time_premium: premium,
            expiration_date: expiry_s,
            time_of_last_trade: v.te.as_second(),
            greeks: v.greeks_json(),
        };
        Some(option_quote(&quote, flag, &self.header(at)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{TUE_11, contract, m, ts};
    use crate::etrade::models::quotes::QuoteList;
    use crate::paper::touch::{CallPut, MarketData};
    use jiff::civil::date;
    use rust_decimal::Decimal;
    use serde_json::json;

    #[test]
    fn quotes_parse_through_the_runtime_model() {
        let mk = m();
        let at = ts(TUE_11);
        let syms: Vec<String> = [
            "AAPL",
            "ZZZ",
            "IBM:2026:6:18:CALL:220",
            "msft",
            "IBM:2026:6:17:CALL:220",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for flag in [
            None,
            Some("ALL"),
            Some("FUNDAMENTAL"),
            Some("INTRADAY"),
            Some("OPTIONS"),
            Some("WEEK_52"),
            Some("MF_DETAIL"),
        ] {
            let wire = mk.quote_response(&syms, flag, at);
            let list = QuoteList::from_wire(Some(wire)).expect("parses");
            assert_eq!(list.quotes.len(), 3, "{flag:?}");
            assert_eq!(list.messages.len(), 2);
            assert_eq!(list.messages[0].code.as_deref(), Some("1019"));
            assert_eq!(
                list.messages[0].description.as_deref(),
                Some("ZZZ is not a valid symbol.")
            );
            let q = &list.quotes[0];
            assert_eq!(q.quote_status.as_deref(), Some("DELAYED"));
            assert_eq!(q.ah_flag, Some(false));
            assert_eq!(q.date_time_utc.as_deref(), Some("2026-03-10T15:00:00Z"));
            let product = q.product.as_ref().expect("product");
            assert_eq!(product.symbol.as_deref(), Some("AAPL"));
            let opt = &list.quotes[1];
            assert_eq!(
                opt.product
                    .as_ref()
                    .and_then(|p| p.security_type.as_deref()),
                Some("OPTN")
            );
            assert_eq!(
                list.quotes[2]
                    .product
                    .as_ref()
                    .and_then(|p| p.symbol.as_deref()),
                Some("MSFT")
            );
        }
        let list =
            QuoteList::from_wire(Some(mk.quote_response(&syms[..1], None, at))).expect("all");
        let all = list.quotes[0].all.as_ref().expect("All block");
        let touch = mk.equity("AAPL", at).expect("touch");
        assert_eq!(all.bid, Some(touch.bid));
        assert_eq!(all.ask, Some(touch.ask));
        assert_eq!(all.last_trade, Some(touch.last));
        assert_eq!(all.total_volume, i64::try_from(touch.volume).ok());
        assert!(all.low <= all.last_trade && all.last_trade <= all.high);
        assert!(all.low52 <= all.low && all.high <= all.high52);
        assert!(all.extended_hour_quote_detail.is_some());
        assert!(
            all.company_name
                .as_deref()
                .is_some_and(|n| n.contains("SIMULATED"))
        );
        let opt = QuoteList::from_wire(Some(mk.quote_response(
            &["IBM:2026:6:18:PUT:220.000000".to_string()],
            Some("OPTIONS"),
            at,
        )))
        .expect("option");
        let o = opt.quotes[0].option.as_ref().expect("Option block");
        let g = o.option_greeks.as_ref().expect("greeks");
        assert!(g.delta.is_some_and(|d| d < Decimal::ZERO));
        assert_eq!(o.osi_key.as_deref(), Some("IBM---260618P00220000"));
        let c = contract("IBM", date(2026, 6, 18), CallPut::Put, "220");
        assert_eq!(o.bid, mk.option(&c, at).map(|t| t.bid));
        // All unknown: the same shape, no quotes.
        let none = mk.quote_response(&["ZZZ".into(), "APPL".into()], None, at);
        assert!(none["QuoteResponse"].get("QuoteData").is_none(), "{none}");
        assert_eq!(
            none["QuoteResponse"]["Messages"]["Message"][1],
            json!({"description": "APPL is not a valid symbol.", "code": 1019, "type": "WARNING"})
        );
        let list = QuoteList::from_wire(Some(none)).expect("empty");
        assert!(list.quotes.is_empty());
        assert_eq!(list.messages.len(), 2);
        // Class shares and their options are quoted under E*TRADE's spelling.
        let brk = QuoteList::from_wire(Some(mk.quote_response(
            &["brk.b".into(), "BRK.B:2026:6:18:CALL:480".into()],
            None,
            at,
        )))
        .expect("class shares");
        assert_eq!(brk.quotes.len(), 2, "{:?}", brk.messages);
        assert_eq!(
            brk.quotes[0]
                .product
                .as_ref()
                .and_then(|p| p.symbol.as_deref()),
            Some("BRK.B")
        );
        // No Messages container when every symbol is good; after hours ahFlag is true.
        let good = mk.quote_response(&["AAPL,SPY".into()], None, ts("2026-03-10T21:00:00Z"));
        assert!(good["QuoteResponse"].get("Messages").is_none());
        let list = QuoteList::from_wire(Some(good)).expect("good");
        assert_eq!(list.quotes.len(), 2);
        assert_eq!(list.quotes[0].ah_flag, Some(true));
    }
}

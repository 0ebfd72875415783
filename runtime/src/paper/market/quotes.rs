//! `GET /v1/market/quote/{symbols}`: equity and option quotes in E*TRADE's wire shape, for
//! every detail flag.

use jiff::Timestamp;
use rust_decimal::Decimal;
use serde_json::{Map, Value, json};

use super::SimulatedMarket;
use super::osi::parse_option_symbol;
use super::rounding::{money, round_dec};
use super::sessions::{DAY_SECS, secs};
use super::wire::{greeks_json, num};
use crate::calendar::{self, SessionPhase};
use crate::paper::touch::{MarketData, OptionContract};

enum DetailFlag {
    All,
    Fundamental,
    Intraday,
    Options,
    Week52,
}

impl DetailFlag {
    fn parse(flag: Option<&str>) -> DetailFlag {
        match flag.map(|f| f.trim().to_ascii_uppercase()).as_deref() {
            Some("FUNDAMENTAL") => DetailFlag::Fundamental,
            Some("INTRADAY") => DetailFlag::Intraday,
            Some("OPTIONS") => DetailFlag::Options,
            Some("WEEK_52") => DetailFlag::Week52,
            // ALL, MF_DETAIL (no mutual funds here) and anything else.
            _ => DetailFlag::All,
        }
    }
}

fn bad_symbol(symbol: &str) -> Value {
    json!({"description": format!("{} is not a valid symbol.", symbol.trim().to_ascii_uppercase()),
        "code": 1019, "type": "WARNING"})
}

fn merge(into: &mut Value, part: Value) {
    if let (Value::Object(o), Value::Object(p)) = (into, part) {
        o.extend(p);
    }
}

impl SimulatedMarket {
    /// `GET /v1/market/quote/{symbols}` → `{"QuoteResponse": {"QuoteData": [...],
    /// "Messages": {"Message": [...]}}}`. Symbols may be equities or option symbols
    /// (`IBM:2026:6:18:CALL:220`); unknown ones become 1019 WARNING messages (the container
    /// only when there is one), so all-unknown still has this shape with no QuoteData.
    pub fn quote_response(
        &self,
        symbols: &[String],
        detail_flag: Option<&str>,
        at: Timestamp,
    ) -> Value {
        let flag = DetailFlag::parse(detail_flag);
        let mut data = Vec::new();
        let mut messages = Vec::new();
        for symbol in symbols
            .iter()
            .flat_map(|s| s.split(','))
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let quote = if symbol.contains(':') {
                parse_option_symbol(symbol).and_then(|c| self.option_quote(&c, &flag, at))
            } else {
                self.equity_quote(symbol, &flag, at)
            };
            match quote {
                Some(q) => data.push(q),
                None => messages.push(bad_symbol(symbol)),
            }
        }
        let mut body = Map::new();
        body.insert("QuoteData".into(), Value::Array(data));
        if !messages.is_empty() {
            body.insert("Messages".into(), json!({ "Message": messages }));
        }
        json!({ "QuoteResponse": body })
    }

    fn quote_header(&self, at: Timestamp, product: Value, block: (&str, Value)) -> Value {
        let zoned = at.to_zoned_datetime(calendar::time_zone().clone());
        let zone = zoned.strftime("%Z").to_string();
        let ah = matches!(
            calendar::phase_at(at),
            SessionPhase::PreMarket | SessionPhase::AfterHours
        );
        let mut m = Map::new();
        m.insert(
            "dateTime".into(),
            json!(zoned.strftime("%H:%M:%S %Z %m-%d-%Y").to_string()),
        );
        m.insert("dateTimeUTC".into(), json!(at.as_second()));
        m.insert("quoteStatus".into(), json!("DELAYED"));
        m.insert("ahFlag".into(), json!(if ah { "true" } else { "false" }));
        m.insert("hasMiniOptions".into(), json!(false));
        m.insert("timeZone".into(), json!(zone));
        m.insert("dstFlag".into(), json!(zone.ends_with("DT")));
        // Says where the numbers come from (the runtime's Quote model does not read it).
        m.insert("source".into(), json!(self.source()));
        m.insert(block.0.into(), block.1);
        m.insert("Product".into(), product);
        Value::Object(m)
    }

    fn equity_quote(&self, symbol: &str, flag: &DetailFlag, at: Timestamp) -> Option<Value> {
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
        let block = match flag {
            DetailFlag::Fundamental => (
                "Fundamental",
                json!({"companyName": name, "eps": num(eps), "estEarnings": num(money(p.eps * 1.08)),
                    "high52": num(q.high52.0), "lastTrade": num(t.last), "low52": num(q.low52.0),
                    "symbolDescription": name}),
            ),
            DetailFlag::Intraday => (
                "Intraday",
                json!({"ask": num(t.ask), "bid": num(t.bid), "changeClose": num(change),
                    "changeClosePercentage": num(change_pct), "companyName": name,
                    "high": num(q.high), "lastTrade": num(t.last), "low": num(q.low),
                    "totalVolume": t.volume}),
            ),
            DetailFlag::Options => (
                "Option",
                json!({"ask": num(t.ask), "askSize": t.ask_size, "bid": num(t.bid),
                    "bidSize": t.bid_size, "companyName": name, "daysToExpiration": 0,
                    "lastTrade": num(t.last), "openInterest": 0, "optionPreviousBidPrice": 0,
                    "optionPreviousAskPrice": 0, "osiKey": "", "intrinsicValue": 0,
                    "timePremium": 0, "optionMultiplier": 0, "contractSize": 0,
                    "symbolDescription": name}),
            ),
            DetailFlag::Week52 => (
                "Week52",
                json!({"companyName": name, "high52": num(q.high52.0), "lastTrade": num(t.last),
                    "low52": num(q.low52.0), "perf12Months": num(perf12),
                    "previousClose": num(q.previous_close), "symbolDescription": name,
                    "totalVolume": t.volume}),
            ),
            DetailFlag::All => {
                let mut all = json!({"adjustedFlag": false, "annualDividend": 0, "ask": num(t.ask),
                    "askExchange": "Q", "askSize": t.ask_size, "askTime": te_text,
                    "bid": num(t.bid), "bidExchange": "Q", "bidSize": t.bid_size,
                    "bidTime": te_text, "changeClose": num(change),
                    "changeClosePercentage": num(change_pct), "companyName": name,
                    "daysToExpiration": 0,
                    "dirLast": if change >= Decimal::ZERO { "1" } else { "2" },
                    "dividend": 0, "eps": num(eps), "estEarnings": num(money(p.eps * 1.08)),
                    "exDividendDate": 0, "exchgLastTrade": p.exchange, "fsi": "",
                    "high": num(q.high), "high52": num(q.high52.0), "highAsk": num(q.high),
                    "highBid": num(q.high), "lastTrade": num(t.last), "low": num(q.low),
                    "low52": num(q.low52.0), "lowAsk": num(q.low), "lowBid": num(q.low)});
                merge(
                    &mut all,
                    json!({"numberOfTrades": t.volume / 150, "open": num(q.open), "openInterest": 0,
                    "optionStyle": "", "optionUnderlier": "",
                    "previousClose": num(q.previous_close),
                    "previousDayVolume": q.previous_day_volume, "primaryExchange": p.exchange,
                    "symbolDescription": name,
                    "todayClose": num(q.regular_close.unwrap_or(Decimal::ZERO)),
                    "totalVolume": t.volume, "upc": 0,
                    "volume10Day": p.daily_volume.round() as u64, "cashDeliverable": 0,
                    "marketCap": num((t.last * shares).round_dp(2)), "sharesOutstanding": p.shares,
                    "beta": num(round_dec(p.beta, 2)), "yield": 0, "declaredDividend": 0,
                    "dividendPayableDate": 0, "pe": num(pe)}),
                );
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
                merge(
                    &mut all,
                    json!({"marketCloseBidSize": 0, "marketCloseAskSize": 0,
                    "marketCloseVolume": 0, "week52LowDate": q.low52.1,
                    "week52HiDate": q.high52.1, "intrinsicValue": 0, "timePremium": 0,
                    "optionMultiplier": 0, "contractSize": 0, "expirationDate": 0,
                    "timeOfLastTrade": te_s, "averageVolume": p.daily_volume.round() as u64,
                    "ExtendedHourQuoteDetail": {"lastPrice": num(t.last), "change": num(eh_change),
                        "percentChange": num(eh_pct), "bid": num(t.bid), "bidSize": t.bid_size,
                        "ask": num(t.ask), "askSize": t.ask_size, "volume": t.volume,
                        "timeOfLastTrade": te_s, "timeZone": "", "quoteStatus": eh_status}}),
                );
                ("All", all)
            }
        };
        let product = json!({"symbol": p.symbol, "securityType": "EQ"});
        Some(self.quote_header(at, product, block))
    }

    fn option_quote(&self, c: &OptionContract, flag: &DetailFlag, at: Timestamp) -> Option<Value> {
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
        let block = if matches!(flag, DetailFlag::Options) {
            (
                "Option",
                json!({"ask": num(t.ask), "askSize": t.ask_size, "bid": num(t.bid),
                    "bidSize": t.bid_size, "companyName": p.name, "daysToExpiration": days,
                    "lastTrade": num(t.last), "openInterest": oi,
                    "optionPreviousBidPrice": num(t.bid), "optionPreviousAskPrice": num(t.ask),
                    "osiKey": c.instrument().osi_key(), "intrinsicValue": num(intrinsic),
                    "timePremium": num(premium), "optionMultiplier": 100, "contractSize": 100,
                    "symbolDescription": desc, "OptionGreeks": greeks_json(&v)}),
            )
        } else {
            (
                "All",
                json!({"adjustedFlag": false, "ask": num(t.ask), "askSize": t.ask_size,
                    "bid": num(t.bid), "bidSize": t.bid_size, "companyName": p.name,
                    "daysToExpiration": days, "lastTrade": num(t.last), "openInterest": oi,
                    "optionStyle": "AMERICAN", "optionUnderlier": p.symbol,
                    "symbolDescription": desc, "totalVolume": t.volume,
                    "intrinsicValue": num(intrinsic), "timePremium": num(premium),
                    "optionMultiplier": 100, "contractSize": 100, "expirationDate": expiry_s,
                    "timeOfLastTrade": v.te.as_second(),
                    "OptionDeliverableList": [{"rootSymbol": p.symbol,
                        "deliverableSymbol": p.symbol, "deliverableTypeCode": "EQUITY",
                        "deliverableExchangeCode": p.exchange, "deliverableStrikePercent": 100,
                        "deliverableCILShares": 0, "deliverableWholeShares": 100}]}),
            )
        };
        let product = json!({"symbol": p.symbol, "securityType": "OPTN",
            "callPut": c.call_put.as_str(), "expiryYear": c.expiration.year(),
            "expiryMonth": c.expiration.month(), "expiryDay": c.expiration.day(),
            "strikePrice": num(c.strike)});
        Some(self.quote_header(at, product, block))
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
        let none = mk.quote_response(&["ZZZ".into(), "ZZA".into()], None, at);
        assert_eq!(none["QuoteResponse"]["QuoteData"], json!([]));
        let list = QuoteList::from_wire(Some(none)).expect("empty");
        assert!(list.quotes.is_empty());
        assert_eq!(list.messages.len(), 2);
        // No Messages container when every symbol is good; after hours ahFlag is true.
        let good = mk.quote_response(&["AAPL,SPY".into()], None, ts("2026-03-10T21:00:00Z"));
        assert!(good["QuoteResponse"].get("Messages").is_none());
        let list = QuoteList::from_wire(Some(good)).expect("good");
        assert_eq!(list.quotes.len(), 2);
        assert_eq!(list.quotes[0].ah_flag, Some(true));
    }
}

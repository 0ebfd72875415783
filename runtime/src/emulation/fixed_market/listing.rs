//! A listed equity or fund and its quote.

use std::borrow::Cow;

use rust_decimal::Decimal;
use serde_json::Value;

use super::cents;
use crate::emulation::Instrument;
use crate::emulation::answers::quotes::{
    DetailFlag, EquityQuote, ExtendedHours, FundDetail, QuoteHeader, equity_quote,
};

/// One equity or fund of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub symbol: String,
    pub name: String,
    /// EQ | MF
    pub security_type: String,
    pub exchange: String,
    pub last: Decimal,
    pub previous_close: Decimal,
    pub volume: u64,
    pub eps: Decimal,
    pub dividend: Decimal,
    pub high52: Decimal,
    pub low52: Decimal,
    pub shares_outstanding: u64,
    pub beta: Decimal,
}

fn pct(d: Decimal) -> Decimal {
    cents(d * Decimal::ONE_HUNDRED)
}

fn ratio(part: Decimal, whole: Decimal) -> Decimal {
    part.checked_div(whole).unwrap_or_default()
}

impl Listing {
    /// The table's listing, or one synthesized for a plain symbol of one to five letters
    /// (not starting with `XX`, the unknown ones).
    pub(super) fn find_or_synthesize<'a>(
        table: &'a [Listing],
        symbol: &str,
    ) -> Option<Cow<'a, Listing>> {
        if let Some(l) = table.iter().find(|l| l.symbol.eq_ignore_ascii_case(symbol)) {
            return Some(Cow::Borrowed(l));
        }
        let up = symbol.to_ascii_uppercase();
        if up.is_empty()
            || up.len() > 5
            || up.starts_with("XX")
            || !up.chars().all(|c| c.is_ascii_alphabetic())
        {
            return None;
        }
        let h = up
            .bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
        let last = Decimal::new(1000 + i64::try_from(h % 9000).unwrap_or(0), 2);
        Some(Cow::Owned(Listing {
            name: format!("{up} CORP COM"),
            symbol: up,
            security_type: "EQ".into(),
            exchange: "NYSE".into(),
            last,
            previous_close: cents(last * Decimal::new(99, 2)),
            volume: h % 5_000_000 + 10_000,
            eps: cents(last / Decimal::from(25)),
            dividend: Decimal::ZERO,
            high52: cents(last * Decimal::new(13, 1)),
            low52: cents(last * Decimal::new(7, 1)),
            shares_outstanding: 100_000_000,
            beta: Decimal::ONE,
        }))
    }

    /// The bid and ask: two cents under, three over the last trade.
    pub(super) fn touch(&self) -> (Decimal, Decimal) {
        (
            self.last - Decimal::new(2, 2),
            self.last + Decimal::new(3, 2),
        )
    }

    fn instrument(&self) -> Instrument {
        if self.security_type == "MF" {
            Instrument::Fund {
                symbol: self.symbol.clone(),
                money_market: false,
            }
        } else {
            Instrument::Equity {
                symbol: self.symbol.clone(),
            }
        }
    }

    /// The quote with `flag`'s block; `earnings` adds the next earnings date.
    pub(super) fn quote(
        &self,
        flag: DetailFlag,
        earnings: bool,
        header: &QuoteHeader<'_>,
    ) -> Value {
        let now_s = header.date_time_utc;
        let (bid, ask) = self.touch();
        let change = self.last - self.previous_close;
        let change_pct = pct(ratio(change, self.previous_close));
        let eh_move = Decimal::new(4, 2);
        let q = EquityQuote {
            instrument: self.instrument(),
            name: self.name.clone(),
            exchange: self.exchange.clone(),
            last: self.last,
            bid,
            ask,
            bid_size: 200,
            ask_size: 300,
            bid_exchange: " ",
            quote_time: header.date_time.clone(),
            change,
            change_pct,
            volume: self.volume,
            open: self.previous_close,
            high: cents(self.last * Decimal::new(101, 2)),
            low: cents(self.last * Decimal::new(985, 3)),
            high_ask: Decimal::ZERO,
            high_bid: Decimal::ZERO,
            low_ask: Decimal::ZERO,
            low_bid: Decimal::ZERO,
            previous_close: self.previous_close,
            previous_day_volume: self.volume.saturating_sub(1_000),
            today_close: Decimal::ZERO,
            high52: self.high52,
            low52: self.low52,
            week52_low_date: now_s - 200 * 86_400,
            week52_hi_date: now_s - 60 * 86_400,
            perf_12_months: pct(ratio(self.last - self.low52, self.low52)),
            eps: self.eps,
            est_earnings: cents(self.eps * Decimal::new(106, 2)),
            pe: if self.eps > Decimal::ZERO {
                cents(self.last / self.eps)
            } else {
                Decimal::ZERO
            },
            dividend: self.dividend,
            annual_dividend: cents(self.dividend * Decimal::from(4)),
            yield_pct: pct(ratio(self.dividend * Decimal::from(4), self.last)),
            declared_dividend: self.dividend,
            ex_dividend_date: now_s - 20 * 86_400,
            dividend_payable_date: now_s - 10 * 86_400,
            market_cap: cents(self.last * Decimal::from(self.shares_outstanding)),
            shares_outstanding: self.shares_outstanding,
            beta: self.beta,
            number_of_trades: 123_456,
            volume_10_day: self.volume + 2_000,
            average_volume: self.volume + 5_000,
            time_of_last_trade: now_s,
            extended: ExtendedHours {
                last: self.last + eh_move,
                change: eh_move,
                percent_change: pct(ratio(eh_move, self.last)),
                bid_size: 100,
                ask_size: 100,
                volume: self.volume,
                time_of_last_trade: now_s,
                status: "EH_CLOSED",
            },
            next_earning_date: earnings.then(|| "01/27/2027".to_string()),
            fund: Some(FundDetail {
                cusip: "922908728".into(),
                family: "VANGUARD".into(),
                expense_ratio: Decimal::new(4, 2),
                initial_investment: Decimal::from(3000),
                subsequent_investment: Decimal::ONE,
                availability: "Open to new buy and sell".into(),
                category: "Large Blend".into(),
            }),
        };
        equity_quote(&q, flag, header)
    }
}

//! What the fixed market estimates an order at (the preview and place answers, and the
//! fixed book's funds check): a one-leg order at its limit or stop price, else at its touch
//! (the ask to buy, the bid to sell); a spread at its net limit, else at the signed sum of its
//! legs' touches. An instrument the market does not quote is taken at [`UNQUOTED_PRICE`].
//! Options pay [`OPTION_COMMISSION`] a contract; equities trade free.

use jiff::Timestamp;
use rust_decimal::Decimal;
use rust_decimal::prelude::Zero;

use super::super::{Instrument, LegRequest, OrderRequest, PriceType, QuantityType};
use super::{FixedMarket, cents};

/// The price of a leg the market has no quote for.
pub const UNQUOTED_PRICE: Decimal = Decimal::from_parts(100, 0, 0, false, 0);
/// The commission per option contract.
pub const OPTION_COMMISSION: Decimal = Decimal::from_parts(65, 0, 0, false, 2);

/// An order's estimated value and commission, in cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// Order value, ≥ 0.
    pub value: Decimal,
    pub commission: Decimal,
    /// Money out (a debit) rather than in.
    pub debit: bool,
}

impl Estimate {
    /// E*TRADE's `estimatedTotalAmount`: positive for a debit, negative for a credit.
    pub fn total(&self) -> Decimal {
        if self.debit {
            cents(self.value + self.commission)
        } else {
            cents(-(self.value - self.commission))
        }
    }
}

impl FixedMarket {
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

    /// What `r` is estimated at now.
    pub fn estimate(&self, r: &OrderRequest, now: Timestamp) -> Estimate {
        let commission: Decimal = r
            .legs
            .iter()
            .filter(|l| l.instrument.is_option())
            .map(|l| l.quantity * OPTION_COMMISSION)
            .sum();
        let leg_price = |l: &LegRequest| {
            self.touch(&l.instrument, now)
                .map_or(
                    UNQUOTED_PRICE,
                    |(bid, ask, _)| {
                        if l.action.is_buy() { ask } else { bid }
                    },
                )
        };
        let leg_value = |l: &LegRequest, px: Decimal| {
            if l.quantity_type == QuantityType::Dollar {
                l.quantity
            } else {
                l.quantity * px * l.instrument.multiplier()
            }
        };
        let (value, debit) = match r.legs.as_slice() {
            [l] => {
                let px = r
                    .limit_price
                    .or(r.stop_price)
                    .unwrap_or_else(|| leg_price(l));
                (leg_value(l, px), l.action.is_buy())
            }
            legs => match (r.limit_price, legs.first()) {
                (Some(net), Some(first)) => {
                    (leg_value(first, net), r.price_type != PriceType::NetCredit)
                }
                _ => {
                    let signed: Decimal = legs
                        .iter()
                        .map(|l| {
                            let v = leg_value(l, leg_price(l));
                            if l.action.is_buy() { v } else { -v }
                        })
                        .sum();
                    (signed.abs(), signed > Decimal::zero())
                }
            },
        };
        Estimate {
            value: cents(value),
            commission: cents(commission),
            debit,
        }
    }
}

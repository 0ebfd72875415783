//! What an order is estimated at, as the preview and place answers state it and a funds
//! check weighs it: a one-leg order at its limit or stop price, else at its leg's price (the
//! ask to buy, the bid to sell); a spread at its net limit, else at the signed sum of its
//! legs' prices; a commission per trade and per option contract. Each emulator supplies its
//! legs' prices and its commissions.

use rust_decimal::{Decimal, RoundingStrategy};

use super::{LegRequest, OrderRequest, PriceType, QuantityType};

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

/// What an emulator charges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commissions {
    pub per_trade: Decimal,
    pub per_contract: Decimal,
}

/// Money rounded to cents, half away from zero.
fn cents(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// The commission on an order of `legs`.
fn commission(c: &Commissions, legs: &[LegRequest]) -> Decimal {
    let contracts: Decimal = legs
        .iter()
        .filter(|l| l.instrument.is_option())
        .map(|l| l.quantity)
        .sum();
    cents(c.per_trade + c.per_contract * contracts)
}

/// What `r` is estimated at, each leg (by its index) at `leg_price`.
pub fn estimate(
    r: &OrderRequest,
    c: &Commissions,
    leg_price: impl Fn(usize, &LegRequest) -> Decimal,
) -> Estimate {
    let leg_value = |l: &LegRequest, px: Decimal| {
        if l.quantity_type == QuantityType::Dollar {
            l.quantity
        } else {
            l.quantity * px * l.instrument.multiplier()
        }
    };
    let (value, debit) = match (r.legs.as_slice(), r.is_spread()) {
        ([l], false) => {
            let px = r.named_price().unwrap_or_else(|| leg_price(0, l));
            (leg_value(l, px), l.action.is_buy())
        }
        (legs, _) => match (r.limit_price, legs.first()) {
            (Some(net), Some(first)) if r.price_type != PriceType::Market => {
                (leg_value(first, net), r.price_type != PriceType::NetCredit)
            }
            _ => {
                let signed: Decimal = legs
                    .iter()
                    .enumerate()
                    .map(|(i, l)| l.action.sign() * leg_value(l, leg_price(i, l)))
                    .sum();
                (signed.abs(), signed > Decimal::ZERO)
            }
        },
    };
    Estimate {
        value: cents(value),
        commission: commission(c, &r.legs),
        debit,
    }
}

//! A fixed book: accounts whose cash, positions and transactions are given, each position
//! valued at the prices given with it (the fake E*TRADE's book). What is derived from them
//! (values, gains, balances, buying power, lots) is a fixed function of the figures given, in
//! exact decimals, so every answer can be asserted.
//!
//! Buying power is simple: a cash account has its cash; a margin account twice its cash plus
//! its long value, less half its short value.

mod orders;
mod portfolio;
mod transactions;

use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::Value;

use super::Instrument;
use super::NumberStyle;
use super::answers::accounts::AccountEntry;
use super::answers::balance::{BalanceFigures, RealTimeValues, balance};

pub use self::orders::{
    BookLeg, BookOrder, BookPreview, FIRST_ORDER_ID, FIRST_PREVIEW_ID, FixedOrders, SeedLeg,
    SeedOrder,
};
pub use self::portfolio::{Fundamentals, PortfolioRequest};
pub use self::transactions::{TransactionFilter, UnknownTransaction};

/// One account of the book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedAccount {
    pub id: String,
    pub key: String,
    /// CASH | MARGIN | IRA | …
    pub mode: String,
    pub desc: String,
    pub name: String,
    pub account_type: String,
    pub institution_type: String,
    /// ACTIVE | CLOSED
    pub status: String,
    /// Epoch seconds; 0 while open.
    pub closed_date: i64,
    pub inst_no: i64,
    /// NO_OPTIONS | LEVEL_1 .. LEVEL_4
    pub option_level: String,
    pub day_trader_status: String,
    pub cash: Decimal,
    pub money_market: Decimal,
    pub positions: Vec<FixedPosition>,
    /// Oldest first.
    pub transactions: Vec<FixedTransaction>,
}

/// One position, with the market figures it is valued at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedPosition {
    pub position_id: i64,
    pub instrument: Instrument,
    pub description: String,
    /// Negative for a short position.
    pub quantity: Decimal,
    pub price_paid: Decimal,
    pub commissions: Decimal,
    pub last: Decimal,
    pub previous_close: Decimal,
    pub volume: u64,
    /// Epoch milliseconds.
    pub date_acquired_ms: i64,
    /// An option's underlier price.
    pub underlier_price: Option<Decimal>,
    pub fundamentals: Fundamentals,
}

/// One transaction (a trade, a dividend, a deposit or a fee).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedTransaction {
    pub id: String,
    /// Epoch milliseconds.
    pub date_ms: i64,
    /// Epoch milliseconds; 0 when not posted.
    pub post_ms: i64,
    /// Signed: negative is cash out.
    pub amount: Decimal,
    pub description: String,
    /// Bought, Sold, Dividend, Deposit, Fee, …
    pub kind: String,
    pub instrument: Option<Instrument>,
    /// Signed (a sale is negative); 0 for cash movements.
    pub quantity: Decimal,
    pub price: Decimal,
    pub fee: Decimal,
    pub order_no: Option<i64>,
}

/// `d` rounded to `dp` places, half away from zero.
fn round(d: Decimal, dp: u32) -> Decimal {
    d.round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero)
}

/// `part` as a percentage of `whole`, to 4 places; 0 of nothing.
fn pct(part: Decimal, whole: Decimal) -> Decimal {
    part.checked_div(whole)
        .map(|q| round(q * Decimal::ONE_HUNDRED, 4))
        .unwrap_or_default()
}

impl FixedPosition {
    pub fn market_value(&self) -> Decimal {
        round(self.quantity * self.last * self.instrument.multiplier(), 2)
    }

    pub fn total_cost(&self) -> Decimal {
        round(
            self.quantity * self.price_paid * self.instrument.multiplier() + self.commissions,
            2,
        )
    }

    pub fn total_gain(&self) -> Decimal {
        round(self.market_value() - self.total_cost(), 2)
    }

    pub fn change(&self) -> Decimal {
        round(self.last - self.previous_close, 4)
    }

    pub fn change_pct(&self) -> Decimal {
        pct(self.change(), self.previous_close)
    }

    pub fn days_gain(&self) -> Decimal {
        round(
            self.change() * self.quantity * self.instrument.multiplier(),
            2,
        )
    }
}

impl FixedAccount {
    pub fn entry(&self) -> AccountEntry<'_> {
        AccountEntry {
            id: &self.id,
            key: &self.key,
            mode: &self.mode,
            desc: &self.desc,
            name: &self.name,
            account_type: &self.account_type,
            institution_type: &self.institution_type,
            status: &self.status,
            closed_date: self.closed_date,
            inst_no: self.inst_no,
        }
    }

    fn values(&self, long: bool) -> Decimal {
        let sum: Decimal = self
            .positions
            .iter()
            .map(FixedPosition::market_value)
            .filter(|v| {
                if long {
                    v.is_sign_positive()
                } else {
                    v.is_sign_negative()
                }
            })
            .sum();
        round(sum, 2)
    }

    pub fn long_value(&self) -> Decimal {
        self.values(true)
    }

    pub fn short_value(&self) -> Decimal {
        self.values(false)
    }

    pub fn net_market_value(&self) -> Decimal {
        round(self.long_value() + self.short_value(), 2)
    }

    pub fn is_margin(&self) -> bool {
        self.mode == "MARGIN"
    }

    /// `BalanceResponse` as of `as_of_ms`, with `RealTimeValues` when asked.
    pub fn balance(&self, as_of_ms: i64, real_time: bool, numbers: NumberStyle) -> Value {
        let cash = self.cash;
        let (long, short) = (self.long_value(), self.short_value());
        let net_mv = self.net_market_value();
        let margin = self.is_margin();
        let equity = round(cash + net_mv, 2);
        let half = Decimal::new(5, 1);
        let figures = BalanceFigures {
            account_id: &self.id,
            institution_type: &self.institution_type,
            account_type: &self.account_type,
            account_desc: &self.desc,
            account_mode: &self.mode,
            option_level: &self.option_level,
            day_trader_status: &self.day_trader_status,
            as_of_ms,
            open_order_reserve: Decimal::ZERO,
            money_market: self.money_market,
            cash_balance: cash,
            cash_for_withdrawal: cash,
            cash_buying_power: cash,
            margin_buying_power: if margin {
                round(cash * Decimal::TWO + long - short.abs() * half, 2).max(Decimal::ZERO)
            } else {
                Decimal::ZERO
            },
            dt_margin_buying_power: if margin {
                round(cash * Decimal::from(4), 2)
            } else {
                Decimal::ZERO
            },
            margin_balance: Decimal::ZERO,
            short_adjust_balance: short.abs(),
            regt_equity: if margin { equity } else { Decimal::ZERO },
            regt_equity_percent: if margin && long > Decimal::ZERO {
                pct(equity, long)
            } else {
                Decimal::ZERO
            },
            margin,
            real_time: real_time.then_some(RealTimeValues {
                total_account_value: equity,
                net_mv,
                net_mv_long: long,
                net_mv_short: short,
            }),
        };
        balance(&figures, numbers)
    }
}

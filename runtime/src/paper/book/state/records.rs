//! The book's records (accounts, cash ledger, positions with lots, orders with their status
//! history, transactions, previews, and the book's counters and clock offset). Records are
//! stored as JSON (decimals as exact strings).

use jiff::Timestamp;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::emulation::{Instrument, OrderAction, OrderRequest, OrderStatus};

pub(crate) const FIRST_ORDER_ID: i64 = 1_001;
pub(crate) const FIRST_PREVIEW_ID: i64 = 310_000_000_001;
pub(crate) const FIRST_POSITION_ID: i64 = 20_000_000_001;
pub(crate) const FIRST_TRANSACTION_ID: i64 = 26_000_000_000_001;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AccountRec {
    pub key: String,
    pub id: String,
    pub name: String,
    pub margin: bool,
    pub starting_cash: Decimal,
    pub cash: Decimal,
    pub created_at: Timestamp,
    /// Listing order (the configuration's).
    pub seq: u32,
}

impl AccountRec {
    pub fn mode(&self) -> &'static str {
        if self.margin { "MARGIN" } else { "CASH" }
    }

    pub fn account_type(&self) -> &'static str {
        if !self.margin && self.name.to_ascii_uppercase().contains("IRA") {
            "IRA"
        } else {
            "INDIVIDUAL"
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LegRec {
    pub instrument: Instrument,
    pub action: OrderAction,
    pub quantity: Decimal,
    pub filled: Decimal,
    /// Σ quantity × price of the fills (for the average execution price).
    pub fill_value: Decimal,
}

impl LegRec {
    pub fn remaining(&self) -> Decimal {
        self.quantity - self.filled
    }
}

/// One entry of an order's status history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct EventRec {
    pub name: String,
    pub at: Timestamp,
    pub status: OrderStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct OrderRec {
    pub order_id: i64,
    pub account_key: String,
    pub client_order_id: String,
    pub preview_id: i64,
    pub request: OrderRequest,
    pub legs: Vec<LegRec>,
    pub status: OrderStatus,
    pub preview_at: Timestamp,
    pub placed_at: Timestamp,
    pub executed_at: Option<Timestamp>,
    pub cancel_at: Option<Timestamp>,
    /// GOOD_FOR_DAY: the end of the order's trading day (its session's close). An on-open
    /// or on-close order: its auction, where it fills or expires.
    pub expires_at: Option<Timestamp>,
    pub stop_triggered_at: Option<Timestamp>,
    /// A trailing stop's best price since placement: the highest last trade for a sell,
    /// the lowest for a buy. Absent in books written before trailing stops existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trail_mark: Option<Decimal>,
    pub replaces: Option<i64>,
    pub replaced_by: Option<i64>,
    /// The estimate at placement: order value (≥ 0), commission, and debit or credit.
    pub est_value: Decimal,
    pub est_commission: Decimal,
    pub debit: bool,
    pub commission_paid: Decimal,
    pub fees_paid: Decimal,
    pub events: Vec<EventRec>,
}

impl OrderRec {
    pub fn push_event(&mut self, name: &str, at: Timestamp) {
        self.events.push(EventRec {
            name: name.to_string(),
            at,
            status: self.status,
        });
    }

    /// The price at which a trailing stop triggers now: its mark moved by the trail.
    pub fn trail_trigger(&self) -> Option<Decimal> {
        let trail = self.request.price_type.trail()?;
        let buy = self.legs.first()?.action.is_buy();
        trail.trigger(self.trail_mark?, self.request.stop_price?, buy)
    }

    /// Fraction of the order still to fill (by the first leg).
    pub fn remaining_fraction(&self) -> Decimal {
        match self.legs.first() {
            Some(l) if !l.quantity.is_zero() => l.remaining() / l.quantity,
            _ => Decimal::ZERO,
        }
    }

    /// Buying power held for this order while it works: the unfilled part of a debit.
    pub fn reserve(&self) -> Decimal {
        if !self.status.is_open() || !self.debit {
            return Decimal::ZERO;
        }
        let commission = (self.est_commission - self.commission_paid).max(Decimal::ZERO);
        self.est_value * self.remaining_fraction() + commission
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LotRec {
    pub lot_id: i64,
    pub order_id: i64,
    pub leg_no: u32,
    pub acquired_at: Timestamp,
    /// Signed: negative for a short lot.
    pub original_qty: Decimal,
    pub remaining_qty: Decimal,
    pub price: Decimal,
    /// Signed cost basis of the remaining quantity, commission and fees included (a short
    /// lot's is minus its net proceeds).
    pub cost: Decimal,
    /// Commission and fees of the remaining quantity.
    pub commission: Decimal,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PositionRec {
    pub position_id: i64,
    pub account_key: String,
    pub instrument: Instrument,
    pub lots: Vec<LotRec>,
}

impl PositionRec {
    pub fn quantity(&self) -> Decimal {
        self.lots.iter().map(|l| l.remaining_qty).sum()
    }

    pub fn cost(&self) -> Decimal {
        self.lots.iter().map(|l| l.cost).sum()
    }

    pub fn commissions(&self) -> Decimal {
        self.lots.iter().map(|l| l.commission).sum()
    }

    pub fn acquired_at(&self) -> Option<Timestamp> {
        self.lots.iter().map(|l| l.acquired_at).min()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum TxKind {
    Deposit,
    Bought,
    Sold,
}

impl TxKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TxKind::Deposit => "Deposit",
            TxKind::Bought => "Bought",
            TxKind::Sold => "Sold",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TransactionRec {
    pub transaction_id: i64,
    pub account_key: String,
    pub at: Timestamp,
    /// Signed net cash movement (negative = cash out).
    pub amount: Decimal,
    pub kind: TxKind,
    pub description: String,
    pub instrument: Option<Instrument>,
    /// Signed (negative for a sale).
    pub quantity: Decimal,
    pub price: Decimal,
    /// Commission plus fees.
    pub fee: Decimal,
    pub order_id: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum LedgerKind {
    Deposit,
    Principal,
    Commission,
    Fee,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LedgerRec {
    pub entry_id: u64,
    pub account_key: String,
    pub at: Timestamp,
    pub amount: Decimal,
    pub kind: LedgerKind,
    pub transaction_id: Option<i64>,
    pub order_id: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PreviewRec {
    pub preview_id: i64,
    pub account_key: String,
    pub request: OrderRequest,
    pub created_at: Timestamp,
    pub used: bool,
    pub change_of: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Meta {
    /// Simulated time = real time + this offset.
    pub offset_seconds: i64,
    pub offset_nanos: i32,
    /// Resting orders have been evaluated up to here.
    pub last_eval: Option<Timestamp>,
    pub next_order_id: i64,
    pub next_preview_id: i64,
    pub next_position_id: i64,
    pub next_transaction_id: i64,
    pub next_ledger_id: u64,
    pub next_lot_id: i64,
    /// Bumped by every commit, so a process that had the file closed can tell whether the
    /// book it keeps in memory is still what the file holds. Books written before it count
    /// from 0.
    #[serde(default)]
    pub generation: u64,
}

impl Default for Meta {
    fn default() -> Self {
        Meta {
            generation: 0,
            offset_seconds: 0,
            offset_nanos: 0,
            last_eval: None,
            next_order_id: FIRST_ORDER_ID,
            next_preview_id: FIRST_PREVIEW_ID,
            next_position_id: FIRST_POSITION_ID,
            next_transaction_id: FIRST_TRANSACTION_ID,
            next_ledger_id: 1,
            next_lot_id: 1,
        }
    }
}

impl Meta {
    pub fn offset(&self) -> jiff::SignedDuration {
        jiff::SignedDuration::new(self.offset_seconds, self.offset_nanos)
    }
}

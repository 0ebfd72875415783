//! The book's records (accounts, cash ledger, positions with lots, orders with their status
//! history, transactions, previews) and their redb tables. Records are JSON (decimals as
//! exact strings); the whole book is loaded at open and kept in memory, and every state
//! change writes the records it touched in one write transaction.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Display;

use jiff::Timestamp;
use jiff::civil::Date;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};
use rust_decimal::Decimal;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::PaperError;
use super::request::OrderRequest;
use crate::paper::touch::{CallPut, OptionContract};

const META: TableDefinition<&str, &str> = TableDefinition::new("paper_meta");
const ACCOUNTS: TableDefinition<&str, &str> = TableDefinition::new("paper_accounts");
const ORDERS: TableDefinition<i64, &str> = TableDefinition::new("paper_orders");
const PREVIEWS: TableDefinition<i64, &str> = TableDefinition::new("paper_previews");
const POSITIONS: TableDefinition<i64, &str> = TableDefinition::new("paper_positions");
const TRANSACTIONS: TableDefinition<i64, &str> = TableDefinition::new("paper_transactions");
const LEDGER: TableDefinition<u64, &str> = TableDefinition::new("paper_ledger");

const META_KEY: &str = "book";

pub(crate) const FIRST_ORDER_ID: i64 = 1_001;
pub(crate) const FIRST_PREVIEW_ID: i64 = 310_000_000_001;
pub(crate) const FIRST_POSITION_ID: i64 = 20_000_000_001;
pub(crate) const FIRST_TRANSACTION_ID: i64 = 26_000_000_000_001;

/// A call or a put (the stored form of [`CallPut`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub(crate) enum Right {
    Call,
    Put,
}

impl Right {
    pub fn as_str(self) -> &'static str {
        self.to_call_put().as_str()
    }

    pub fn to_call_put(self) -> CallPut {
        match self {
            Right::Call => CallPut::Call,
            Right::Put => CallPut::Put,
        }
    }
}

/// What a leg or a position trades.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Instrument {
    Equity {
        symbol: String,
    },
    Option {
        underlying: String,
        expiry: Date,
        right: Right,
        strike: Decimal,
    },
}

impl Instrument {
    /// The symbol (the underlier's for an option).
    pub fn symbol(&self) -> &str {
        match self {
            Instrument::Equity { symbol } => symbol,
            Instrument::Option { underlying, .. } => underlying,
        }
    }

    pub fn is_option(&self) -> bool {
        matches!(self, Instrument::Option { .. })
    }

    pub fn security_type(&self) -> &'static str {
        if self.is_option() { "OPTN" } else { "EQ" }
    }

    /// Shares per unit: 100 for an option contract.
    pub fn multiplier(&self) -> Decimal {
        if self.is_option() {
            Decimal::ONE_HUNDRED
        } else {
            Decimal::ONE
        }
    }

    pub fn contract(&self) -> Option<OptionContract> {
        match self {
            Instrument::Equity { .. } => None,
            Instrument::Option {
                underlying,
                expiry,
                right,
                strike,
            } => Some(OptionContract {
                underlying: underlying.clone(),
                expiration: *expiry,
                call_put: right.to_call_put(),
                strike: *strike,
            }),
        }
    }

    /// The OSI key of an option (`AAPL--250620C00150000`), None for an equity.
    pub fn osi_key(&self) -> Option<String> {
        let Instrument::Option {
            underlying,
            expiry,
            right,
            strike,
        } = self
        else {
            return None;
        };
        let thousandths = (strike * Decimal::ONE_THOUSAND).trunc();
        Some(format!(
            "{underlying:-<6}{:02}{:02}{:02}{}{:0>8}",
            expiry.year() % 100,
            expiry.month(),
            expiry.day(),
            if *right == Right::Put { 'P' } else { 'C' },
            thousandths
        ))
    }

    /// How E*TRADE displays the security (`AAPL Jun 20 '25 $150 Call`).
    pub fn display(&self) -> String {
        match self {
            Instrument::Equity { symbol } => symbol.clone(),
            Instrument::Option {
                underlying,
                expiry,
                right,
                strike,
            } => format!(
                "{underlying} {} '{:02} ${} {}",
                expiry.strftime("%b %d"),
                expiry.year() % 100,
                strike.normalize(),
                if *right == Right::Put { "Put" } else { "Call" }
            ),
        }
    }
}

/// E*TRADE's order actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(crate) enum Action {
    Buy,
    Sell,
    BuyToCover,
    SellShort,
    BuyOpen,
    BuyClose,
    SellOpen,
    SellClose,
}

impl Action {
    pub fn parse(s: &str) -> Option<Action> {
        Some(match s {
            "BUY" => Action::Buy,
            "SELL" => Action::Sell,
            "BUY_TO_COVER" => Action::BuyToCover,
            "SELL_SHORT" => Action::SellShort,
            "BUY_OPEN" => Action::BuyOpen,
            "BUY_CLOSE" => Action::BuyClose,
            "SELL_OPEN" => Action::SellOpen,
            "SELL_CLOSE" => Action::SellClose,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Action::Buy => "BUY",
            Action::Sell => "SELL",
            Action::BuyToCover => "BUY_TO_COVER",
            Action::SellShort => "SELL_SHORT",
            Action::BuyOpen => "BUY_OPEN",
            Action::BuyClose => "BUY_CLOSE",
            Action::SellOpen => "SELL_OPEN",
            Action::SellClose => "SELL_CLOSE",
        }
    }

    pub fn is_buy(self) -> bool {
        matches!(
            self,
            Action::Buy | Action::BuyToCover | Action::BuyOpen | Action::BuyClose
        )
    }

    /// +1 for a buy, −1 for a sell.
    pub fn sign(self) -> Decimal {
        if self.is_buy() {
            Decimal::ONE
        } else {
            Decimal::NEGATIVE_ONE
        }
    }

    pub fn for_option(self) -> bool {
        matches!(
            self,
            Action::BuyOpen | Action::BuyClose | Action::SellOpen | Action::SellClose
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(crate) enum Status {
    Open,
    IndividualFills,
    Executed,
    Cancelled,
    Expired,
    Rejected,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "OPEN",
            Status::IndividualFills => "INDIVIDUAL_FILLS",
            Status::Executed => "EXECUTED",
            Status::Cancelled => "CANCELLED",
            Status::Expired => "EXPIRED",
            Status::Rejected => "REJECTED",
        }
    }

    /// Still working (can fill, be cancelled or expire).
    pub fn is_open(self) -> bool {
        matches!(self, Status::Open | Status::IndividualFills)
    }
}

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
    pub action: Action,
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
    pub status: Status,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct OrderRec {
    pub order_id: i64,
    pub account_key: String,
    pub client_order_id: String,
    pub preview_id: i64,
    pub request: OrderRequest,
    pub legs: Vec<LegRec>,
    pub status: Status,
    pub preview_at: Timestamp,
    pub placed_at: Timestamp,
    pub executed_at: Option<Timestamp>,
    pub cancel_at: Option<Timestamp>,
    /// GOOD_FOR_DAY: the end of the order's trading day (its session's close).
    pub expires_at: Option<Timestamp>,
    pub stop_triggered_at: Option<Timestamp>,
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
}

impl Default for Meta {
    fn default() -> Self {
        Meta {
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

/// Keys written since the last commit.
#[derive(Debug, Clone, Default)]
pub(crate) struct Dirty {
    meta: bool,
    accounts: BTreeSet<String>,
    orders: BTreeSet<i64>,
    previews: BTreeSet<i64>,
    positions: BTreeSet<i64>,
    transactions: BTreeSet<i64>,
    ledger: BTreeSet<u64>,
}

impl Dirty {
    pub fn is_empty(&self) -> bool {
        !self.meta
            && self.accounts.is_empty()
            && self.orders.is_empty()
            && self.previews.is_empty()
            && self.positions.is_empty()
            && self.transactions.is_empty()
            && self.ledger.is_empty()
    }
}

/// The whole book in memory.
#[derive(Debug, Clone, Default)]
pub(crate) struct State {
    pub meta: Meta,
    pub accounts: BTreeMap<String, AccountRec>,
    pub orders: BTreeMap<i64, OrderRec>,
    pub previews: BTreeMap<i64, PreviewRec>,
    pub positions: BTreeMap<i64, PositionRec>,
    pub transactions: BTreeMap<i64, TransactionRec>,
    pub ledger: BTreeMap<u64, LedgerRec>,
    pub dirty: Dirty,
    /// Previous values of the records written since the last commit, so a failed change
    /// is undone in O(records changed) instead of copying the whole book per change.
    pub(super) undo: Vec<Undo>,
}

#[derive(Debug, Clone)]
pub(super) enum Undo {
    Account(String, Option<AccountRec>),
    Order(i64, Option<Box<OrderRec>>),
    Preview(i64, Option<PreviewRec>),
    Position(i64, Option<PositionRec>),
    Transaction(i64, Option<TransactionRec>),
    Ledger(u64, Option<LedgerRec>),
}

fn restore<K: Ord, V>(map: &mut BTreeMap<K, V>, key: K, old: Option<V>) {
    match old {
        Some(v) => {
            map.insert(key, v);
        }
        None => {
            map.remove(&key);
        }
    }
}

fn next<T: Copy + std::ops::Add<Output = T> + From<u8>>(counter: &mut T) -> T {
    let id = *counter;
    *counter = id + T::from(1u8);
    id
}

impl State {
    pub fn touch_meta(&mut self) {
        self.dirty.meta = true;
    }

    /// Starts a change: nothing to undo yet.
    pub fn begin(&mut self) {
        self.undo.clear();
    }

    /// Forgets the undo log once the change is committed.
    pub fn committed(&mut self) {
        self.undo.clear();
        self.dirty = Dirty::default();
    }

    /// Puts back every record written since `begin` (and `meta`), newest first.
    pub fn roll_back(&mut self, meta: Meta) {
        while let Some(u) = self.undo.pop() {
            match u {
                Undo::Account(k, v) => restore(&mut self.accounts, k, v),
                Undo::Order(k, v) => restore(&mut self.orders, k, v.map(|b| *b)),
                Undo::Preview(k, v) => restore(&mut self.previews, k, v),
                Undo::Position(k, v) => restore(&mut self.positions, k, v),
                Undo::Transaction(k, v) => restore(&mut self.transactions, k, v),
                Undo::Ledger(k, v) => restore(&mut self.ledger, k, v),
            }
        }
        self.meta = meta;
        self.dirty = Dirty::default();
    }

    pub fn put_account(&mut self, a: AccountRec) {
        if self.dirty.accounts.insert(a.key.clone()) {
            let old = self.accounts.get(&a.key).cloned();
            self.undo.push(Undo::Account(a.key.clone(), old));
        }
        self.accounts.insert(a.key.clone(), a);
    }

    pub fn put_order(&mut self, o: OrderRec) {
        if self.dirty.orders.insert(o.order_id) {
            let old = self.orders.get(&o.order_id).cloned().map(Box::new);
            self.undo.push(Undo::Order(o.order_id, old));
        }
        self.orders.insert(o.order_id, o);
    }

    pub fn put_preview(&mut self, p: PreviewRec) {
        if self.dirty.previews.insert(p.preview_id) {
            let old = self.previews.get(&p.preview_id).cloned();
            self.undo.push(Undo::Preview(p.preview_id, old));
        }
        self.previews.insert(p.preview_id, p);
    }

    pub fn remove_preview(&mut self, id: i64) {
        if self.dirty.previews.insert(id) {
            let old = self.previews.get(&id).cloned();
            self.undo.push(Undo::Preview(id, old));
        }
        self.previews.remove(&id);
    }

    /// Stores the position, or removes it when it has no lots left.
    pub fn put_position(&mut self, p: PositionRec) {
        if self.dirty.positions.insert(p.position_id) {
            let old = self.positions.get(&p.position_id).cloned();
            self.undo.push(Undo::Position(p.position_id, old));
        }
        if p.lots.is_empty() {
            self.positions.remove(&p.position_id);
        } else {
            self.positions.insert(p.position_id, p);
        }
    }

    pub fn put_transaction(&mut self, t: TransactionRec) {
        if self.dirty.transactions.insert(t.transaction_id) {
            let old = self.transactions.get(&t.transaction_id).cloned();
            self.undo.push(Undo::Transaction(t.transaction_id, old));
        }
        self.transactions.insert(t.transaction_id, t);
    }

    pub fn put_ledger(&mut self, e: LedgerRec) {
        if self.dirty.ledger.insert(e.entry_id) {
            let old = self.ledger.get(&e.entry_id).cloned();
            self.undo.push(Undo::Ledger(e.entry_id, old));
        }
        self.ledger.insert(e.entry_id, e);
    }

    pub fn new_order_id(&mut self) -> i64 {
        self.dirty.meta = true;
        next(&mut self.meta.next_order_id)
    }

    pub fn new_preview_id(&mut self) -> i64 {
        self.dirty.meta = true;
        next(&mut self.meta.next_preview_id)
    }

    pub fn new_position_id(&mut self) -> i64 {
        self.dirty.meta = true;
        next(&mut self.meta.next_position_id)
    }

    pub fn new_transaction_id(&mut self) -> i64 {
        self.dirty.meta = true;
        next(&mut self.meta.next_transaction_id)
    }

    pub fn new_ledger_id(&mut self) -> u64 {
        self.dirty.meta = true;
        next(&mut self.meta.next_ledger_id)
    }

    pub fn new_lot_id(&mut self) -> i64 {
        self.dirty.meta = true;
        next(&mut self.meta.next_lot_id)
    }

    pub fn position_of(&self, account_key: &str, instrument: &Instrument) -> Option<&PositionRec> {
        self.positions
            .values()
            .find(|p| p.account_key == account_key && &p.instrument == instrument)
    }

    pub fn open_orders(&self) -> impl Iterator<Item = &OrderRec> {
        self.orders.values().filter(|o| o.status.is_open())
    }

    /// Marks every record dirty (a reset or the first open writes everything).
    pub fn mark_all(&mut self) {
        self.dirty.meta = true;
        self.dirty.accounts = self.accounts.keys().cloned().collect();
        self.dirty.orders = self.orders.keys().copied().collect();
        self.dirty.previews = self.previews.keys().copied().collect();
        self.dirty.positions = self.positions.keys().copied().collect();
        self.dirty.transactions = self.transactions.keys().copied().collect();
        self.dirty.ledger = self.ledger.keys().copied().collect();
    }
}

pub(crate) fn store_err(e: impl Display) -> PaperError {
    PaperError::Store(e.to_string())
}

fn encode<T: Serialize>(v: &T) -> Result<String, PaperError> {
    serde_json::to_string(v).map_err(store_err)
}

fn decode<T: DeserializeOwned>(table: &str, json: &str) -> Result<T, PaperError> {
    serde_json::from_str(json)
        .map_err(|e| PaperError::Store(format!("a record of {table} could not be read: {e}")))
}

/// Creates the tables if needed.
pub(crate) fn create_tables(db: &Database) -> Result<(), PaperError> {
    let txn = db.begin_write().map_err(store_err)?;
    open_all(&txn)?;
    txn.commit().map_err(store_err)
}

fn open_all(txn: &WriteTransaction) -> Result<(), PaperError> {
    txn.open_table(META).map_err(store_err)?;
    txn.open_table(ACCOUNTS).map_err(store_err)?;
    txn.open_table(ORDERS).map_err(store_err)?;
    txn.open_table(PREVIEWS).map_err(store_err)?;
    txn.open_table(POSITIONS).map_err(store_err)?;
    txn.open_table(TRANSACTIONS).map_err(store_err)?;
    txn.open_table(LEDGER).map_err(store_err)?;
    Ok(())
}

/// Reads the whole book; `None` when it was never initialized.
pub(crate) fn load(db: &Database) -> Result<Option<State>, PaperError> {
    let txn = db.begin_read().map_err(store_err)?;
    let meta_table = txn.open_table(META).map_err(store_err)?;
    let Some(meta_json) = meta_table.get(META_KEY).map_err(store_err)? else {
        return Ok(None);
    };
    let mut state = State {
        meta: decode("meta", meta_json.value())?,
        ..State::default()
    };
    for row in txn
        .open_table(ACCOUNTS)
        .map_err(store_err)?
        .iter()
        .map_err(store_err)?
    {
        let (_, v) = row.map_err(store_err)?;
        let a: AccountRec = decode("accounts", v.value())?;
        state.accounts.insert(a.key.clone(), a);
    }
    for row in txn
        .open_table(ORDERS)
        .map_err(store_err)?
        .iter()
        .map_err(store_err)?
    {
        let (_, v) = row.map_err(store_err)?;
        let o: OrderRec = decode("orders", v.value())?;
        state.orders.insert(o.order_id, o);
    }
    for row in txn
        .open_table(PREVIEWS)
        .map_err(store_err)?
        .iter()
        .map_err(store_err)?
    {
        let (_, v) = row.map_err(store_err)?;
        let p: PreviewRec = decode("previews", v.value())?;
        state.previews.insert(p.preview_id, p);
    }
    for row in txn
        .open_table(POSITIONS)
        .map_err(store_err)?
        .iter()
        .map_err(store_err)?
    {
        let (_, v) = row.map_err(store_err)?;
        let p: PositionRec = decode("positions", v.value())?;
        state.positions.insert(p.position_id, p);
    }
    for row in txn
        .open_table(TRANSACTIONS)
        .map_err(store_err)?
        .iter()
        .map_err(store_err)?
    {
        let (_, v) = row.map_err(store_err)?;
        let t: TransactionRec = decode("transactions", v.value())?;
        state.transactions.insert(t.transaction_id, t);
    }
    for row in txn
        .open_table(LEDGER)
        .map_err(store_err)?
        .iter()
        .map_err(store_err)?
    {
        let (_, v) = row.map_err(store_err)?;
        let e: LedgerRec = decode("ledger", v.value())?;
        state.ledger.insert(e.entry_id, e);
    }
    Ok(Some(state))
}

/// Writes the dirty records of `state` in one write transaction; with `wipe`, every table
/// is emptied first (reset). Nothing is written when the commit fails.
pub(crate) fn save(db: &Database, state: &State, wipe: bool) -> Result<(), PaperError> {
    let d = &state.dirty;
    if d.is_empty() && !wipe {
        return Ok(());
    }
    let txn = db.begin_write().map_err(store_err)?;
    if wipe {
        txn.delete_table(META).map_err(store_err)?;
        txn.delete_table(ACCOUNTS).map_err(store_err)?;
        txn.delete_table(ORDERS).map_err(store_err)?;
        txn.delete_table(PREVIEWS).map_err(store_err)?;
        txn.delete_table(POSITIONS).map_err(store_err)?;
        txn.delete_table(TRANSACTIONS).map_err(store_err)?;
        txn.delete_table(LEDGER).map_err(store_err)?;
        open_all(&txn)?;
    }
    {
        let mut t = txn.open_table(META).map_err(store_err)?;
        if d.meta || wipe {
            t.insert(META_KEY, encode(&state.meta)?.as_str())
                .map_err(store_err)?;
        }
    }
    {
        let mut t = txn.open_table(ACCOUNTS).map_err(store_err)?;
        for k in &d.accounts {
            match state.accounts.get(k) {
                Some(v) => t.insert(k.as_str(), encode(v)?.as_str()).map(drop),
                None => t.remove(k.as_str()).map(drop),
            }
            .map_err(store_err)?;
        }
    }
    write_i64(&txn, ORDERS, &d.orders, &state.orders)?;
    write_i64(&txn, PREVIEWS, &d.previews, &state.previews)?;
    write_i64(&txn, POSITIONS, &d.positions, &state.positions)?;
    write_i64(&txn, TRANSACTIONS, &d.transactions, &state.transactions)?;
    {
        let mut t = txn.open_table(LEDGER).map_err(store_err)?;
        for k in &d.ledger {
            match state.ledger.get(k) {
                Some(v) => t.insert(*k, encode(v)?.as_str()).map(drop),
                None => t.remove(*k).map(drop),
            }
            .map_err(store_err)?;
        }
    }
    txn.commit().map_err(store_err)
}

fn write_i64<T: Serialize>(
    txn: &WriteTransaction,
    def: TableDefinition<i64, &str>,
    keys: &BTreeSet<i64>,
    records: &BTreeMap<i64, T>,
) -> Result<(), PaperError> {
    let mut t = txn.open_table(def).map_err(store_err)?;
    for k in keys {
        match records.get(k) {
            Some(v) => t.insert(*k, encode(v)?.as_str()).map(drop),
            None => t.remove(*k).map(drop),
        }
        .map_err(store_err)?;
    }
    Ok(())
}

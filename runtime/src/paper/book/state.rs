//! The whole book in memory, and the change in progress: which records it wrote (written
//! at commit) and their previous values (put back when it fails). The whole book is loaded
//! at open (and again when another process changed it) and kept in memory, and every state
//! change appends the records it touched to the file's log in one write transaction. The
//! records are in `records`, the file in `store`, the first format (migrated) in `v1`.

mod records;
mod store;
mod v1;

use std::collections::{BTreeMap, BTreeSet};

use crate::emulation::Instrument;

pub(crate) use self::records::{
    AccountRec, LedgerKind, LedgerRec, LegRec, LotRec, Meta, OrderRec, PositionRec, PreviewRec,
    TransactionRec, TxKind,
};
pub(crate) use self::store::{load, prepare, save, store_err, stored_generation};

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

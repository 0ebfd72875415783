//! The whole book in memory, and the change in progress: which records it wrote (written
//! at commit) and their previous values (put back when it fails). The whole book is loaded
//! at open (and again when another process changed it) and kept in memory, and every state
//! change writes the records it touched to the file in one write transaction. The records
//! are in `records`, the file in `store`, the first format (migrated) in `v1`.

mod records;
mod store;
mod v1;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use jiff::Timestamp;

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
    /// How many records (the meta record aside).
    pub fn records(&self) -> usize {
        self.accounts.len()
            + self.orders.len()
            + self.previews.len()
            + self.positions.len()
            + self.transactions.len()
            + self.ledger.len()
    }

    /// Adds `other`'s keys to these.
    pub fn absorb(&mut self, other: &Dirty) {
        self.meta |= other.meta;
        self.accounts.extend(other.accounts.iter().cloned());
        self.orders.extend(&other.orders);
        self.previews.extend(&other.previews);
        self.positions.extend(&other.positions);
        self.transactions.extend(&other.transactions);
        self.ledger.extend(&other.ledger);
    }

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
    /// The records the file's log holds (written since its last fold), which the next fold
    /// writes to the book's table: kept by `store::save` and `store::load`.
    pub(crate) unfolded: Dirty,
    /// What order entry looks up in `orders` and `previews` on every preview and placement,
    /// kept beside them so that a long history is not walked each time.
    index: BookIndex,
    /// Previous values of the records written since the last commit, so a failed change
    /// is undone in O(records changed) instead of copying the whole book per change.
    pub(super) undo: Vec<Undo>,
}

/// The open orders, each account's client order ids and the previews by age, derived from
/// `orders` and `previews`: changed with every order or preview written or put back, and
/// built anew when the book is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct BookIndex {
    open: BTreeSet<i64>,
    /// account key → client order id → the orders that carry it.
    client_ids: HashMap<String, HashMap<String, BTreeSet<i64>>>,
    /// (created at, preview id) of every preview, oldest first.
    preview_ages: BTreeSet<(Timestamp, i64)>,
}

impl BookIndex {
    fn of(orders: &BTreeMap<i64, OrderRec>, previews: &BTreeMap<i64, PreviewRec>) -> BookIndex {
        let mut index = BookIndex::default();
        for o in orders.values() {
            index.add_order(o);
        }
        for p in previews.values() {
            index.replace_preview(None, Some(p));
        }
        index
    }

    /// Moves the preview index from `old` (the record replaced, if any) to `new` (the one
    /// written, if any).
    fn replace_preview(&mut self, old: Option<&PreviewRec>, new: Option<&PreviewRec>) {
        if let Some(p) = old {
            self.preview_ages.remove(&(p.created_at, p.preview_id));
        }
        if let Some(p) = new {
            self.preview_ages.insert((p.created_at, p.preview_id));
        }
    }

    fn add_order(&mut self, o: &OrderRec) {
        if o.status.is_open() {
            self.open.insert(o.order_id);
        }
        self.client_ids
            .entry(o.account_key.clone())
            .or_default()
            .entry(o.client_order_id.clone())
            .or_default()
            .insert(o.order_id);
    }

    fn remove_order(&mut self, o: &OrderRec) {
        self.open.remove(&o.order_id);
        let Some(of_account) = self.client_ids.get_mut(&o.account_key) else {
            return;
        };
        if let Some(ids) = of_account.get_mut(&o.client_order_id) {
            ids.remove(&o.order_id);
            if ids.is_empty() {
                of_account.remove(&o.client_order_id);
            }
        }
        if of_account.is_empty() {
            self.client_ids.remove(&o.account_key);
        }
    }
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
    /// An empty book with these counters and clock.
    pub fn with_meta(meta: Meta) -> State {
        State {
            meta,
            ..State::default()
        }
    }

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
        // Every test that changes the book checks that no path wrote `orders` or `previews`
        // around the index.
        debug_assert_eq!(self.index, BookIndex::of(&self.orders, &self.previews));
    }

    /// Builds the index anew from `orders` and `previews` (after the book was read from the
    /// file).
    pub fn index_book(&mut self) {
        self.index = BookIndex::of(&self.orders, &self.previews);
    }

    /// Puts back every record written since `begin` (and `meta`), newest first.
    pub fn roll_back(&mut self, meta: Meta) {
        while let Some(u) = self.undo.pop() {
            match u {
                Undo::Account(k, v) => restore(&mut self.accounts, k, v),
                Undo::Order(k, v) => {
                    if let Some(now) = self.orders.get(&k) {
                        self.index.remove_order(now);
                    }
                    if let Some(old) = &v {
                        self.index.add_order(old);
                    }
                    restore(&mut self.orders, k, v.map(|b| *b));
                }
                Undo::Preview(k, v) => {
                    self.index
                        .replace_preview(self.previews.get(&k), v.as_ref());
                    restore(&mut self.previews, k, v);
                }
                Undo::Position(k, v) => restore(&mut self.positions, k, v),
                Undo::Transaction(k, v) => restore(&mut self.transactions, k, v),
                Undo::Ledger(k, v) => restore(&mut self.ledger, k, v),
            }
        }
        self.meta = meta;
        self.dirty = Dirty::default();
        debug_assert_eq!(self.index, BookIndex::of(&self.orders, &self.previews));
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
        if let Some(old) = self.orders.get(&o.order_id) {
            self.index.remove_order(old);
        }
        self.index.add_order(&o);
        self.orders.insert(o.order_id, o);
    }

    pub fn put_preview(&mut self, p: PreviewRec) {
        if self.dirty.previews.insert(p.preview_id) {
            let old = self.previews.get(&p.preview_id).cloned();
            self.undo.push(Undo::Preview(p.preview_id, old));
        }
        self.index
            .replace_preview(self.previews.get(&p.preview_id), Some(&p));
        self.previews.insert(p.preview_id, p);
    }

    pub fn remove_preview(&mut self, id: i64) {
        if self.dirty.previews.insert(id) {
            let old = self.previews.get(&id).cloned();
            self.undo.push(Undo::Preview(id, old));
        }
        self.index.replace_preview(self.previews.get(&id), None);
        self.previews.remove(&id);
    }

    /// The previews created before `cutoff`, oldest first.
    pub fn previews_created_before(&self, cutoff: Timestamp) -> Vec<i64> {
        self.index
            .preview_ages
            .range(..(cutoff, i64::MIN))
            .map(|&(_, id)| id)
            .collect()
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

    /// The working orders, by order id.
    pub fn open_orders(&self) -> impl Iterator<Item = &OrderRec> {
        self.index.open.iter().filter_map(|id| self.orders.get(id))
    }

    /// The orders of `account_key` that carry `client_order_id`.
    pub fn orders_with_client_id<'a>(
        &'a self,
        account_key: &str,
        client_order_id: &str,
    ) -> impl Iterator<Item = i64> + 'a {
        self.index
            .client_ids
            .get(account_key)
            .and_then(|of_account| of_account.get(client_order_id))
            .into_iter()
            .flatten()
            .copied()
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

//! The book's redb tables: creating them, loading the whole book, and writing the records
//! a change touched in one write transaction.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Display;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{AccountRec, LedgerRec, OrderRec, PositionRec, PreviewRec, State, TransactionRec};
use crate::paper::book::PaperError;

const META: TableDefinition<&str, &str> = TableDefinition::new("paper_meta");
const ACCOUNTS: TableDefinition<&str, &str> = TableDefinition::new("paper_accounts");
const ORDERS: TableDefinition<i64, &str> = TableDefinition::new("paper_orders");
const PREVIEWS: TableDefinition<i64, &str> = TableDefinition::new("paper_previews");
const POSITIONS: TableDefinition<i64, &str> = TableDefinition::new("paper_positions");
const TRANSACTIONS: TableDefinition<i64, &str> = TableDefinition::new("paper_transactions");
const LEDGER: TableDefinition<u64, &str> = TableDefinition::new("paper_ledger");

const META_KEY: &str = "book";

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

/// The generation of the stored book (see [`super::Meta::generation`]); `None` when it was
/// never initialized. One small record, so checking costs far less than [`load`].
pub(crate) fn stored_generation(db: &Database) -> Result<Option<u64>, PaperError> {
    let txn = db.begin_read().map_err(store_err)?;
    let table = txn.open_table(META).map_err(store_err)?;
    let Some(json) = table.get(META_KEY).map_err(store_err)? else {
        return Ok(None);
    };
    let meta: super::Meta = decode("meta", json.value())?;
    Ok(Some(meta.generation))
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

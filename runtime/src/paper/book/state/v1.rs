//! The book's first format, a table per kind of record, read once to migrate it.

use redb::{ReadableTable, TableDefinition, WriteTransaction};
use serde::de::DeserializeOwned;

use super::{State, store_err};
use crate::paper::book::PaperError;

pub(super) const META_NAME: &str = "paper_meta";

const META: TableDefinition<&str, &str> = TableDefinition::new(META_NAME);
const ACCOUNTS: TableDefinition<&str, &str> = TableDefinition::new("paper_accounts");
const ORDERS: TableDefinition<i64, &str> = TableDefinition::new("paper_orders");
const PREVIEWS: TableDefinition<i64, &str> = TableDefinition::new("paper_previews");
const POSITIONS: TableDefinition<i64, &str> = TableDefinition::new("paper_positions");
const TRANSACTIONS: TableDefinition<i64, &str> = TableDefinition::new("paper_transactions");
const LEDGER: TableDefinition<u64, &str> = TableDefinition::new("paper_ledger");

const META_KEY: &str = "book";

fn decode<T: DeserializeOwned>(table: &str, json: &str) -> Result<T, PaperError> {
    // serde's text is left out: it can quote the record.
    serde_json::from_str(json)
        .map_err(|_| PaperError::Store(format!("a record of {table} could not be read")))
}

/// Reads the book from the first format's tables and deletes them, within `txn`; `None`
/// when the file held no book.
pub(super) fn take(txn: &WriteTransaction) -> Result<Option<State>, PaperError> {
    let book = read(txn)?;
    txn.delete_table(META).map_err(store_err)?;
    txn.delete_table(ACCOUNTS).map_err(store_err)?;
    txn.delete_table(ORDERS).map_err(store_err)?;
    txn.delete_table(PREVIEWS).map_err(store_err)?;
    txn.delete_table(POSITIONS).map_err(store_err)?;
    txn.delete_table(TRANSACTIONS).map_err(store_err)?;
    txn.delete_table(LEDGER).map_err(store_err)?;
    Ok(book)
}

fn read(txn: &WriteTransaction) -> Result<Option<State>, PaperError> {
    let meta = {
        let table = txn.open_table(META).map_err(store_err)?;
        let Some(json) = table.get(META_KEY).map_err(store_err)? else {
            return Ok(None);
        };
        decode("meta", json.value())?
    };
    let mut state = State::with_meta(meta);
    for row in txn
        .open_table(ACCOUNTS)
        .map_err(store_err)?
        .iter()
        .map_err(store_err)?
    {
        let (_, v) = row.map_err(store_err)?;
        let a: super::AccountRec = decode("accounts", v.value())?;
        state.accounts.insert(a.key.clone(), a);
    }
    read_i64(txn, ORDERS, "orders", |o: super::OrderRec| {
        state.orders.insert(o.order_id, o);
    })?;
    read_i64(txn, PREVIEWS, "previews", |p: super::PreviewRec| {
        state.previews.insert(p.preview_id, p);
    })?;
    read_i64(txn, POSITIONS, "positions", |p: super::PositionRec| {
        state.positions.insert(p.position_id, p);
    })?;
    read_i64(
        txn,
        TRANSACTIONS,
        "transactions",
        |t: super::TransactionRec| {
            state.transactions.insert(t.transaction_id, t);
        },
    )?;
    for row in txn
        .open_table(LEDGER)
        .map_err(store_err)?
        .iter()
        .map_err(store_err)?
    {
        let (_, v) = row.map_err(store_err)?;
        let e: super::LedgerRec = decode("ledger", v.value())?;
        state.ledger.insert(e.entry_id, e);
    }
    state.index_book();
    Ok(Some(state))
}

fn read_i64<T: DeserializeOwned>(
    txn: &WriteTransaction,
    def: TableDefinition<i64, &str>,
    name: &str,
    mut put: impl FnMut(T),
) -> Result<(), PaperError> {
    for row in txn
        .open_table(def)
        .map_err(store_err)?
        .iter()
        .map_err(store_err)?
    {
        let (_, v) = row.map_err(store_err)?;
        put(decode(name, v.value())?);
    }
    Ok(())
}

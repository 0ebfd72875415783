//! The book's redb file: one log of records, making the file current (a new file's tables,
//! the migration of the first format), loading the whole book, and appending the records a
//! change touched in one write transaction.
//!
//! Every commit appends the records it wrote to the table `paper_log` (key: a sequence
//! number), the book's meta record last; a record's latest version wins at load, and a
//! removal is a record too. A placement's commit thus writes the tail of one B-tree (one or
//! two leaves and the branches above them) where one row per table cost a leaf in each of
//! seven. When the log holds more than twice the live records (plus some slack), the commit
//! rewrites it with the live records only, so it stays within about twice the book.
//!
//! The format version is in the table `paper_meta`, the name the first format used for its
//! meta record with another value type: an older etrade opening a migrated file fails on the
//! type instead of seeding a new book beside the log.

use std::collections::BTreeMap;
use std::fmt::Display;

use redb::{
    Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition, TableHandle,
};
use serde::{Deserialize, Serialize};

use super::{
    AccountRec, LedgerRec, Meta, OrderRec, PositionRec, PreviewRec, State, TransactionRec, v1,
};
use crate::paper::book::PaperError;

pub(super) const LOG: TableDefinition<u64, &str> = TableDefinition::new("paper_log");
const FORMAT: TableDefinition<&str, u64> = TableDefinition::new("paper_meta");
const FORMAT_KEY: &str = "format";
const VERSION: u64 = 2;

/// Rows the log may hold beyond twice the live records before a commit compacts it: a
/// small book is not rewritten every few commits.
const LOG_SLACK: u64 = 1024;

pub(crate) fn store_err(e: impl Display) -> PaperError {
    PaperError::Store(e.to_string())
}

/// One row of the log, as written.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum RowRef<'a> {
    Meta(&'a Meta),
    Account(&'a AccountRec),
    AccountGone(&'a str),
    Order(&'a OrderRec),
    OrderGone(i64),
    Preview(&'a PreviewRec),
    PreviewGone(i64),
    Position(&'a PositionRec),
    PositionGone(i64),
    Transaction(&'a TransactionRec),
    TransactionGone(i64),
    Ledger(&'a LedgerRec),
    LedgerGone(u64),
}

/// One row of the log, as read ([`RowRef`]'s twin).
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Row {
    Meta(Meta),
    Account(AccountRec),
    AccountGone(String),
    Order(Box<OrderRec>),
    OrderGone(i64),
    Preview(PreviewRec),
    PreviewGone(i64),
    Position(PositionRec),
    PositionGone(i64),
    Transaction(TransactionRec),
    TransactionGone(i64),
    Ledger(LedgerRec),
    LedgerGone(u64),
}

fn decode_row(json: &str) -> Result<Row, PaperError> {
    // serde's text is left out: it can quote the record.
    serde_json::from_str(json)
        .map_err(|_| PaperError::Store("a record of the paper book could not be read".into()))
}

/// Makes the file current, in one write transaction: a new file gets the tables, a file in
/// the first format is migrated (its book copied into the log, its tables deleted). A
/// current file is only read. Processes open the file one at a time (the lease), so the
/// first to open it migrates and the others find it done.
pub(crate) fn prepare(db: &Database) -> Result<(), PaperError> {
    {
        let txn = db.begin_read().map_err(store_err)?;
        if has_table(txn.list_tables().map_err(store_err)?, LOG.name()) {
            let format = txn.open_table(FORMAT).map_err(store_err)?;
            let version = format.get(FORMAT_KEY).map_err(store_err)?;
            return check_version(version.map(|v| v.value()));
        }
    }
    let txn = db.begin_write().map_err(store_err)?;
    if !has_table(txn.list_tables().map_err(store_err)?, LOG.name()) {
        let old = if has_table(txn.list_tables().map_err(store_err)?, v1::META_NAME) {
            v1::take(&txn)?
        } else {
            None
        };
        txn.open_table(FORMAT)
            .map_err(store_err)?
            .insert(FORMAT_KEY, VERSION)
            .map_err(store_err)?;
        let mut log = txn.open_table(LOG).map_err(store_err)?;
        if let Some(state) = old {
            write_all(&mut log, &state)?;
        }
    }
    txn.commit().map_err(store_err)
}

fn has_table(mut tables: impl Iterator<Item = redb::UntypedTableHandle>, name: &str) -> bool {
    tables.any(|t| t.name() == name)
}

fn check_version(version: Option<u64>) -> Result<(), PaperError> {
    match version {
        Some(VERSION) => Ok(()),
        Some(other) => Err(PaperError::Store(format!(
            "the paper book is in format {other}, written by a newer etrade; this one reads \
             format {VERSION}"
        ))),
        None => Err(PaperError::Store(
            "the paper book's file has no format record".into(),
        )),
    }
}

/// The generation of the stored book (see [`super::Meta::generation`]); `None` when it was
/// never initialized. Every commit ends with the meta record, so this reads the log's last
/// row, not the book.
pub(crate) fn stored_generation(db: &Database) -> Result<Option<u64>, PaperError> {
    let txn = db.begin_read().map_err(store_err)?;
    let log = txn.open_table(LOG).map_err(store_err)?;
    for row in log.iter().map_err(store_err)?.rev() {
        let (_, json) = row.map_err(store_err)?;
        if let Row::Meta(meta) = decode_row(json.value())? {
            return Ok(Some(meta.generation));
        }
    }
    Ok(None)
}

/// Reads the whole book, each record's latest version; `None` when it was never initialized.
pub(crate) fn load(db: &Database) -> Result<Option<State>, PaperError> {
    let txn = db.begin_read().map_err(store_err)?;
    let log = txn.open_table(LOG).map_err(store_err)?;
    let mut state = State::default();
    let mut meta = None;
    for row in log.iter().map_err(store_err)? {
        let (_, json) = row.map_err(store_err)?;
        match decode_row(json.value())? {
            Row::Meta(m) => meta = Some(m),
            Row::Account(a) => {
                state.accounts.insert(a.key.clone(), a);
            }
            Row::AccountGone(k) => {
                state.accounts.remove(&k);
            }
            Row::Order(o) => {
                state.orders.insert(o.order_id, *o);
            }
            Row::OrderGone(k) => {
                state.orders.remove(&k);
            }
            Row::Preview(p) => {
                state.previews.insert(p.preview_id, p);
            }
            Row::PreviewGone(k) => {
                state.previews.remove(&k);
            }
            Row::Position(p) => {
                state.positions.insert(p.position_id, p);
            }
            Row::PositionGone(k) => {
                state.positions.remove(&k);
            }
            Row::Transaction(t) => {
                state.transactions.insert(t.transaction_id, t);
            }
            Row::TransactionGone(k) => {
                state.transactions.remove(&k);
            }
            Row::Ledger(e) => {
                state.ledger.insert(e.entry_id, e);
            }
            Row::LedgerGone(k) => {
                state.ledger.remove(&k);
            }
        }
    }
    state.index_book();
    Ok(meta.map(|meta| State { meta, ..state }))
}

/// Appends the dirty records of `state` to the log in one write transaction, the meta
/// record last; with `wipe` (reset), the log is replaced by the whole book. Nothing is
/// written when the commit fails.
pub(crate) fn save(db: &Database, state: &State, wipe: bool) -> Result<(), PaperError> {
    let d = &state.dirty;
    if d.is_empty() && !wipe {
        return Ok(());
    }
    let txn = db.begin_write().map_err(store_err)?;
    {
        let mut log = txn.open_table(LOG).map_err(store_err)?;
        let live = live_records(state);
        // The rows this commit appends, at most.
        let appended = (d.accounts.len()
            + d.orders.len()
            + d.previews.len()
            + d.positions.len()
            + d.transactions.len()
            + d.ledger.len()) as u64
            + 1;
        if wipe || log.len().map_err(store_err)? + appended > live * 2 + LOG_SLACK {
            log.retain(|_, _| false).map_err(store_err)?;
            write_all(&mut log, state)?;
        } else {
            let mut next = match log.last().map_err(store_err)? {
                Some((key, _)) => key.value().saturating_add(1),
                None => 1,
            };
            let mut append = |row: RowRef<'_>| -> Result<(), PaperError> {
                let json = serde_json::to_string(&row).map_err(store_err)?;
                log.insert(next, json.as_str()).map_err(store_err)?;
                next = next.saturating_add(1);
                Ok(())
            };
            for k in &d.accounts {
                append(match state.accounts.get(k) {
                    Some(v) => RowRef::Account(v),
                    None => RowRef::AccountGone(k),
                })?;
            }
            for_dirty(
                &d.orders,
                &state.orders,
                RowRef::Order,
                RowRef::OrderGone,
                &mut append,
            )?;
            for_dirty(
                &d.previews,
                &state.previews,
                RowRef::Preview,
                RowRef::PreviewGone,
                &mut append,
            )?;
            for_dirty(
                &d.positions,
                &state.positions,
                RowRef::Position,
                RowRef::PositionGone,
                &mut append,
            )?;
            for_dirty(
                &d.transactions,
                &state.transactions,
                RowRef::Transaction,
                RowRef::TransactionGone,
                &mut append,
            )?;
            for_dirty(
                &d.ledger,
                &state.ledger,
                RowRef::Ledger,
                RowRef::LedgerGone,
                &mut append,
            )?;
            // Always, and last: `stored_generation` reads it from the log's end.
            append(RowRef::Meta(&state.meta))?;
        }
    }
    txn.commit().map_err(store_err)
}

fn for_dirty<'a, K: Ord + Copy, V>(
    keys: &std::collections::BTreeSet<K>,
    records: &'a BTreeMap<K, V>,
    put: impl Fn(&'a V) -> RowRef<'a>,
    gone: impl Fn(K) -> RowRef<'a>,
    append: &mut impl FnMut(RowRef<'a>) -> Result<(), PaperError>,
) -> Result<(), PaperError> {
    for k in keys {
        append(match records.get(k) {
            Some(v) => put(v),
            None => gone(*k),
        })?;
    }
    Ok(())
}

fn live_records(state: &State) -> u64 {
    (state.accounts.len()
        + state.orders.len()
        + state.previews.len()
        + state.positions.len()
        + state.transactions.len()
        + state.ledger.len()) as u64
        + 1
}

/// Writes every record of `state` into an empty log, the meta record last.
fn write_all(
    log: &mut redb::Table<'_, u64, &'static str>,
    state: &State,
) -> Result<(), PaperError> {
    let rows = state
        .accounts
        .values()
        .map(RowRef::Account)
        .chain(state.orders.values().map(RowRef::Order))
        .chain(state.previews.values().map(RowRef::Preview))
        .chain(state.positions.values().map(RowRef::Position))
        .chain(state.transactions.values().map(RowRef::Transaction))
        .chain(state.ledger.values().map(RowRef::Ledger))
        .chain(std::iter::once(RowRef::Meta(&state.meta)));
    for (key, row) in (1u64..).zip(rows) {
        let json = serde_json::to_string(&row).map_err(store_err)?;
        log.insert(key, json.as_str()).map_err(store_err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;
    use rust_decimal::Decimal;

    use super::*;
    use crate::paper::book::PaperConfig;
    use crate::paper::book::config::seed;
    use crate::paper::book::state::LedgerKind;

    fn rows(db: &Database) -> u64 {
        let txn = db.begin_read().expect("read");
        txn.open_table(LOG).expect("log").len().expect("len")
    }

    fn assert_same(a: &State, b: &State) {
        assert_eq!(a.meta, b.meta);
        assert_eq!(a.accounts, b.accounts);
        assert_eq!(a.orders, b.orders);
        assert_eq!(a.previews, b.previews);
        assert_eq!(a.positions, b.positions);
        assert_eq!(a.transactions, b.transactions);
        assert_eq!(a.ledger, b.ledger);
    }

    /// Commits as `PaperBook::mutate` makes them: the generation bumped, meta written.
    fn commit(db: &Database, s: &mut State) {
        s.meta.generation += 1;
        s.touch_meta();
        save(db, s, false).expect("save");
        s.committed();
    }

    #[test]
    fn the_log_keeps_latest_versions_and_removals_and_stays_compact() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Database::create(dir.path().join("p.redb")).expect("db");
        prepare(&db).expect("prepare");
        assert!(load(&db).expect("load").is_none());
        assert_eq!(stored_generation(&db).expect("generation"), None);

        let mut s = seed(
            &PaperConfig::default(),
            None,
            Timestamp::UNIX_EPOCH,
            Meta::default(),
        )
        .expect("seed");
        save(&db, &s, false).expect("save");
        s.committed();
        let key = s.accounts.keys().next().expect("account").clone();
        let mut most = 0;
        for i in 0..1500u64 {
            s.begin();
            let mut a = s.accounts[&key].clone();
            a.cash += Decimal::ONE;
            s.put_account(a);
            // A ledger entry now and then, and one removed again (a removal row).
            if i % 10 == 0 {
                let entry_id = s.new_ledger_id();
                s.put_ledger(LedgerRec {
                    entry_id,
                    account_key: key.clone(),
                    at: Timestamp::UNIX_EPOCH,
                    amount: Decimal::from(i),
                    kind: LedgerKind::Deposit,
                    transaction_id: None,
                    order_id: None,
                });
                if i % 20 == 0 {
                    s.ledger.remove(&entry_id);
                }
            }
            commit(&db, &mut s);
            most = most.max(rows(&db));
        }
        assert!(
            most <= live_records(&s) * 2 + LOG_SLACK + 3,
            "{most} rows for {} records",
            live_records(&s)
        );
        assert_eq!(
            s.ledger.len(),
            2 + 75,
            "the seed's deposits and every other entry"
        );
        let loaded = load(&db).expect("load").expect("a book");
        assert_same(&loaded, &s);
        assert_eq!(
            stored_generation(&db).expect("generation"),
            Some(s.meta.generation)
        );

        // A reset replaces the log with the book.
        let mut fresh = seed(
            &PaperConfig::default(),
            None,
            Timestamp::UNIX_EPOCH,
            s.meta.clone(),
        )
        .expect("seed");
        save(&db, &fresh, true).expect("reset");
        fresh.committed();
        assert_eq!(rows(&db), live_records(&fresh));
        assert_same(&load(&db).expect("load").expect("a book"), &fresh);
    }

    #[test]
    fn a_newer_format_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Database::create(dir.path().join("p.redb")).expect("db");
        prepare(&db).expect("prepare");
        let txn = db.begin_write().expect("write");
        txn.open_table(FORMAT)
            .expect("format")
            .insert(FORMAT_KEY, VERSION + 1)
            .expect("insert");
        txn.commit().expect("commit");
        assert!(matches!(prepare(&db), Err(PaperError::Store(text)) if text.contains("newer")));
    }
}

//! The book's redb file: the records as of the last fold, a short log of the commits since,
//! making the file current (a new file's tables, the migration of older formats), loading the
//! whole book, and writing the records a change touched in one write transaction.
//!
//! A commit appends one row to the table `paper_log` (key: a sequence number): the records it
//! wrote as a JSON array, the book's meta record last; a removal is a record too. When the
//! log would pass [`LOG_LIMIT`] rows, the commit folds it instead: every record written since
//! the last fold goes to the table `paper_book` (key: the record's kind and id) or leaves it,
//! and the log starts again with the meta record. The log thus stays a B-tree of two levels,
//! so a commit writes one leaf and the root above it, however long the book's history; the
//! book's table, as tall as the book makes it, is written once per fold. Loading reads the
//! book's table, then replays the log over it.
//!
//! The format version is in the table `paper_meta`, the name the first format used for its
//! meta record with another value type: an older etrade opening a migrated file fails on the
//! type (or on the version) instead of seeding a new book beside the log.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Display;

use redb::{
    Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition, TableHandle,
    WriteTransaction,
};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{
    AccountRec, Dirty, LedgerRec, Meta, OrderRec, PositionRec, PreviewRec, State, TransactionRec,
    v1,
};
use crate::paper::book::PaperError;

pub(super) const LOG: TableDefinition<u64, &str> = TableDefinition::new("paper_log");
const BOOK: TableDefinition<&[u8], &str> = TableDefinition::new("paper_book");
const FORMAT: TableDefinition<&str, u64> = TableDefinition::new("paper_meta");
const FORMAT_KEY: &str = "format";
/// Format 2 kept the whole book in the log, one record per row (compacted now and then).
const VERSION: u64 = 3;
const LOG_ONLY_VERSION: u64 = 2;

/// The most commits the log holds: a commit that would pass it folds the log into the book's
/// table. A placement's two commits take about 4 KB, a leaf each, so the log's tree stays at
/// two levels (a root above at most 128 leaves), and a fold comes every 64 placements.
const LOG_LIMIT: u64 = 128;

/// The first byte of a record's key in the book's table: its kind.
const ACCOUNT_TAG: u8 = b'a';
const ORDER_TAG: u8 = b'o';
const PREVIEW_TAG: u8 = b'p';
const POSITION_TAG: u8 = b's';
const TRANSACTION_TAG: u8 = b't';
const LEDGER_TAG: u8 = b'l';

pub(crate) fn store_err(e: impl Display) -> PaperError {
    PaperError::Store(e.to_string())
}

/// One row of the log or of the book's table, as written.
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

/// One row of the log or of the book's table, as read ([`RowRef`]'s twin).
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

/// serde's text is left out: it can quote the record.
fn unreadable(_: serde_json::Error) -> PaperError {
    PaperError::Store("a record of the paper book could not be read".into())
}

fn decode_row(json: &str) -> Result<Row, PaperError> {
    serde_json::from_str(json).map_err(unreadable)
}

/// A commit's row of the log: its records, in the order written.
fn decode_commit(json: &str) -> Result<Vec<Row>, PaperError> {
    serde_json::from_str(json).map_err(unreadable)
}

fn encode_row(row: &RowRef<'_>) -> Result<String, PaperError> {
    serde_json::to_string(row).map_err(store_err)
}

/// A record's id as the book's table keys it, after its kind's tag: big-endian, so records
/// of one kind sort by id and new ones go to the end of their kind's range.
trait BookKey {
    fn book_key(&self, tag: u8) -> Vec<u8>;
}

impl BookKey for i64 {
    fn book_key(&self, tag: u8) -> Vec<u8> {
        // The sign bit flipped, so negative ids (none are made) would still sort first.
        let mut key = vec![tag];
        key.extend_from_slice(&((*self as u64) ^ (1 << 63)).to_be_bytes());
        key
    }
}

impl BookKey for u64 {
    fn book_key(&self, tag: u8) -> Vec<u8> {
        let mut key = vec![tag];
        key.extend_from_slice(&self.to_be_bytes());
        key
    }
}

impl BookKey for String {
    fn book_key(&self, tag: u8) -> Vec<u8> {
        let mut key = vec![tag];
        key.extend_from_slice(self.as_bytes());
        key
    }
}

/// Makes the file current, in one write transaction: a new file gets the tables, a file in
/// an older format is migrated (its book copied into the book's table, the first format's
/// tables deleted, format 2's log emptied but for the meta record). A current file is only
/// read. Processes open the file one at a time (the lease), so the first to open it
/// migrates and the others find it done.
pub(crate) fn prepare(db: &Database) -> Result<(), PaperError> {
    {
        let txn = db.begin_read().map_err(store_err)?;
        if has_table(txn.list_tables().map_err(store_err)?, LOG.name()) {
            let format = txn.open_table(FORMAT).map_err(store_err)?;
            let version = format.get(FORMAT_KEY).map_err(store_err)?;
            if version.as_ref().map(|v| v.value()) != Some(LOG_ONLY_VERSION) {
                return check_version(version.map(|v| v.value()));
            }
        }
    }
    let txn = db.begin_write().map_err(store_err)?;
    if has_table(txn.list_tables().map_err(store_err)?, LOG.name()) {
        let version = txn
            .open_table(FORMAT)
            .map_err(store_err)?
            .get(FORMAT_KEY)
            .map_err(store_err)?
            .map(|v| v.value());
        if version != Some(LOG_ONLY_VERSION) {
            return check_version(version);
        }
        let old = read_log_only(&txn)?;
        txn.open_table(BOOK).map_err(store_err)?;
        match old {
            Some(state) => write_all(&txn, &state)?,
            None => {
                txn.open_table(LOG)
                    .map_err(store_err)?
                    .retain(|_, _| false)
                    .map_err(store_err)?;
            }
        }
    } else {
        let old = if has_table(txn.list_tables().map_err(store_err)?, v1::META_NAME) {
            v1::take(&txn)?
        } else {
            None
        };
        txn.open_table(LOG).map_err(store_err)?;
        txn.open_table(BOOK).map_err(store_err)?;
        if let Some(state) = old {
            write_all(&txn, &state)?;
        }
    }
    txn.open_table(FORMAT)
        .map_err(store_err)?
        .insert(FORMAT_KEY, VERSION)
        .map_err(store_err)?;
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
/// never initialized. Every commit ends with the meta record (a fold starts the log with
/// it), so this reads the log's last row, not the book.
pub(crate) fn stored_generation(db: &Database) -> Result<Option<u64>, PaperError> {
    let txn = db.begin_read().map_err(store_err)?;
    let log = txn.open_table(LOG).map_err(store_err)?;
    let Some((_, json)) = log.last().map_err(store_err)? else {
        return Ok(None);
    };
    // Only the last record of the commit is decoded; the rest is only scanned.
    let rows: Vec<&RawValue> = serde_json::from_str(json.value()).map_err(unreadable)?;
    match rows.last().map(|row| decode_row(row.get())).transpose()? {
        Some(Row::Meta(meta)) => Ok(Some(meta.generation)),
        _ => Err(PaperError::Store(
            "the paper book's log does not end with its meta record".into(),
        )),
    }
}

/// Reads the whole book: the book's table, then the log replayed over it, each record's
/// latest version. `None` when it was never initialized.
pub(crate) fn load(db: &Database) -> Result<Option<State>, PaperError> {
    let txn = db.begin_read().map_err(store_err)?;
    let book = txn.open_table(BOOK).map_err(store_err)?;
    let log = txn.open_table(LOG).map_err(store_err)?;
    let mut state = State::default();
    let mut meta = None;
    for row in book.iter().map_err(store_err)? {
        let (_, json) = row.map_err(store_err)?;
        if let Some(m) = apply(&mut state, decode_row(json.value())?, None) {
            meta = Some(m);
        }
    }
    let mut unfolded = Dirty::default();
    for commit in log.iter().map_err(store_err)? {
        let (_, json) = commit.map_err(store_err)?;
        for row in decode_commit(json.value())? {
            if let Some(m) = apply(&mut state, row, Some(&mut unfolded)) {
                meta = Some(m);
            }
        }
    }
    state.unfolded = unfolded;
    state.index_book();
    Ok(meta.map(|meta| State { meta, ..state }))
}

/// Format 2's book: its log, one record per row, replayed; `None` when it holds none.
fn read_log_only(txn: &WriteTransaction) -> Result<Option<State>, PaperError> {
    let log = txn.open_table(LOG).map_err(store_err)?;
    let mut state = State::default();
    let mut meta = None;
    for row in log.iter().map_err(store_err)? {
        let (_, json) = row.map_err(store_err)?;
        if let Some(m) = apply(&mut state, decode_row(json.value())?, None) {
            meta = Some(m);
        }
    }
    Ok(meta.map(|meta| State { meta, ..state }))
}

/// Applies one row to the book; the meta record is returned instead. A row of the log also
/// notes its record in `unfolded`, for the next fold.
fn apply(state: &mut State, row: Row, unfolded: Option<&mut Dirty>) -> Option<Meta> {
    fn note<K: Ord>(unfolded: Option<&mut Dirty>, set: fn(&mut Dirty) -> &mut BTreeSet<K>, k: K) {
        if let Some(d) = unfolded {
            set(d).insert(k);
        }
    }
    match row {
        Row::Meta(m) => return Some(m),
        Row::Account(a) => {
            note(unfolded, |d| &mut d.accounts, a.key.clone());
            state.accounts.insert(a.key.clone(), a);
        }
        Row::AccountGone(k) => {
            state.accounts.remove(&k);
            note(unfolded, |d| &mut d.accounts, k);
        }
        Row::Order(o) => {
            note(unfolded, |d| &mut d.orders, o.order_id);
            state.orders.insert(o.order_id, *o);
        }
        Row::OrderGone(k) => {
            note(unfolded, |d| &mut d.orders, k);
            state.orders.remove(&k);
        }
        Row::Preview(p) => {
            note(unfolded, |d| &mut d.previews, p.preview_id);
            state.previews.insert(p.preview_id, p);
        }
        Row::PreviewGone(k) => {
            note(unfolded, |d| &mut d.previews, k);
            state.previews.remove(&k);
        }
        Row::Position(p) => {
            note(unfolded, |d| &mut d.positions, p.position_id);
            state.positions.insert(p.position_id, p);
        }
        Row::PositionGone(k) => {
            note(unfolded, |d| &mut d.positions, k);
            state.positions.remove(&k);
        }
        Row::Transaction(t) => {
            note(unfolded, |d| &mut d.transactions, t.transaction_id);
            state.transactions.insert(t.transaction_id, t);
        }
        Row::TransactionGone(k) => {
            note(unfolded, |d| &mut d.transactions, k);
            state.transactions.remove(&k);
        }
        Row::Ledger(e) => {
            note(unfolded, |d| &mut d.ledger, e.entry_id);
            state.ledger.insert(e.entry_id, e);
        }
        Row::LedgerGone(k) => {
            note(unfolded, |d| &mut d.ledger, k);
            state.ledger.remove(&k);
        }
    }
    None
}

/// Writes the dirty records of `state` in one write transaction: appended to the log, the
/// meta record last, or, when that would take the log past [`LOG_LIMIT`], folded into the
/// book's table with every record the log holds. With `wipe` (reset), the file is made to
/// hold the whole book and nothing else. Nothing is written when the commit fails; when it
/// succeeds, `state.unfolded` says what the log now holds.
pub(crate) fn save(db: &Database, state: &mut State, wipe: bool) -> Result<(), PaperError> {
    let d = &state.dirty;
    if d.is_empty() && !wipe {
        return Ok(());
    }
    let txn = db.begin_write().map_err(store_err)?;
    let folded = if wipe {
        write_all(&txn, state)?;
        true
    } else {
        let mut log = txn.open_table(LOG).map_err(store_err)?;
        if log.len().map_err(store_err)? >= LOG_LIMIT {
            log.retain(|_, _| false).map_err(store_err)?;
            log.insert(1, encode_commit(&[RowRef::Meta(&state.meta)])?.as_str())
                .map_err(store_err)?;
            fold(&txn, state)?;
            true
        } else {
            append(&mut log, state)?;
            false
        }
    };
    txn.commit().map_err(store_err)?;
    let State {
        unfolded, dirty, ..
    } = state;
    if folded {
        *unfolded = Dirty::default();
    } else {
        unfolded.absorb(dirty);
    }
    Ok(())
}

/// Appends the dirty records to the log as one row, the meta record last.
fn append(log: &mut redb::Table<'_, u64, &'static str>, state: &State) -> Result<(), PaperError> {
    let d = &state.dirty;
    let next = match log.last().map_err(store_err)? {
        Some((key, _)) => key.value().saturating_add(1),
        None => 1,
    };
    let mut rows = Vec::with_capacity(d.records() + 1);
    for k in &d.accounts {
        rows.push(match state.accounts.get(k) {
            Some(v) => RowRef::Account(v),
            None => RowRef::AccountGone(k),
        });
    }
    dirty_rows(
        &d.orders,
        &state.orders,
        RowRef::Order,
        RowRef::OrderGone,
        &mut rows,
    );
    dirty_rows(
        &d.previews,
        &state.previews,
        RowRef::Preview,
        RowRef::PreviewGone,
        &mut rows,
    );
    dirty_rows(
        &d.positions,
        &state.positions,
        RowRef::Position,
        RowRef::PositionGone,
        &mut rows,
    );
    dirty_rows(
        &d.transactions,
        &state.transactions,
        RowRef::Transaction,
        RowRef::TransactionGone,
        &mut rows,
    );
    dirty_rows(
        &d.ledger,
        &state.ledger,
        RowRef::Ledger,
        RowRef::LedgerGone,
        &mut rows,
    );
    // Always, and last: `stored_generation` reads it from the log's end.
    rows.push(RowRef::Meta(&state.meta));
    log.insert(next, encode_commit(&rows)?.as_str())
        .map_err(store_err)?;
    Ok(())
}

fn encode_commit(rows: &[RowRef<'_>]) -> Result<String, PaperError> {
    serde_json::to_string(rows).map_err(store_err)
}

/// The row of each dirty key: its record, or its removal.
fn dirty_rows<'a, K: Ord + Copy, V>(
    keys: &BTreeSet<K>,
    records: &'a BTreeMap<K, V>,
    put: impl Fn(&'a V) -> RowRef<'a>,
    gone: impl Fn(K) -> RowRef<'a>,
    rows: &mut Vec<RowRef<'a>>,
) {
    rows.extend(keys.iter().map(|k| match records.get(k) {
        Some(v) => put(v),
        None => gone(*k),
    }));
}

/// Writes every record the log held and every dirty one to the book's table as it is now
/// (or takes it out, when it is gone).
fn fold(txn: &WriteTransaction, state: &State) -> Result<(), PaperError> {
    let mut book = txn.open_table(BOOK).map_err(store_err)?;
    let (u, d) = (&state.unfolded, &state.dirty);
    fold_kind(
        &mut book,
        ACCOUNT_TAG,
        &u.accounts,
        &d.accounts,
        &state.accounts,
        RowRef::Account,
    )?;
    fold_kind(
        &mut book,
        ORDER_TAG,
        &u.orders,
        &d.orders,
        &state.orders,
        RowRef::Order,
    )?;
    fold_kind(
        &mut book,
        PREVIEW_TAG,
        &u.previews,
        &d.previews,
        &state.previews,
        RowRef::Preview,
    )?;
    fold_kind(
        &mut book,
        POSITION_TAG,
        &u.positions,
        &d.positions,
        &state.positions,
        RowRef::Position,
    )?;
    fold_kind(
        &mut book,
        TRANSACTION_TAG,
        &u.transactions,
        &d.transactions,
        &state.transactions,
        RowRef::Transaction,
    )?;
    fold_kind(
        &mut book,
        LEDGER_TAG,
        &u.ledger,
        &d.ledger,
        &state.ledger,
        RowRef::Ledger,
    )
}

fn fold_kind<'a, K: Ord + BookKey, V>(
    book: &mut redb::Table<'_, &'static [u8], &'static str>,
    tag: u8,
    unfolded: &BTreeSet<K>,
    dirty: &BTreeSet<K>,
    records: &'a BTreeMap<K, V>,
    put: impl Fn(&'a V) -> RowRef<'a>,
) -> Result<(), PaperError> {
    for k in unfolded.union(dirty) {
        let key = k.book_key(tag);
        match records.get(k) {
            Some(v) => {
                book.insert(key.as_slice(), encode_row(&put(v))?.as_str())
                    .map_err(store_err)?;
            }
            None => {
                book.remove(key.as_slice()).map_err(store_err)?;
            }
        }
    }
    Ok(())
}

/// Makes the file hold `state` and nothing else: every record in the book's table, the log
/// only the meta record.
fn write_all(txn: &WriteTransaction, state: &State) -> Result<(), PaperError> {
    let mut log = txn.open_table(LOG).map_err(store_err)?;
    log.retain(|_, _| false).map_err(store_err)?;
    log.insert(1, encode_commit(&[RowRef::Meta(&state.meta)])?.as_str())
        .map_err(store_err)?;
    let mut book = txn.open_table(BOOK).map_err(store_err)?;
    book.retain(|_, _| false).map_err(store_err)?;
    put_all(&mut book, ACCOUNT_TAG, &state.accounts, RowRef::Account)?;
    put_all(&mut book, ORDER_TAG, &state.orders, RowRef::Order)?;
    put_all(&mut book, PREVIEW_TAG, &state.previews, RowRef::Preview)?;
    put_all(&mut book, POSITION_TAG, &state.positions, RowRef::Position)?;
    put_all(
        &mut book,
        TRANSACTION_TAG,
        &state.transactions,
        RowRef::Transaction,
    )?;
    put_all(&mut book, LEDGER_TAG, &state.ledger, RowRef::Ledger)
}

fn put_all<'a, K: BookKey, V>(
    book: &mut redb::Table<'_, &'static [u8], &'static str>,
    tag: u8,
    records: &'a BTreeMap<K, V>,
    put: impl Fn(&'a V) -> RowRef<'a>,
) -> Result<(), PaperError> {
    for (k, v) in records {
        book.insert(k.book_key(tag).as_slice(), encode_row(&put(v))?.as_str())
            .map_err(store_err)?;
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

    fn book_rows(db: &Database) -> u64 {
        let txn = db.begin_read().expect("read");
        txn.open_table(BOOK).expect("book").len().expect("len")
    }

    fn live(s: &State) -> u64 {
        (s.accounts.len()
            + s.orders.len()
            + s.previews.len()
            + s.positions.len()
            + s.transactions.len()
            + s.ledger.len()) as u64
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

    fn seeded() -> State {
        seed(
            &PaperConfig::default(),
            None,
            Timestamp::UNIX_EPOCH,
            Meta::default(),
        )
        .expect("seed")
    }

    /// One change as a placement makes them: the account rewritten and a ledger entry
    /// added; every fourth change also removes the entry the change before added (a removal,
    /// of a record sometimes folded already).
    fn change(s: &mut State, i: u64) {
        s.begin();
        let key = s.accounts.keys().next().expect("account").clone();
        let mut a = s.accounts[&key].clone();
        a.cash += Decimal::ONE;
        s.put_account(a);
        if i % 4 == 2 {
            let gone = s.meta.next_ledger_id - 1;
            s.dirty.ledger.insert(gone);
            s.ledger.remove(&gone);
        }
        let entry_id = s.new_ledger_id();
        s.put_ledger(LedgerRec {
            entry_id,
            account_key: key,
            at: Timestamp::UNIX_EPOCH,
            amount: Decimal::from(i),
            kind: LedgerKind::Deposit,
            transaction_id: None,
            order_id: None,
        });
    }

    #[test]
    fn the_log_folds_into_the_book_and_every_read_sees_the_latest_versions() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Database::create(dir.path().join("p.redb")).expect("db");
        prepare(&db).expect("prepare");
        assert!(load(&db).expect("load").is_none());
        assert_eq!(stored_generation(&db).expect("generation"), None);

        let mut s = seeded();
        save(&db, &mut s, false).expect("save");
        s.committed();
        let (mut folds, mut before) = (0, rows(&db));
        for i in 0..1500u64 {
            change(&mut s, i);
            commit(&db, &mut s);
            let now = rows(&db);
            assert!(now <= LOG_LIMIT, "{now} rows in the log");
            if now < before {
                folds += 1;
                assert_eq!(now, 1, "a fold leaves the meta record");
                assert_eq!(book_rows(&db), live(&s), "the book's table is the book");
                assert_same(&load(&db).expect("load").expect("a book"), &s);
            } else if i % 97 == 0 {
                assert_same(&load(&db).expect("load").expect("a book"), &s);
            }
            if i == 700 {
                // Another process read the book here, between two folds, and goes on.
                let mut read = load(&db).expect("load").expect("a book");
                assert!(!read.unfolded.is_empty(), "the log holds records at {i}");
                read.dirty = Dirty::default();
                s = read;
            }
            before = now;
        }
        assert!(folds >= 3, "{folds} folds");
        assert_eq!(
            s.ledger.len(),
            2 + 1500 - 375,
            "the seed's deposits and the entries not removed"
        );
        assert_same(&load(&db).expect("load").expect("a book"), &s);
        assert_eq!(
            stored_generation(&db).expect("generation"),
            Some(s.meta.generation)
        );

        // A reset replaces the file's contents with the book.
        let mut fresh = seed(
            &PaperConfig::default(),
            None,
            Timestamp::UNIX_EPOCH,
            s.meta.clone(),
        )
        .expect("seed");
        save(&db, &mut fresh, true).expect("reset");
        fresh.committed();
        assert_eq!((rows(&db), book_rows(&db)), (1, live(&fresh)));
        assert_same(&load(&db).expect("load").expect("a book"), &fresh);
    }

    /// [`LOG_LIMIT`]'s promise: a full log of placement-sized commits (about 1 and 3 KB) is a
    /// tree of two levels.
    #[test]
    fn a_full_log_is_two_levels_high() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Database::create(dir.path().join("p.redb")).expect("db");
        prepare(&db).expect("prepare");
        let mut s = seeded();
        save(&db, &mut s, false).expect("save");
        s.committed();
        let key = s.accounts.keys().next().expect("account").clone();
        for i in 1..LOG_LIMIT {
            s.begin();
            let mut a = s.accounts[&key].clone();
            a.name = "n".repeat(if i % 2 == 1 { 1_000 } else { 3_200 });
            s.put_account(a);
            commit(&db, &mut s);
        }
        assert_eq!(rows(&db), LOG_LIMIT, "no fold yet");
        let txn = db.begin_read().expect("read");
        let stats = txn.open_table(LOG).expect("log").stats().expect("stats");
        assert_eq!(stats.tree_height(), 2);
    }

    #[test]
    fn a_format_2_book_is_moved_into_the_book_table() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Database::create(dir.path().join("p.redb")).expect("db");
        // A format-2 file: the whole book in the log, with a later version of the account and
        // a removal, and no book table.
        let mut s = seeded();
        let key = s.accounts.keys().next().expect("account").clone();
        {
            let txn = db.begin_write().expect("write");
            {
                let mut log = txn.open_table(LOG).expect("log");
                let mut rows: Vec<String> = Vec::new();
                for a in s.accounts.values() {
                    rows.push(encode_row(&RowRef::Account(a)).expect("row"));
                }
                let records = s.orders.values().map(RowRef::Order);
                let records = records.chain(s.previews.values().map(RowRef::Preview));
                let records = records.chain(s.positions.values().map(RowRef::Position));
                let records = records.chain(s.transactions.values().map(RowRef::Transaction));
                for row in records.chain(s.ledger.values().map(RowRef::Ledger)) {
                    rows.push(encode_row(&row).expect("row"));
                }
                let first_entry = *s.ledger.keys().next().expect("an entry");
                s.ledger.remove(&first_entry);
                rows.push(encode_row(&RowRef::LedgerGone(first_entry)).expect("row"));
                let mut a = s.accounts[&key].clone();
                a.cash += Decimal::ONE;
                rows.push(encode_row(&RowRef::Account(&a)).expect("row"));
                s.accounts.insert(key.clone(), a);
                rows.push(encode_row(&RowRef::Meta(&s.meta)).expect("row"));
                for (k, row) in (1u64..).zip(&rows) {
                    log.insert(k, row.as_str()).expect("insert");
                }
                txn.open_table(FORMAT)
                    .expect("format")
                    .insert(FORMAT_KEY, LOG_ONLY_VERSION)
                    .expect("insert");
            }
            txn.commit().expect("commit");
        }
        s.dirty = Dirty::default();

        prepare(&db).expect("prepare");
        let txn = db.begin_read().expect("read");
        let version = txn.open_table(FORMAT).expect("format");
        assert_eq!(
            version.get(FORMAT_KEY).expect("get").map(|v| v.value()),
            Some(VERSION)
        );
        drop((version, txn));
        assert_eq!((rows(&db), book_rows(&db)), (1, live(&s)));
        let mut read = load(&db).expect("load").expect("a book");
        assert_same(&read, &s);
        assert!(
            read.unfolded.records() == 0,
            "the log holds the meta record only"
        );
        for i in 0..3 {
            change(&mut read, i);
            commit(&db, &mut read);
        }
        assert_same(&load(&db).expect("load").expect("a book"), &read);
        assert_eq!(
            stored_generation(&db).expect("generation"),
            Some(read.meta.generation)
        );
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

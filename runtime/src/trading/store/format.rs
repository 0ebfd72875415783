//! The file's layout: previews, the journal, its id counter and the daily usage share one
//! key space, kept in two tables: the recent records and the settled ones (see
//! [`super::records`]); and the migrations from the first format (one table each) and the
//! second (the settled table alone).
//!
//! Keys are bytes, a tag byte first:
//! - `j` + id (big-endian u64): a journal entry, so entries sort by id;
//! - `k`: the id the next journal entry gets, right after the newest entries;
//! - `l` + day (descending) + environment, profile, account: a day's usage, today's rows first,
//!   right after the counter: a claim's journal entry, counter and usage usually share one leaf;
//! - `p` + preview id: a preview.
//!
//! The approval PIN's two tables are as they were.
//!
//! The format version is in the table `meta`, the name the first format used for its counter
//! with another value type: an older etrade opening a migrated file fails on the type instead
//! of making its tables anew beside the records and starting an empty journal.

use redb::{
    Database, ReadableDatabase, ReadableTable, TableDefinition, TableHandle, WriteTransaction,
};

use super::{IntoStore, StoreError, pin};

/// Records as of the last time the recent ones were settled: the second format's one table.
pub(super) const SETTLED: TableDefinition<&[u8], &str> = TableDefinition::new("trading");
/// Records written since.
pub(super) const RECENT: TableDefinition<&[u8], &str> = TableDefinition::new("trading_recent");
pub(super) const FORMAT: TableDefinition<&str, &str> = TableDefinition::new("meta");
const FORMAT_KEY: &str = "format";
const VERSION: &str = "3";
/// The settled table alone, which format 3 reads as it is.
const SETTLED_ONLY_VERSION: &str = "2";

const JOURNAL_TAG: u8 = b'j';
pub(super) const NEXT_JOURNAL_ID: &[u8] = b"k";
const USAGE_TAG: u8 = b'l';
const PREVIEW_TAG: u8 = b'p';

/// The first journal key sorts after this (the bare tag), the last before [`NEXT_JOURNAL_ID`].
pub(super) const JOURNAL_START: &[u8] = &[JOURNAL_TAG];
pub(super) const PREVIEW_START: &[u8] = &[PREVIEW_TAG];
/// Just past every preview key.
pub(super) const PREVIEW_END: &[u8] = &[PREVIEW_TAG + 1];

pub(super) fn journal_key(id: u64) -> [u8; 9] {
    let mut key = [JOURNAL_TAG; 9];
    key[1..].copy_from_slice(&id.to_be_bytes());
    key
}

pub(super) fn preview_key(preview_id: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(1 + preview_id.len());
    key.push(PREVIEW_TAG);
    key.extend_from_slice(preview_id.as_bytes());
    key
}

/// Unit separators keep the parts apart whatever characters ids contain.
pub(super) fn usage_key(
    environment: &str,
    profile: &str,
    account: &str,
    day: jiff::civil::Date,
) -> Vec<u8> {
    // Newer days get smaller numbers, so the current day's rows come first. Years are
    // -9999..=9999, so the ordinal is positive and fits.
    let ordinal = u32::try_from(i32::from(day.year()) + 10_000).unwrap_or(0) * 10_000
        + u32::from(day.month().unsigned_abs()) * 100
        + u32::from(day.day().unsigned_abs());
    let mut key = Vec::with_capacity(5 + environment.len() + profile.len() + account.len() + 2);
    key.push(USAGE_TAG);
    key.extend_from_slice(&(u32::MAX - ordinal).to_be_bytes());
    for (i, part) in [environment, profile, account].into_iter().enumerate() {
        if i > 0 {
            key.push(0x1f);
        }
        key.extend_from_slice(part.as_bytes());
    }
    key
}

/// Makes the file current: a new file gets the tables, a file in an older format is
/// migrated, in one write transaction either way. A current file is only read. Processes
/// open the file one at a time (the lease), so the first to open it migrates and the
/// others find it done.
///
/// An older etrade refuses a migrated file: format 1's code fails on the type of `meta`,
/// format 2's on the version.
pub(super) fn prepare(db: &Database) -> Result<(), StoreError> {
    {
        let txn = db.begin_read().db()?;
        if txn.list_tables().db()?.any(|t| t.name() == SETTLED.name()) {
            let format = txn.open_table(FORMAT).db()?;
            let version = format.get(FORMAT_KEY).db()?;
            match version.as_ref().map(|v| v.value()) {
                Some(SETTLED_ONLY_VERSION) => {}
                other => return check_version(other),
            }
        }
    }
    let txn = db.begin_write().db()?;
    let names: Vec<String> = txn
        .list_tables()
        .db()?
        .map(|t| t.name().to_owned())
        .collect();
    if !names.iter().any(|n| n == SETTLED.name()) {
        if names.iter().any(|n| v1::TABLES.contains(&n.as_str())) {
            v1::migrate(&txn)?;
        }
        txn.open_table(SETTLED).db()?;
        txn.open_table(pin::PIN).db()?;
        txn.open_table(pin::PIN_EVENTS).db()?;
    }
    txn.open_table(RECENT).db()?;
    txn.open_table(FORMAT)
        .db()?
        .insert(FORMAT_KEY, VERSION)
        .db()?;
    txn.commit().db()
}

fn check_version(version: Option<&str>) -> Result<(), StoreError> {
    match version {
        Some(VERSION) => Ok(()),
        Some(other) => Err(StoreError::Database(format!(
            "the trading database is in format {other}, written by a newer etrade; \
             this one reads format {VERSION}"
        ))),
        None => Err(StoreError::Corrupt),
    }
}

/// The first format: a table each for previews, the journal, the journal id counter and
/// the usage.
mod v1 {
    use super::*;

    const PREVIEWS: TableDefinition<&str, &str> = TableDefinition::new("previews");
    const JOURNAL: TableDefinition<u64, &str> = TableDefinition::new("journal");
    const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
    const USAGE: TableDefinition<&str, &str> = TableDefinition::new("usage");
    const NEXT_JOURNAL_ID: &str = "next_journal_id";

    pub(super) const TABLES: [&str; 4] = ["previews", "journal", "meta", "usage"];

    /// Copies every record (the JSON unchanged) into [`SETTLED`] and deletes the old
    /// tables, within `txn`.
    pub(super) fn migrate(txn: &WriteTransaction) -> Result<(), StoreError> {
        let mut records = txn.open_table(SETTLED).db()?;
        {
            let previews = txn.open_table(PREVIEWS).db()?;
            for row in previews.iter().db()? {
                let (id, json) = row.db()?;
                records
                    .insert(preview_key(id.value()).as_slice(), json.value())
                    .db()?;
            }
            let journal = txn.open_table(JOURNAL).db()?;
            for row in journal.iter().db()? {
                let (id, json) = row.db()?;
                records
                    .insert(journal_key(id.value()).as_slice(), json.value())
                    .db()?;
            }
            let usage = txn.open_table(USAGE).db()?;
            for row in usage.iter().db()? {
                let (key, json) = row.db()?;
                let key = usage_key_of(key.value())?;
                records.insert(key.as_slice(), json.value()).db()?;
            }
            let meta = txn.open_table(META).db()?;
            if let Some(next) = meta.get(NEXT_JOURNAL_ID).db()? {
                let next = next.value().to_string();
                records.insert(super::NEXT_JOURNAL_ID, next.as_str()).db()?;
            }
        }
        drop(records);
        txn.delete_table(PREVIEWS).db()?;
        txn.delete_table(JOURNAL).db()?;
        txn.delete_table(USAGE).db()?;
        txn.delete_table(META).db()?;
        Ok(())
    }

    /// `environment␟profile␟account␟YYYY-MM-DD` to the current format's key.
    fn usage_key_of(old: &str) -> Result<Vec<u8>, StoreError> {
        let (rest, day) = old.rsplit_once('\u{1f}').ok_or(StoreError::Corrupt)?;
        let mut parts = rest.splitn(3, '\u{1f}');
        let (Some(environment), Some(profile), Some(account)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(StoreError::Corrupt);
        };
        let day: jiff::civil::Date = day.parse().map_err(|_| StoreError::Corrupt)?;
        Ok(usage_key(environment, profile, account, day))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn keys_sort_journal_counter_usage_newest_day_first_previews() {
        let mut keys = vec![
            preview_key("pv-0"),
            usage_key("sandbox", "default", "a", date(2025, 3, 13)),
            journal_key(u64::MAX).to_vec(),
            NEXT_JOURNAL_ID.to_vec(),
            usage_key("sandbox", "default", "a", date(2025, 3, 14)),
            journal_key(256).to_vec(),
            journal_key(1).to_vec(),
        ];
        keys.sort();
        assert_eq!(
            keys,
            vec![
                journal_key(1).to_vec(),
                journal_key(256).to_vec(),
                journal_key(u64::MAX).to_vec(),
                NEXT_JOURNAL_ID.to_vec(),
                usage_key("sandbox", "default", "a", date(2025, 3, 14)),
                usage_key("sandbox", "default", "a", date(2025, 3, 13)),
                preview_key("pv-0"),
            ]
        );
        assert!(JOURNAL_START < journal_key(0).as_slice());
        assert!(PREVIEW_START < preview_key("").as_slice() || preview_key("") == PREVIEW_START);
        assert!(preview_key("\u{10ffff}").as_slice() < PREVIEW_END);
    }

    #[test]
    fn a_newer_format_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Database::create(dir.path().join("t.redb")).expect("db");
        prepare(&db).expect("prepare");
        prepare(&db).expect("a current file");
        let txn = db.begin_write().expect("write");
        txn.open_table(FORMAT)
            .expect("format")
            .insert(FORMAT_KEY, "4")
            .expect("insert");
        txn.commit().expect("commit");
        assert!(matches!(prepare(&db), Err(StoreError::Database(text)) if text.contains("newer")));
    }
}

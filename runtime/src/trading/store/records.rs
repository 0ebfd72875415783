//! The records as the store reads and writes them: two tables with one key space (see
//! [`super::format`]). Every write goes to the small table of recent records, so a
//! placement's commits rewrite a few pages of a shallow tree rather than a path through the
//! tree of every preview and entry ever kept. A commit that finds more than its limit of
//! recent records settles them all into the table of settled records, in the same
//! transaction.
//!
//! A recent record stands for the settled one of the same key; a removal removes both. Every
//! read goes through [`Records`], so no reader can see one table without the other.

use std::cmp::Ordering;
use std::iter::Peekable;
use std::ops::Bound;

use redb::{AccessGuard, ReadTransaction, ReadableTable, ReadableTableMetadata, WriteTransaction};

use super::format::{RECENT, SETTLED};
use super::{IntoStore, StoreError};

/// How many recent records a commit may leave before it settles them. Small enough that the
/// recent table stays two levels high with placement-sized records (about 1 KB each), large
/// enough that settling (a write into the big tree) comes once per dozens of placements.
pub(super) const RECENT_LIMIT: u64 = 64;

/// One table of either kind, as a transaction opened it.
type WriteTable<'t> = redb::Table<'t, &'static [u8], &'static str>;
type ReadTable = redb::ReadOnlyTable<&'static [u8], &'static str>;

/// A key and its record, from either table.
pub(super) type Row<'a> = (
    AccessGuard<'a, &'static [u8]>,
    AccessGuard<'a, &'static str>,
);

/// Both tables, as one transaction opened them.
pub(super) struct Records<T> {
    recent: T,
    settled: T,
}

pub(super) type WriteRecords<'t> = Records<WriteTable<'t>>;
pub(super) type ReadRecords = Records<ReadTable>;

impl<'t> Records<WriteTable<'t>> {
    pub(super) fn write(txn: &'t WriteTransaction) -> Result<Self, StoreError> {
        Ok(Records {
            recent: txn.open_table(RECENT).db()?,
            settled: txn.open_table(SETTLED).db()?,
        })
    }

    pub(super) fn insert(&mut self, key: &[u8], json: &str) -> Result<(), StoreError> {
        self.recent.insert(key, json).db()?;
        Ok(())
    }

    pub(super) fn remove(&mut self, key: &[u8]) -> Result<(), StoreError> {
        self.recent.remove(key).db()?;
        self.settled.remove(key).db()?;
        Ok(())
    }

    /// Settles every recent record when there are more than `limit` ([`RECENT_LIMIT`]; tests
    /// lower it); called once per write, after its last insert.
    pub(super) fn settle_past(&mut self, limit: u64) -> Result<(), StoreError> {
        if self.recent.len().db()? <= limit {
            return Ok(());
        }
        let rows = self
            .recent
            .iter()
            .db()?
            .map(|row| {
                let (key, json) = row.db()?;
                Ok((key.value().to_vec(), json.value().to_owned()))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        for (key, json) in &rows {
            self.settled.insert(key.as_slice(), json.as_str()).db()?;
        }
        self.recent.retain(|_, _| false).db()?;
        Ok(())
    }
}

impl Records<ReadTable> {
    pub(super) fn read(txn: &ReadTransaction) -> Result<Self, StoreError> {
        Ok(Records {
            recent: txn.open_table(RECENT).db()?,
            settled: txn.open_table(SETTLED).db()?,
        })
    }
}

impl<T: ReadableTable<&'static [u8], &'static str>> Records<T> {
    pub(super) fn get(
        &self,
        key: &[u8],
    ) -> Result<Option<AccessGuard<'_, &'static str>>, StoreError> {
        match self.recent.get(key).db()? {
            Some(json) => Ok(Some(json)),
            None => self.settled.get(key).db(),
        }
    }

    /// The rows with keys in `range`, in key order, each key once.
    pub(super) fn range<'a>(
        &'a self,
        range: (Bound<&[u8]>, Bound<&[u8]>),
    ) -> Result<impl Iterator<Item = Result<Row<'a>, StoreError>> + 'a, StoreError> {
        Ok(Merge::new(
            self.recent.range::<&[u8]>(range).db()?,
            self.settled.range::<&[u8]>(range).db()?,
            Ordering::Less,
        ))
    }

    /// [`Records::range`], last key first.
    pub(super) fn range_rev<'a>(
        &'a self,
        range: (Bound<&[u8]>, Bound<&[u8]>),
    ) -> Result<impl Iterator<Item = Result<Row<'a>, StoreError>> + 'a, StoreError> {
        Ok(Merge::new(
            self.recent.range::<&[u8]>(range).db()?.rev(),
            self.settled.range::<&[u8]>(range).db()?.rev(),
            Ordering::Greater,
        ))
    }
}

/// Two sorted runs of rows as one: the recent row of a key hides its settled one.
struct Merge<I: Iterator> {
    recent: Peekable<I>,
    settled: Peekable<I>,
    /// How the key to give next compares with the other: `Less` ascending, `Greater`
    /// descending.
    first: Ordering,
}

impl<I: Iterator> Merge<I> {
    fn new(recent: I, settled: I, first: Ordering) -> Self {
        Merge {
            recent: recent.peekable(),
            settled: settled.peekable(),
            first,
        }
    }
}

impl<'a, E: std::fmt::Display, I: Iterator<Item = Result<Row<'a>, E>>> Iterator for Merge<I> {
    type Item = Result<Row<'a>, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        let order = match (self.recent.peek(), self.settled.peek()) {
            (None, None) => return None,
            (Some(_), None) | (Some(Err(_)), _) => Ordering::Less,
            (None, Some(_)) | (_, Some(Err(_))) => Ordering::Greater,
            (Some(Ok((recent, _))), Some(Ok((settled, _)))) => {
                let order = recent.value().cmp(settled.value());
                if order == Ordering::Equal {
                    Ordering::Equal
                } else if order == self.first {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
        };
        let row = match order {
            Ordering::Less => self.recent.next(),
            Ordering::Greater => self.settled.next(),
            Ordering::Equal => {
                self.settled.next();
                self.recent.next()
            }
        };
        row.map(|row| row.db())
    }
}

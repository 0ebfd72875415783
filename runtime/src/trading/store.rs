//! The redb store of previews, the mutation journal and daily usage.
//!
//! Several `etrade serve` processes (one per MCP client, say), `etrade approve` and doctor
//! share one database file, and redb lets only one handle per file be open at a time. The
//! handle is a [`DatabaseLease`]: kept open for a moment after an operation and then handed
//! to whichever other process is waiting for the file (see [`crate::store_lease`]). Inside
//! one process the lease runs operations one at a time, so threads of the same process never
//! contend for the file lock.
//!
//! Records are JSON so the on-disk format follows the serde derives in [`super::types`];
//! previews, the journal and the daily usage share one key space (see [`format`]), read and
//! written through [`records::Records`].

use std::fmt::Display;
use std::fs;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use redb::{Database, ReadTransaction, ReadableDatabase, ReadableTable, WriteTransaction};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::types::{
    DailyUsage, JournalEntry, JournalIntent, OrderSummary, Outcome, PolicyRefusal, PreviewKind,
    PreviewRecord, Reconciliation,
};

mod approvals;
mod format;
mod pin;
mod records;

use crate::store_lease::{DatabaseLease, LeaseError};
pub use approvals::{ApprovalError, DecisionFor};
pub use pin::{
    PinAttempts, PinChannel, PinCounters, PinEvent, PinEventKind, PinGate, PinPurpose, StoredPin,
};

use format::{
    JOURNAL_START, NEXT_JOURNAL_ID, PREVIEW_END, PREVIEW_START, journal_key, preview_key, usage_key,
};
use records::{ReadRecords, Records, WriteRecords};

const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(5);

const MAX_PAGE: usize = 100;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another process kept the database open past the lock timeout.
    #[error("the trading database is busy (another etrade process has it open)")]
    Busy,
    /// redb's (or the file system's) error text, never record contents.
    #[error("the trading database could not be used: {0}")]
    Database(String),
    #[error("a stored record could not be read")]
    Corrupt,
    /// [`TradingStore::open_existing`] found no database (or an empty file) at the path.
    #[error("there is no trading database at {0}")]
    Missing(String),
}

#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    #[error("no preview with this id exists (it may have expired and been removed)")]
    NotFound,
    #[error("the preview was made in another environment or profile")]
    OtherEnvironment,
    #[error("the preview was made for another account")]
    OtherAccount,
    #[error("the preview is not for this kind of request (or for another order)")]
    WrongKind,
    #[error("the preview has expired; preview the order again")]
    Expired,
    #[error("the preview has already been used to place an order")]
    AlreadyUsed,
    #[error("a person has not approved this preview")]
    NotApproved,
    #[error("a person rejected this preview")]
    Rejected,
    #[error("{}", .0.message)]
    Policy(PolicyRefusal),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Everything `claim_preview` checks and writes in its one transaction.
pub struct PreviewClaim<'a> {
    pub preview_id: &'a str,
    pub environment: &'a str,
    pub profile: &'a str,
    pub account_id_key: &'a str,
    /// What the caller expects: `PreviewKind::New` for place_order,
    /// `PreviewKind::Change { order_id }` for place_change_order.
    pub kind: PreviewKind,
    pub now: jiff::Timestamp,
    /// America/New_York trading day the usage counters are kept for.
    pub trading_day: jiff::civil::Date,
    /// Per-day policy check, run inside the write transaction against the current usage
    /// (before it is incremented) so concurrent placements cannot overshoot a daily limit.
    pub daily_check: &'a (dyn Fn(&DailyUsage, &OrderSummary) -> Result<(), PolicyRefusal> + Sync),
    /// Journal intent appended in the same transaction.
    pub intent: &'a JournalIntent,
    /// A person must have approved the preview.
    pub approval_required: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    /// The preview as now stored (marked used).
    pub preview: PreviewRecord,
    pub journal_id: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct JournalPage {
    pub entries: Vec<JournalEntry>,
    /// Pass as `before` for the next (older) page; None on the last page.
    pub next_before: Option<u64>,
}

#[derive(Debug)]
pub struct TradingStore {
    lease: DatabaseLease,
    /// The tables exist in the file (made by this process's first operation).
    tables_made: AtomicBool,
    /// The first operation may create the database (false: it must exist already).
    may_create: bool,
    /// Who this process acts for, as the vault's OS reported the connection's peer: written
    /// into each journal entry and approval this store records.
    peer: Option<String>,
    /// Recent records a write may leave before it settles them ([`records::RECENT_LIMIT`]).
    recent_limit: u64,
}

impl TradingStore {
    /// Creates the file (and parent dir) and tables if needed. The database is kept open
    /// only briefly between operations (see the module docs).
    pub fn open(path: impl Into<PathBuf>) -> Result<TradingStore, StoreError> {
        let store = TradingStore::open_deferred(path)?;
        store.with_db(|_| Ok::<_, StoreError>(()))?;
        Ok(store)
    }

    /// Creates the file (and parent dir) if needed, and reads nothing yet: the tables are
    /// made by the first operation. For `etrade serve`, whose startup should not wait for
    /// the disk on behalf of a store most sessions never touch.
    pub fn open_deferred(path: impl Into<PathBuf>) -> Result<TradingStore, StoreError> {
        let path = path.into();
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(database)?;
        }
        create_private_file(&path)?;
        Ok(TradingStore {
            lease: DatabaseLease::new(path, DEFAULT_LOCK_TIMEOUT, "trading-db-closer"),
            tables_made: AtomicBool::new(false),
            may_create: true,
            peer: None,
            recent_limit: records::RECENT_LIMIT,
        })
    }

    /// Opens a database that exists already, creating nothing: for the commands that decide
    /// on what it holds (`etrade approve`, `etrade resume`, `etrade doctor`). A missing or
    /// empty file is [`StoreError::Missing`]: a store that vanished must not come back empty,
    /// without its PIN or its approvals, just because a command looked for it.
    pub fn open_existing(path: impl Into<PathBuf>) -> Result<TradingStore, StoreError> {
        let path = path.into();
        match fs::metadata(&path) {
            Ok(m) if m.is_file() && m.len() > 0 => {}
            _ => return Err(StoreError::Missing(path.display().to_string())),
        }
        let store = TradingStore {
            lease: DatabaseLease::new(path, DEFAULT_LOCK_TIMEOUT, "trading-db-closer"),
            tables_made: AtomicBool::new(false),
            may_create: false,
            peer: None,
            recent_limit: records::RECENT_LIMIT,
        };
        store.with_db(|_| Ok::<_, StoreError>(()))?;
        Ok(store)
    }

    /// Runs `f` on the open database, making the file current first (the tables of a new
    /// file, the migration of an older format: [`format::prepare`]) when this process has
    /// not yet. The first operation passes `create`, which initializes the empty file
    /// [`TradingStore::open_deferred`] made; later ones only open it, so a file removed
    /// behind our back is an error rather than a silently empty store.
    fn with_db<T, E: From<StoreError> + From<LeaseError>>(
        &self,
        f: impl FnOnce(&Database) -> Result<T, E>,
    ) -> Result<T, E> {
        if self.tables_made.load(Ordering::Acquire) {
            return self.lease.with(false, f);
        }
        let out = self.lease.with(self.may_create, |db| {
            format::prepare(db)?;
            f(db)
        })?;
        self.tables_made.store(true, Ordering::Release);
        Ok(out)
    }

    /// How long an operation waits for another process to let go of the file before it
    /// fails with [`StoreError::Busy`].
    /// Records `peer` in each journal entry and approval from now on (the vault's commands).
    pub fn with_peer(mut self, peer: Option<String>) -> TradingStore {
        self.peer = peer;
        self
    }

    pub fn peer(&self) -> Option<&str> {
        self.peer.as_deref()
    }

    pub fn with_lock_timeout(mut self, timeout: Duration) -> TradingStore {
        self.lease.set_lock_timeout(timeout);
        self
    }

    pub fn path(&self) -> &Path {
        self.lease.path()
    }

    pub fn insert_preview(&self, record: &PreviewRecord) -> Result<(), StoreError> {
        let json = encode(record)?;
        self.write_records(|records| {
            records.insert(preview_key(&record.preview_id).as_slice(), json.as_str())
        })
    }

    pub fn preview(&self, preview_id: &str) -> Result<Option<PreviewRecord>, StoreError> {
        self.read_records(|records| {
            let guard = records.get(preview_key(preview_id).as_slice())?;
            guard.map(|json| decode(json.value())).transpose()
        })
    }

    /// One write transaction: checks the preview (in the order of [`ClaimError`]'s variants),
    /// runs `daily_check` against the day's usage, then marks the preview used, counts the
    /// order in the day's usage and appends the intent as a Pending journal entry. Nothing
    /// is written when any check fails.
    pub fn claim_preview(&self, claim: &PreviewClaim<'_>) -> Result<Claimed, ClaimError> {
        self.write_records(|records| {
            let preview_key = preview_key(claim.preview_id);
            let mut preview: PreviewRecord = {
                let guard = records.get(preview_key.as_slice())?;
                match guard {
                    Some(json) => decode(json.value())?,
                    None => return Err(ClaimError::NotFound),
                }
            };
            if preview.environment != claim.environment || preview.profile != claim.profile {
                return Err(ClaimError::OtherEnvironment);
            }
            if preview.account_id_key != claim.account_id_key {
                return Err(ClaimError::OtherAccount);
            }
            if preview.kind != claim.kind {
                return Err(ClaimError::WrongKind);
            }
            if claim.now >= preview.expires_at {
                return Err(ClaimError::Expired);
            }
            if preview.used_at.is_some() || preview.used_by.is_some() {
                return Err(ClaimError::AlreadyUsed);
            }
            if claim.approval_required
                && !crate::trading::approval::approves(preview.approval.as_ref(), &preview)
            {
                return Err(match preview.approval.as_ref().map(|a| a.decision) {
                    Some(crate::trading::approval::Decision::Rejected) => ClaimError::Rejected,
                    _ => ClaimError::NotApproved,
                });
            }

            let key = usage_key(
                claim.environment,
                claim.profile,
                claim.account_id_key,
                claim.trading_day,
            );
            let mut usage = read_usage(records, &key)?;
            (claim.daily_check)(&usage, &preview.summary).map_err(ClaimError::Policy)?;

            let journal_id = append_entry(records, claim.intent)?;
            preview.used_at = Some(claim.now);
            preview.used_by = Some(journal_id);
            let preview_json = encode(&preview)?;
            records.insert(preview_key.as_slice(), preview_json.as_str())?;

            // Saturating: a counter that cannot grow further still enforces its limit, and
            // overflowing on stored values must not panic.
            usage.orders = usage.orders.saturating_add(1);
            usage.notional = usage
                .notional
                .saturating_add(preview.summary.estimated_notional.unwrap_or_default());
            let usage_json = encode(&usage)?;
            records.insert(key.as_slice(), usage_json.as_str())?;

            Ok(Claimed {
                preview,
                journal_id,
            })
        })
    }

    /// Appends a journal entry with `Outcome::Pending`; returns its id (ids increase,
    /// starting at 1).
    pub fn append_intent(&self, intent: &JournalIntent) -> Result<u64, StoreError> {
        self.write_records(|records| append_entry(records, intent))
    }

    pub fn record_outcome(&self, id: u64, outcome: &Outcome) -> Result<(), StoreError> {
        self.update_entry(id, |entry| {
            entry.outcome = outcome.clone();
            true
        })
        .map(|_| ())
    }

    /// Only replaces a Pending outcome; returns whether it did. Used by a drop guard that
    /// marks a cancelled in-flight mutation Uncertain without overwriting a recorded answer.
    pub fn record_outcome_if_pending(
        &self,
        id: u64,
        outcome: &Outcome,
    ) -> Result<bool, StoreError> {
        self.update_entry(id, |entry| {
            if entry.outcome != Outcome::Pending {
                return false;
            }
            entry.outcome = outcome.clone();
            true
        })
    }

    pub fn record_reconciliation(
        &self,
        id: u64,
        reconciliation: &Reconciliation,
    ) -> Result<(), StoreError> {
        self.update_entry(id, |entry| {
            entry.reconciliation = Some(reconciliation.clone());
            true
        })
        .map(|_| ())
    }

    pub fn journal_entry(&self, id: u64) -> Result<Option<JournalEntry>, StoreError> {
        self.read_records(|records| {
            let guard = records.get(journal_key(id).as_slice())?;
            guard.map(|json| decode(json.value())).transpose()
        })
    }

    /// Newest first, only entries of this environment and profile, ids < `before` (when
    /// given), at most `limit` (clamped to 1..=100).
    pub fn journal_page(
        &self,
        environment: &str,
        profile: &str,
        before: Option<u64>,
        limit: usize,
    ) -> Result<JournalPage, StoreError> {
        let limit = limit.clamp(1, MAX_PAGE);
        self.read_records(|records| {
            let before = before.map(journal_key);
            let upper = before
                .as_ref()
                .map_or(Bound::Excluded(NEXT_JOURNAL_ID), |k| {
                    Bound::Excluded(k.as_slice())
                });
            let mut entries = Vec::with_capacity(limit);
            let mut more = false;
            for item in records.range_rev((Bound::Excluded(JOURNAL_START), upper))? {
                let (_, json) = item?;
                let entry: JournalEntry = decode(json.value())?;
                if entry.intent.environment != environment || entry.intent.profile != profile {
                    continue;
                }
                // Looking one matching entry past the page tells whether there is a next page.
                if entries.len() == limit {
                    more = true;
                    break;
                }
                entries.push(entry);
            }
            let next_before = if more {
                entries.last().map(|e| e.id)
            } else {
                None
            };
            Ok(JournalPage {
                entries,
                next_before,
            })
        })
    }

    /// Entries of this environment/profile whose outcome is Uncertain and that have no
    /// reconciliation yet, oldest first.
    pub fn needing_reconciliation(
        &self,
        environment: &str,
        profile: &str,
    ) -> Result<Vec<JournalEntry>, StoreError> {
        self.read_records(|records| {
            let mut found = Vec::new();
            for item in records.range((
                Bound::Included(JOURNAL_START),
                Bound::Excluded(NEXT_JOURNAL_ID),
            ))? {
                let (_, json) = item?;
                let entry: JournalEntry = decode(json.value())?;
                if entry.intent.environment == environment
                    && entry.intent.profile == profile
                    && matches!(entry.outcome, Outcome::Uncertain { .. })
                    && entry.reconciliation.is_none()
                {
                    found.push(entry);
                }
            }
            Ok(found)
        })
    }

    pub fn daily_usage(
        &self,
        environment: &str,
        profile: &str,
        account_id_key: &str,
        day: jiff::civil::Date,
    ) -> Result<DailyUsage, StoreError> {
        let key = usage_key(environment, profile, account_id_key, day);
        self.read_records(|records| read_usage(records, &key))
    }

    /// Housekeeping: deletes previews that expired before `cutoff` and were never used;
    /// returns how many. Used previews stay, as the journal refers to them.
    pub fn purge_expired_previews(&self, cutoff: jiff::Timestamp) -> Result<usize, StoreError> {
        self.write_records(|records| {
            let mut stale = Vec::new();
            for item in
                records.range((Bound::Included(PREVIEW_START), Bound::Excluded(PREVIEW_END)))?
            {
                let (key, json) = item?;
                let record: PreviewRecord = decode(json.value())?;
                if record.expires_at < cutoff
                    && record.used_at.is_none()
                    && record.used_by.is_none()
                {
                    stale.push(key.value().to_owned());
                }
            }
            for key in &stale {
                records.remove(key.as_slice())?;
            }
            Ok(stale.len())
        })
    }

    /// Rewrites one journal entry when `change` returns true; returns what it returned.
    fn update_entry(
        &self,
        id: u64,
        change: impl FnOnce(&mut JournalEntry) -> bool,
    ) -> Result<bool, StoreError> {
        self.write_records(|records| {
            let key = journal_key(id);
            let mut entry: JournalEntry = {
                let guard = records.get(key.as_slice())?;
                match guard {
                    Some(json) => decode(json.value())?,
                    // Ids come from append_intent/claim_preview, so a missing one is a caller
                    // bug; it is reported rather than silently creating an entry.
                    None => {
                        return Err(StoreError::Database(format!(
                            "journal entry {id} does not exist"
                        )));
                    }
                }
            };
            if !change(&mut entry) {
                return Ok(false);
            }
            let json = encode(&entry)?;
            records.insert(key.as_slice(), json.as_str())?;
            Ok(true)
        })
    }

    /// Runs `f` in one write transaction, committing when it returns Ok and aborting (so
    /// nothing is written) when it returns Err.
    fn write<T, E: From<StoreError> + From<LeaseError>>(
        &self,
        f: impl FnOnce(&WriteTransaction) -> Result<T, E>,
    ) -> Result<T, E> {
        self.with_db(|db| {
            let txn = db.begin_write().db()?;
            match f(&txn) {
                Ok(value) => {
                    txn.commit().db()?;
                    Ok(value)
                }
                Err(err) => {
                    // The caller's error is the one worth reporting; an abort failure leaves
                    // nothing committed either way.
                    let _ = txn.abort();
                    Err(err)
                }
            }
        })
    }

    /// [`TradingStore::write`] on the records, settling the recent ones when the write
    /// leaves too many.
    fn write_records<T, E: From<StoreError> + From<LeaseError>>(
        &self,
        f: impl FnOnce(&mut WriteRecords<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        self.write(|txn| {
            let mut records = Records::write(txn)?;
            let value = f(&mut records)?;
            records.settle_past(self.recent_limit)?;
            Ok(value)
        })
    }

    fn read<T>(
        &self,
        f: impl FnOnce(&ReadTransaction) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.with_db(|db| f(&db.begin_read().db()?))
    }

    fn read_records<T>(
        &self,
        f: impl FnOnce(&ReadRecords) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.read(|txn| f(&Records::read(txn)?))
    }
}

/// Creates an empty file readable only by its owner (it holds account ids), or leaves an
/// existing one as it is.
fn create_private_file(path: &Path) -> Result<(), StoreError> {
    crate::platform::create_private_file(path).map_err(database)
}

/// Appends `intent` as a Pending entry to the records; returns the new id.
fn append_entry(records: &mut WriteRecords<'_>, intent: &JournalIntent) -> Result<u64, StoreError> {
    let id: u64 = match records.get(NEXT_JOURNAL_ID)? {
        Some(next) => next.value().parse().map_err(|_| StoreError::Corrupt)?,
        None => 1,
    };
    let next = id.checked_add(1).ok_or(StoreError::Corrupt)?;
    let key = journal_key(id);
    // A counter behind the stored ids would overwrite history; treat it as corruption.
    if records.get(key.as_slice())?.is_some() {
        return Err(StoreError::Corrupt);
    }
    let entry = JournalEntry {
        id,
        intent: intent.clone(),
        outcome: Outcome::Pending,
        reconciliation: None,
        approval: None,
    };
    let json = encode(&entry)?;
    records.insert(key.as_slice(), json.as_str())?;
    records.insert(NEXT_JOURNAL_ID, next.to_string().as_str())?;
    Ok(id)
}

fn read_usage<T: ReadableTable<&'static [u8], &'static str>>(
    records: &Records<T>,
    key: &[u8],
) -> Result<DailyUsage, StoreError> {
    match records.get(key)? {
        Some(json) => decode(json.value()),
        None => Ok(DailyUsage::default()),
    }
}

fn encode<T: Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value)
        .map_err(|err| database(format!("a record could not be encoded: {err}")))
}

/// The serde error is dropped: its text can quote the stored record.
fn decode<T: DeserializeOwned>(json: &str) -> Result<T, StoreError> {
    serde_json::from_str(json).map_err(|_| StoreError::Corrupt)
}

fn database(err: impl Display) -> StoreError {
    StoreError::Database(err.to_string())
}

impl From<LeaseError> for StoreError {
    fn from(err: LeaseError) -> StoreError {
        match err {
            LeaseError::Busy => StoreError::Busy,
            LeaseError::Open(text) => StoreError::Database(text),
        }
    }
}

impl From<LeaseError> for ClaimError {
    fn from(err: LeaseError) -> ClaimError {
        ClaimError::Store(err.into())
    }
}

impl From<LeaseError> for ApprovalError {
    fn from(err: LeaseError) -> ApprovalError {
        ApprovalError::Store(err.into())
    }
}

/// `.db()?` turns any redb error into a [`StoreError`], in functions returning either
/// `StoreError` or `ClaimError`.
trait IntoStore<T> {
    fn db(self) -> Result<T, StoreError>;
}

impl<T, E: Display> IntoStore<T> for Result<T, E> {
    fn db(self) -> Result<T, StoreError> {
        self.map_err(database)
    }
}

#[cfg(test)]
mod tests {
    use crate::etrade::vocabulary::*;
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    use std::sync::{Arc, Mutex};
    use std::thread;
    use std::time::Instant;

    use jiff::Timestamp;
    use jiff::civil::{Date, date};
    use redb::{Database, DatabaseError};
    use rust_decimal::Decimal;

    use super::*;
    use crate::store_lease::open_when_released;
    use crate::trading::approval::{Channel, Decision};
    use crate::trading::types::{LegSummary, MutationKind, ReconcileStatus};

    const DAY: Date = date(2025, 3, 14);

    fn at(second: i64) -> Timestamp {
        Timestamp::from_second(1_741_950_000 + second).unwrap()
    }

    /// A store that settles its records after every second write, so that the tests' reads
    /// find them in both tables.
    fn temp_store() -> (tempfile::TempDir, TradingStore) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = TradingStore::open(dir.path().join("state").join("trading.redb")).unwrap();
        store.recent_limit = 2;
        (dir, store)
    }

    fn summary(notional: Option<i64>) -> OrderSummary {
        OrderSummary {
            order_type: OrderType::Equity,
            price_type: PriceType::Limit,
            order_term: OrderTerm::GoodForDay,
            market_session: MarketSession::Regular,
            limit_price: Some(Decimal::new(10, 0)),
            stop_price: None,
            all_or_none: false,
            legs: vec![LegSummary {
                symbol: "IBM".into(),
                security_type: SecurityType::Equity,
                order_action: OrderAction::Buy,
                quantity: Decimal::new(5, 0),
                call_put: None,
                expiration: None,
                strike_price: None,
            }],
            estimated_notional: notional.map(|n| Decimal::new(n, 0)),
        }
    }

    fn preview(id: &str, kind: PreviewKind) -> PreviewRecord {
        PreviewRecord {
            preview_id: id.into(),
            kind,
            environment: "sandbox".into(),
            profile: "default".into(),
            account_id_key: "acct".into(),
            order_fields: r#""orderType":"EQ","clientOrderId":"c1","Order":[]"#.into(),
            broker_preview_ids: vec![],
            arguments_hash: "00".into(),
            client_order_id: "c1".into(),
            summary: summary(Some(50)),
            created_at: at(0),
            expires_at: at(180),
            used_at: None,
            used_by: None,
            journal_id: None,
            approval: None,
            context: Default::default(),
        }
    }

    fn intent(environment: &str, kind: MutationKind) -> JournalIntent {
        JournalIntent {
            kind,
            environment: environment.into(),
            profile: "default".into(),
            account_id_key: Some("acct".into()),
            preview_id: None,
            client_order_id: None,
            target_order_id: None,
            alert_ids: vec![],
            summary: None,
            intent_at: at(1),
            peer: None,
        }
    }

    fn allow(_: &DailyUsage, _: &OrderSummary) -> Result<(), PolicyRefusal> {
        Ok(())
    }

    fn at_most_three(usage: &DailyUsage, _: &OrderSummary) -> Result<(), PolicyRefusal> {
        if usage.orders < 3 {
            Ok(())
        } else {
            Err(PolicyRefusal {
                rule: "max_daily_orders",
                message: "max_daily_orders is reached for today.".into(),
            })
        }
    }

    fn claim<'a>(
        preview_id: &'a str,
        intent: &'a JournalIntent,
        check: &'a (dyn Fn(&DailyUsage, &OrderSummary) -> Result<(), PolicyRefusal> + Sync),
    ) -> PreviewClaim<'a> {
        PreviewClaim {
            preview_id,
            environment: "sandbox",
            profile: "default",
            account_id_key: "acct",
            kind: PreviewKind::New,
            now: at(10),
            trading_day: DAY,
            daily_check: check,
            intent,
            approval_required: false,
        }
    }

    fn usage(store: &TradingStore) -> DailyUsage {
        store
            .daily_usage("sandbox", "default", "acct", DAY)
            .unwrap()
    }

    fn uncertain() -> Outcome {
        Outcome::Uncertain {
            at: at(20),
            reason: "timed out".into(),
        }
    }

    #[test]
    fn preview_round_trip_and_private_file() {
        let (_dir, store) = temp_store();
        assert_eq!(store.preview("p1").unwrap(), None);
        let record = preview("p1", PreviewKind::Change { order_id: 7 });
        store.insert_preview(&record).unwrap();
        assert_eq!(store.preview("p1").unwrap(), Some(record));

        if cfg!(unix) {
            assert_eq!(crate::platform::permission_bits(store.path()), Some(0o600));
        }
        // Reopening an existing store keeps its contents.
        let again = TradingStore::open(store.path()).unwrap();
        assert!(again.preview("p1").unwrap().is_some());
    }

    #[test]
    fn journal_round_trip() {
        let (_dir, store) = temp_store();
        let first = store
            .append_intent(&intent("sandbox", MutationKind::CancelOrder))
            .unwrap();
        let second = store
            .append_intent(&intent("sandbox", MutationKind::DeleteAlerts))
            .unwrap();
        assert_eq!((first, second), (1, 2));
        assert_eq!(store.journal_entry(3).unwrap(), None);

        let outcome = Outcome::Succeeded {
            at: at(5),
            order_id: Some(42),
            deleted_alert_ids: vec![],
        };
        store.record_outcome(first, &outcome).unwrap();
        let reconciliation = Reconciliation {
            status: ReconcileStatus::Found,
            at: at(6),
            order_id: Some(42),
            order_status: Some("CANCELLED".into()),
            note: None,
        };
        store.record_reconciliation(first, &reconciliation).unwrap();
        let entry = store.journal_entry(first).unwrap().unwrap();
        assert_eq!(entry.outcome, outcome);
        assert_eq!(entry.reconciliation, Some(reconciliation));
        assert_eq!(entry.intent.kind, MutationKind::CancelOrder);
        assert_eq!(
            store.journal_entry(second).unwrap().unwrap().outcome,
            Outcome::Pending
        );

        assert!(matches!(
            store.record_outcome(99, &outcome),
            Err(StoreError::Database(_))
        ));
    }

    #[test]
    fn record_outcome_if_pending_keeps_a_recorded_answer() {
        let (_dir, store) = temp_store();
        let id = store
            .append_intent(&intent("sandbox", MutationKind::PlaceOrder))
            .unwrap();
        assert!(store.record_outcome_if_pending(id, &uncertain()).unwrap());
        assert_eq!(
            store.journal_entry(id).unwrap().unwrap().outcome,
            uncertain()
        );

        let id = store
            .append_intent(&intent("sandbox", MutationKind::PlaceOrder))
            .unwrap();
        let failed = Outcome::Failed {
            at: at(3),
            code: "100".into(),
            failed_alert_ids: vec![],
            deleted_alert_ids: vec![],
        };
        store.record_outcome(id, &failed).unwrap();
        assert!(!store.record_outcome_if_pending(id, &uncertain()).unwrap());
        assert_eq!(store.journal_entry(id).unwrap().unwrap().outcome, failed);
    }

    #[test]
    fn claim_marks_used_counts_usage_and_journals() {
        let (_dir, store) = temp_store();
        store
            .insert_preview(&preview("p1", PreviewKind::New))
            .unwrap();
        let intent = intent("sandbox", MutationKind::PlaceOrder);
        let claimed = store.claim_preview(&claim("p1", &intent, &allow)).unwrap();

        assert_eq!(claimed.journal_id, 1);
        assert_eq!(claimed.preview.used_at, Some(at(10)));
        assert_eq!(claimed.preview.used_by, Some(1));
        assert_eq!(store.preview("p1").unwrap(), Some(claimed.preview));
        let entry = store.journal_entry(1).unwrap().unwrap();
        assert_eq!((entry.intent, entry.outcome), (intent, Outcome::Pending));
        assert_eq!(
            usage(&store),
            DailyUsage {
                orders: 1,
                notional: Decimal::new(50, 0)
            }
        );
        // Other days and accounts have their own counters.
        assert_eq!(
            store
                .daily_usage("sandbox", "default", "acct", date(2025, 3, 13))
                .unwrap(),
            DailyUsage::default()
        );
        assert_eq!(
            store
                .daily_usage("sandbox", "default", "other", DAY)
                .unwrap(),
            DailyUsage::default()
        );
    }

    #[test]
    fn daily_check_sees_usage_before_increment() {
        let (_dir, store) = temp_store();
        let mut record = preview("p1", PreviewKind::New);
        record.summary.estimated_notional = None;
        store.insert_preview(&record).unwrap();
        store
            .insert_preview(&preview("p2", PreviewKind::New))
            .unwrap();
        let intent = intent("sandbox", MutationKind::PlaceOrder);

        let seen = Mutex::new(Vec::new());
        let check = |u: &DailyUsage, _: &OrderSummary| {
            seen.lock().unwrap().push(u.clone());
            Ok(())
        };
        store.claim_preview(&claim("p1", &intent, &check)).unwrap();
        store.claim_preview(&claim("p2", &intent, &check)).unwrap();
        let seen = seen.into_inner().unwrap();
        assert_eq!(
            seen,
            vec![
                DailyUsage::default(),
                // No notional estimate counts as 0.
                DailyUsage {
                    orders: 1,
                    notional: Decimal::ZERO
                }
            ]
        );
        assert_eq!(
            usage(&store),
            DailyUsage {
                orders: 2,
                notional: Decimal::new(50, 0)
            }
        );
    }

    #[test]
    fn every_failed_claim_writes_nothing() {
        let (_dir, store) = temp_store();
        let mut used = preview("used", PreviewKind::New);
        used.used_at = Some(at(2));
        used.used_by = Some(77);
        let previews = [
            preview("new", PreviewKind::New),
            preview("change", PreviewKind::Change { order_id: 7 }),
            used,
        ];
        for record in &previews {
            store.insert_preview(record).unwrap();
        }
        let intent = intent("sandbox", MutationKind::PlaceOrder);
        let refuse = |_: &DailyUsage, _: &OrderSummary| {
            Err(PolicyRefusal {
                rule: "max_daily_notional",
                message: "max_daily_notional would be exceeded.".into(),
            })
        };

        let base = || claim("new", &intent, &allow);
        type Expected = fn(&ClaimError) -> bool;
        let cases: Vec<(PreviewClaim<'_>, Expected)> = vec![
            (
                PreviewClaim {
                    preview_id: "missing",
                    ..base()
                },
                |e| matches!(e, ClaimError::NotFound),
            ),
            (
                PreviewClaim {
                    environment: "live",
                    ..base()
                },
                |e| matches!(e, ClaimError::OtherEnvironment),
            ),
            (
                PreviewClaim {
                    profile: "other",
                    ..base()
                },
                |e| matches!(e, ClaimError::OtherEnvironment),
            ),
            (
                PreviewClaim {
                    account_id_key: "other",
                    ..base()
                },
                |e| matches!(e, ClaimError::OtherAccount),
            ),
            (
                PreviewClaim {
                    kind: PreviewKind::Change { order_id: 7 },
                    ..base()
                },
                |e| matches!(e, ClaimError::WrongKind),
            ),
            (
                PreviewClaim {
                    preview_id: "change",
                    kind: PreviewKind::Change { order_id: 8 },
                    ..base()
                },
                |e| matches!(e, ClaimError::WrongKind),
            ),
            (
                PreviewClaim {
                    now: at(180),
                    ..base()
                },
                |e| matches!(e, ClaimError::Expired),
            ),
            (
                PreviewClaim {
                    preview_id: "used",
                    ..base()
                },
                |e| matches!(e, ClaimError::AlreadyUsed),
            ),
            (
                PreviewClaim {
                    daily_check: &refuse,
                    ..base()
                },
                |e| matches!(e, ClaimError::Policy(r) if r.rule == "max_daily_notional"),
            ),
        ];
        for (claim, expected) in &cases {
            let err = store.claim_preview(claim).unwrap_err();
            assert!(expected(&err), "{} gave {err:?}", claim.preview_id);
        }

        for record in &previews {
            assert_eq!(
                store.preview(&record.preview_id).unwrap().as_ref(),
                Some(record)
            );
        }
        assert_eq!(usage(&store), DailyUsage::default());
        assert_eq!(store.journal_entry(1).unwrap(), None);
        // The ids of failed claims were not consumed either.
        assert_eq!(store.append_intent(&intent).unwrap(), 1);

        // A change preview is claimed with its own order id; a second claim is refused.
        let change = PreviewClaim {
            preview_id: "change",
            kind: PreviewKind::Change { order_id: 7 },
            ..base()
        };
        assert_eq!(store.claim_preview(&change).unwrap().journal_id, 2);
        assert!(matches!(
            store.claim_preview(&change),
            Err(ClaimError::AlreadyUsed)
        ));
        assert_eq!(
            ClaimError::Policy(PolicyRefusal {
                rule: "r",
                message: "Rule r says no.".into()
            })
            .to_string(),
            "Rule r says no."
        );
    }

    #[test]
    fn concurrent_claims_respect_the_daily_limit() {
        let (_dir, store) = temp_store();
        // Half the threads share a store, half open their own, as other processes would.
        let shared = Arc::new(store);
        let intent = intent("sandbox", MutationKind::PlaceOrder);
        for i in 0..8 {
            shared
                .insert_preview(&preview(&format!("p{i}"), PreviewKind::New))
                .unwrap();
        }
        let ok = AtomicU32::new(0);
        let refused = AtomicU32::new(0);
        thread::scope(|s| {
            for i in 0..8 {
                let (shared, intent, ok, refused) = (&shared, &intent, &ok, &refused);
                s.spawn(move || {
                    let own;
                    let store = if i % 2 == 0 {
                        &**shared
                    } else {
                        own = TradingStore::open(shared.path()).unwrap();
                        &own
                    };
                    let id = format!("p{i}");
                    match store.claim_preview(&claim(&id, intent, &at_most_three)) {
                        Ok(_) => ok.fetch_add(1, Ordering::SeqCst),
                        Err(ClaimError::Policy(_)) => refused.fetch_add(1, Ordering::SeqCst),
                        Err(other) => panic!("unexpected {other:?}"),
                    };
                });
            }
        });
        assert_eq!((ok.into_inner(), refused.into_inner()), (3, 5));
        assert_eq!(usage(&shared).orders, 3);
        let page = shared
            .journal_page("sandbox", "default", None, 100)
            .unwrap();
        assert_eq!(page.entries.len(), 3);
    }

    #[test]
    fn a_preview_is_claimed_once_under_concurrency() {
        let (_dir, store) = temp_store();
        store
            .insert_preview(&preview("p1", PreviewKind::New))
            .unwrap();
        let intent = intent("sandbox", MutationKind::PlaceOrder);
        let ok = AtomicU32::new(0);
        thread::scope(|s| {
            for i in 0..8 {
                let (store, intent, ok) = (&store, &intent, &ok);
                s.spawn(move || {
                    let own;
                    let store = if i % 2 == 0 {
                        store
                    } else {
                        own = TradingStore::open(store.path()).unwrap();
                        &own
                    };
                    match store.claim_preview(&claim("p1", intent, &allow)) {
                        Ok(_) => {
                            ok.fetch_add(1, Ordering::SeqCst);
                        }
                        Err(ClaimError::AlreadyUsed) => {}
                        Err(other) => panic!("unexpected {other:?}"),
                    }
                });
            }
        });
        assert_eq!(ok.into_inner(), 1);
        assert_eq!(usage(&store).orders, 1);
    }

    #[test]
    fn two_stores_on_one_file_interleave() {
        let (_dir, a) = temp_store();
        let b = TradingStore::open(a.path()).unwrap();
        a.insert_preview(&preview("p1", PreviewKind::New)).unwrap();
        assert!(b.preview("p1").unwrap().is_some());
        let cancel = intent("sandbox", MutationKind::CancelOrder);
        assert_eq!(b.append_intent(&cancel).unwrap(), 1);
        assert_eq!(a.append_intent(&cancel).unwrap(), 2);
        b.record_outcome(2, &uncertain()).unwrap();
        assert_eq!(a.journal_entry(2).unwrap().unwrap().outcome, uncertain());

        // Run both at once, so each finds the file open by the other and retries.
        thread::scope(|s| {
            for store in [&a, &b] {
                let cancel = &cancel;
                s.spawn(move || {
                    for _ in 0..20 {
                        store.append_intent(cancel).unwrap();
                        store.journal_page("sandbox", "default", None, 5).unwrap();
                    }
                });
            }
        });
        let mut ids = Vec::new();
        let mut before = None;
        loop {
            let page = a.journal_page("sandbox", "default", before, 100).unwrap();
            ids.extend(page.entries.iter().map(|e| e.id));
            match page.next_before {
                Some(next) => before = Some(next),
                None => break,
            }
        }
        assert_eq!(ids, (1..=42).rev().collect::<Vec<u64>>());
    }

    fn is_held(path: &Path) -> bool {
        matches!(
            Database::open(path),
            Err(DatabaseError::DatabaseAlreadyOpen)
        )
    }

    #[test]
    fn busy_when_another_handle_keeps_the_file_open() {
        let (_dir, store) = temp_store();
        let store = store.with_lock_timeout(Duration::from_millis(100));
        let held = open_when_released(store.path());
        let started = Instant::now();
        assert!(matches!(store.preview("p1"), Err(StoreError::Busy)));
        assert!(matches!(
            store.append_intent(&intent("sandbox", MutationKind::CancelOrder)),
            Err(StoreError::Busy)
        ));
        assert!(started.elapsed() >= Duration::from_millis(200));
        drop(held);
        assert_eq!(store.preview("p1").unwrap(), None);
    }

    /// The premise of the lease: redb refuses a second handle on a file even within one
    /// process, so two stores in one process contend like two processes do.
    #[test]
    fn a_second_handle_in_one_process_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.redb");
        let first = Database::create(&path).unwrap();
        assert!(is_held(&path));
        drop(first);
        assert!(!is_held(&path));
    }

    #[test]
    fn the_handle_is_kept_while_busy_and_released_when_idle() {
        let (_dir, store) = temp_store();
        store
            .insert_preview(&preview("p1", PreviewKind::New))
            .unwrap();
        let used = Instant::now();
        // Right after an operation the store still has the file (unless this thread was
        // descheduled past the idle window, which a loaded machine can do).
        let held = is_held(store.path());
        assert!(held || used.elapsed() >= crate::store_lease::IDLE_WINDOW);
        let plain = open_when_released(store.path());
        assert!(used.elapsed() >= crate::store_lease::IDLE_WINDOW);
        drop(plain);
        // Opened again on demand.
        assert!(store.preview("p1").unwrap().is_some());
    }

    #[test]
    fn drop_releases_the_handle_at_once() {
        let (_dir, store) = temp_store();
        store
            .append_intent(&intent("sandbox", MutationKind::CancelOrder))
            .unwrap();
        let path = store.path().to_owned();
        drop(store);
        assert!(!is_held(&path));
    }

    #[test]
    fn a_failed_or_panicking_operation_closes_the_handle() {
        let (_dir, store) = temp_store();
        assert!(matches!(
            store.claim_preview(&claim(
                "missing",
                &intent("sandbox", MutationKind::PlaceOrder),
                &allow
            )),
            Err(ClaimError::NotFound)
        ));
        assert!(!is_held(store.path()), "closed after the refusal");

        let panicked = catch_unwind(AssertUnwindSafe(|| {
            store.write(|txn| -> Result<(), StoreError> {
                txn.open_table(format::SETTLED).db()?;
                panic!("an operation panics mid-transaction");
            })
        }));
        assert!(panicked.is_err());
        assert!(!is_held(store.path()), "closed while unwinding");
        // Nothing is wedged: the next operations open the file again and work.
        let id = store
            .append_intent(&intent("sandbox", MutationKind::CancelOrder))
            .unwrap();
        assert!(store.journal_entry(id).unwrap().is_some());
        drop(open_when_released(store.path()));
    }

    /// A process that never pauses must not keep another one out past its lock timeout.
    #[test]
    fn a_store_in_constant_use_hands_the_file_over() {
        let (_dir, busy) = temp_store();
        let other = TradingStore::open(busy.path())
            .unwrap()
            .with_lock_timeout(Duration::from_secs(3));
        drop(open_when_released(busy.path()));
        let stop = AtomicBool::new(false);
        thread::scope(|s| {
            s.spawn(|| {
                while !stop.load(Ordering::SeqCst) {
                    busy.journal_page("sandbox", "default", None, 5).unwrap();
                }
            });
            // Wait until the busy store has the file (a probe that gets it lets go at once).
            while !is_held(busy.path()) {
                thread::sleep(Duration::from_millis(1));
            }
            let waited = Instant::now();
            let result = other.append_intent(&intent("sandbox", MutationKind::CancelOrder));
            stop.store(true, Ordering::SeqCst);
            assert_eq!(result.unwrap(), 1, "waited {:?}", waited.elapsed());
        });
        assert_eq!(busy.journal_entry(1).unwrap().map(|e| e.id), Some(1));
    }

    /// Each store sees the other's writes: one can only write once the other let go of the
    /// file, and the other then opens it again and reads what is on disk.
    #[test]
    fn reads_after_a_hand_off_see_the_other_stores_writes() {
        let (_dir, a) = temp_store();
        let b = TradingStore::open(a.path()).unwrap();
        let cancel = intent("sandbox", MutationKind::CancelOrder);
        for round in 0..3 {
            let from_a = a.append_intent(&cancel).unwrap();
            assert!(a.journal_entry(from_a).unwrap().is_some());
            assert!(b.journal_entry(from_a).unwrap().is_some(), "round {round}");
            let from_b = b.append_intent(&cancel).unwrap();
            assert_eq!(from_b, from_a + 1);
            assert!(a.journal_entry(from_b).unwrap().is_some(), "round {round}");
        }
    }

    #[test]
    fn journal_pages_newest_first_per_environment() {
        let (_dir, store) = temp_store();
        let mut sandbox_ids = Vec::new();
        for i in 0..250 {
            // Every third entry belongs to live, and every fifth of the rest to another profile.
            let mut entry = intent(
                if i % 3 == 0 { "live" } else { "sandbox" },
                MutationKind::CancelOrder,
            );
            if i % 5 == 0 {
                entry.profile = "other".into();
            }
            let id = store.append_intent(&entry).unwrap();
            if entry.environment == "sandbox" && entry.profile == "default" {
                sandbox_ids.push(id);
            }
        }
        sandbox_ids.reverse();

        let mut seen = Vec::new();
        let mut before = None;
        let mut pages = 0;
        loop {
            let page = store
                .journal_page("sandbox", "default", before, 50)
                .unwrap();
            assert!(page.entries.len() <= 50);
            assert!(
                page.entries
                    .iter()
                    .all(|e| e.intent.environment == "sandbox" && e.intent.profile == "default")
            );
            seen.extend(page.entries.iter().map(|e| e.id));
            pages += 1;
            match page.next_before {
                Some(next) => before = Some(next),
                None => break,
            }
        }
        assert_eq!(seen, sandbox_ids);
        assert_eq!(pages, sandbox_ids.len().div_ceil(50));

        // The limit is clamped to 1..=100.
        assert_eq!(
            store
                .journal_page("sandbox", "default", None, 0)
                .unwrap()
                .entries
                .len(),
            1
        );
        assert_eq!(
            store
                .journal_page("live", "default", None, 1000)
                .unwrap()
                .entries
                .len(),
            67
        );
        // The oldest live/default entries are ids 4 and 7 (id 1 is live/other): a page that
        // ends exactly on them is the last one.
        let last = store.journal_page("live", "default", Some(8), 2).unwrap();
        assert_eq!(
            last.entries.iter().map(|e| e.id).collect::<Vec<_>>(),
            vec![7, 4]
        );
        assert_eq!(last.next_before, None);
        assert_eq!(
            store.journal_page("paper", "default", None, 10).unwrap(),
            JournalPage {
                entries: vec![],
                next_before: None
            }
        );
    }

    #[test]
    fn needing_reconciliation_lists_unreconciled_uncertain_entries() {
        let (_dir, store) = temp_store();
        let sandbox = intent("sandbox", MutationKind::PlaceOrder);
        let ids: Vec<u64> = (0..4)
            .map(|_| store.append_intent(&sandbox).unwrap())
            .collect();
        let live = store
            .append_intent(&intent("live", MutationKind::PlaceOrder))
            .unwrap();
        for id in [ids[0], ids[1], ids[3], live] {
            store.record_outcome(id, &uncertain()).unwrap();
        }
        store
            .record_reconciliation(
                ids[1],
                &Reconciliation {
                    status: ReconcileStatus::NotFound,
                    at: at(30),
                    order_id: None,
                    order_status: None,
                    note: None,
                },
            )
            .unwrap();
        let found = store.needing_reconciliation("sandbox", "default").unwrap();
        assert_eq!(
            found.iter().map(|e| e.id).collect::<Vec<_>>(),
            vec![ids[0], ids[3]]
        );
        assert_eq!(
            store
                .needing_reconciliation("live", "default")
                .unwrap()
                .len(),
            1
        );
        assert!(
            store
                .needing_reconciliation("sandbox", "other")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn purge_removes_only_unused_expired_previews() {
        let (_dir, store) = temp_store();
        let mut old = preview("old", PreviewKind::New);
        old.expires_at = at(100);
        let mut old_used = preview("old-used", PreviewKind::New);
        old_used.expires_at = at(100);
        old_used.used_at = Some(at(50));
        old_used.used_by = Some(1);
        let mut fresh = preview("fresh", PreviewKind::New);
        fresh.expires_at = at(500);
        for record in [&old, &old_used, &fresh] {
            store.insert_preview(record).unwrap();
        }
        assert_eq!(store.purge_expired_previews(at(100)).unwrap(), 0);
        assert_eq!(store.purge_expired_previews(at(200)).unwrap(), 1);
        assert_eq!(store.preview("old").unwrap(), None);
        assert!(store.preview("old-used").unwrap().is_some());
        assert!(store.preview("fresh").unwrap().is_some());
        assert_eq!(store.purge_expired_previews(at(200)).unwrap(), 0);
    }

    #[test]
    fn a_corrupt_record_is_an_error() {
        let (_dir, store) = temp_store();
        {
            let db = open_when_released(store.path());
            let txn = db.begin_write().unwrap();
            // One in each table: every reader sees both.
            let mut recent = txn.open_table(format::RECENT).unwrap();
            recent
                .insert(preview_key("bad").as_slice(), "{not json")
                .unwrap();
            drop(recent);
            let mut settled = txn.open_table(format::SETTLED).unwrap();
            settled.insert(journal_key(1).as_slice(), "[]").unwrap();
            drop(settled);
            txn.commit().unwrap();
        }
        assert!(matches!(store.preview("bad"), Err(StoreError::Corrupt)));
        assert!(matches!(store.journal_entry(1), Err(StoreError::Corrupt)));
        assert!(matches!(
            store.journal_page("sandbox", "default", None, 10),
            Err(StoreError::Corrupt)
        ));
        let intent = intent("sandbox", MutationKind::PlaceOrder);
        assert!(matches!(
            store.claim_preview(&claim("bad", &intent, &allow)),
            Err(ClaimError::Store(StoreError::Corrupt))
        ));
        // The stale counter would overwrite entry 1; it is refused instead.
        assert!(matches!(
            store.append_intent(&intent),
            Err(StoreError::Corrupt)
        ));
    }

    fn decide(
        store: &TradingStore,
        id: &str,
        decision: Decision,
    ) -> Result<PreviewRecord, ApprovalError> {
        store.record_decision(&DecisionFor {
            preview_id: id,
            environment: "sandbox",
            profile: "default",
            decision,
            channel: Channel::Terminal,
            now: at(5),
        })
    }

    #[test]
    fn an_approval_is_bound_to_its_preview_and_used_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = TradingStore::open(dir.path().join("t.redb")).unwrap();
        let journal_id = store
            .append_intent(&intent("sandbox", MutationKind::PreviewOrder))
            .unwrap();
        let mut a = preview("A", PreviewKind::New);
        a.journal_id = Some(journal_id);
        store.insert_preview(&a).unwrap();
        store
            .insert_preview(&preview("B", PreviewKind::New))
            .unwrap();
        let place = intent("sandbox", MutationKind::PlaceOrder);
        let required = |id: &'static str| PreviewClaim {
            approval_required: true,
            ..claim(id, &place, &allow)
        };

        assert!(matches!(
            store.claim_preview(&required("A")),
            Err(ClaimError::NotApproved)
        ));
        let waiting: Vec<String> = store
            .awaiting_decision("sandbox", "default", at(5))
            .unwrap()
            .into_iter()
            .map(|p| p.preview_id)
            .collect();
        assert_eq!(waiting, ["A", "B"]);

        let approved = decide(&store, "A", Decision::Approved).unwrap();
        assert_eq!(
            approved.approval.as_ref().map(|r| r.decision),
            Some(Decision::Approved)
        );
        let entry = store.journal_entry(journal_id).unwrap().unwrap();
        assert_eq!(entry.approval.map(|r| r.channel), Some(Channel::Terminal));
        assert!(matches!(
            decide(&store, "A", Decision::Rejected),
            Err(ApprovalError::AlreadyDecided(Decision::Approved))
        ));
        // A's approval lets nothing else through.
        assert!(matches!(
            store.claim_preview(&required("B")),
            Err(ClaimError::NotApproved)
        ));
        store.claim_preview(&required("A")).unwrap();
        assert!(matches!(
            store.claim_preview(&required("A")),
            Err(ClaimError::AlreadyUsed)
        ));
        assert!(matches!(
            decide(&store, "A", Decision::Approved),
            Err(ApprovalError::AlreadyUsed)
        ));

        decide(&store, "B", Decision::Rejected).unwrap();
        assert!(matches!(
            store.claim_preview(&required("B")),
            Err(ClaimError::Rejected)
        ));
        assert!(
            store
                .awaiting_decision("sandbox", "default", at(5))
                .unwrap()
                .is_empty()
        );
        assert!(matches!(
            decide(&store, "missing", Decision::Approved),
            Err(ApprovalError::NotFound)
        ));
    }

    #[test]
    fn an_expired_or_foreign_preview_cannot_be_decided() {
        let dir = tempfile::tempdir().unwrap();
        let store = TradingStore::open(dir.path().join("t.redb")).unwrap();
        store
            .insert_preview(&preview("A", PreviewKind::New))
            .unwrap();
        let late = store.record_decision(&DecisionFor {
            preview_id: "A",
            environment: "sandbox",
            profile: "default",
            decision: Decision::Approved,
            channel: Channel::Page,
            now: at(180),
        });
        assert!(matches!(late, Err(ApprovalError::Expired)));
        let foreign = store.record_decision(&DecisionFor {
            preview_id: "A",
            environment: "production",
            profile: "default",
            decision: Decision::Approved,
            channel: Channel::Page,
            now: at(5),
        });
        assert!(matches!(foreign, Err(ApprovalError::OtherEnvironment)));
        assert!(store.preview("A").unwrap().unwrap().approval.is_none());
    }

    /// The store's records in each table: (recent, settled).
    fn table_sizes(store: &TradingStore) -> (u64, u64) {
        use redb::ReadableTableMetadata;
        store
            .read(|txn| {
                let recent = txn.open_table(format::RECENT).db()?.len().db()?;
                let settled = txn.open_table(format::SETTLED).db()?.len().db()?;
                Ok((recent, settled))
            })
            .unwrap()
    }

    /// Everything the store's reads answer, as text.
    fn everything(store: &TradingStore, previews: &[String]) -> String {
        let mut out = String::new();
        let mut before = None;
        loop {
            let page = store.journal_page("sandbox", "default", before, 3).unwrap();
            out += &format!("{page:?}\n");
            before = page.next_before;
            if before.is_none() {
                break;
            }
        }
        out += &format!(
            "{:?}\n",
            store.journal_page("production", "default", None, 100)
        );
        for id in 0..40 {
            out += &format!("{:?}\n", store.journal_entry(id));
        }
        for id in previews {
            out += &format!("{:?}\n", store.preview(id));
        }
        out += &format!(
            "{:?}\n{:?}\n{:?}\n",
            store.daily_usage("sandbox", "default", "acct", DAY),
            store.needing_reconciliation("sandbox", "default"),
            store.awaiting_decision("sandbox", "default", at(100)),
        );
        out
    }

    /// Wherever the records are, in the recent table, the settled one or both, every read
    /// answers the same: the same writes go to stores that settle after every write, after
    /// every few, and never, and after each one all of them answer alike.
    #[test]
    fn every_read_answers_alike_wherever_the_records_are() {
        let dir = tempfile::tempdir().unwrap();
        let stores: Vec<TradingStore> = [0, 1, 3, u64::MAX]
            .into_iter()
            .map(|limit| {
                let mut store =
                    TradingStore::open(dir.path().join(format!("t{limit}.redb"))).unwrap();
                store.recent_limit = limit;
                store
            })
            .collect();
        let ids: Vec<String> = (0..12).map(|i| format!("p{i}")).collect();
        type Step = Box<dyn Fn(&TradingStore) -> String>;
        let mut steps: Vec<Step> = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let id = id.clone();
            steps.push(Box::new(move |store| {
                let mut p = preview(&id, PreviewKind::New);
                // Every third expires early (the purge takes the unused ones).
                if i % 3 == 2 {
                    p.expires_at = at(8);
                }
                format!("{:?}", store.insert_preview(&p))
            }));
        }
        for (i, id) in ids.iter().enumerate() {
            let id = id.clone();
            steps.push(Box::new(move |store| {
                let place = intent("sandbox", MutationKind::PlaceOrder);
                let mut claim = claim(&id, &place, &allow);
                claim.now = at(5 + i as i64);
                let claimed = store.claim_preview(&claim);
                let mut out = format!("{claimed:?}");
                if let Ok(c) = &claimed {
                    let outcome = match i % 3 {
                        0 => uncertain(),
                        1 => Outcome::Succeeded {
                            at: at(30),
                            order_id: Some(i as i64),
                            deleted_alert_ids: vec![],
                        },
                        _ => Outcome::Pending,
                    };
                    out += &format!("{:?}", store.record_outcome(c.journal_id, &outcome));
                }
                // A second claim of the same preview is refused, whichever table holds it.
                out += &format!("{:?}", store.claim_preview(&claim).map(|c| c.journal_id));
                out
            }));
            if i % 4 == 1 {
                steps.push(Box::new(|store| {
                    let id = store
                        .append_intent(&intent("production", MutationKind::CancelOrder))
                        .unwrap();
                    format!("{:?}", store.record_outcome_if_pending(id, &uncertain()))
                }));
            }
            if i % 5 == 0 {
                steps.push(Box::new(move |store| {
                    let id = store
                        .needing_reconciliation("sandbox", "default")
                        .unwrap()
                        .first()
                        .map(|e| e.id);
                    format!(
                        "{:?}",
                        id.map(|id| store.record_reconciliation(
                            id,
                            &Reconciliation {
                                status: ReconcileStatus::NotFound,
                                at: at(40),
                                order_id: None,
                                order_status: None,
                                note: None,
                            }
                        ))
                    )
                }));
            }
        }
        for id in ["p0", "p4", "p5", "p7"] {
            steps.push(Box::new(move |store| {
                format!("{:?}", decide(store, id, Decision::Approved))
            }));
        }
        steps.push(Box::new(|store| {
            format!("{:?}", store.purge_expired_previews(at(9)))
        }));
        let mut mixed = false;
        for step in &steps {
            let answers: Vec<String> = stores
                .iter()
                .map(|store| step(store) + &everything(store, &ids))
                .collect();
            for (store, answer) in stores.iter().zip(&answers) {
                assert_eq!(answer, &answers[0], "limit {}", store.recent_limit);
            }
            let (recent, settled) = table_sizes(&stores[2]);
            mixed |= recent > 0 && settled > 0;
            assert_eq!(table_sizes(&stores[0]).0, 0, "settled at every write");
            assert_eq!(table_sizes(&stores[3]).1, 0, "never settled");
        }
        assert!(mixed, "the limit-3 store had records in both tables");
    }

    /// At the real limit, the recent table of placement-sized records stays two levels high:
    /// each commit of a placement rewrites its root and a leaf or two.
    #[test]
    fn recent_records_settle_past_the_limit_and_stay_two_levels_high() {
        let dir = tempfile::tempdir().unwrap();
        let store = TradingStore::open(dir.path().join("t.redb")).unwrap();
        let mut highest = 0;
        for i in 0..(records::RECENT_LIMIT * 3) {
            let id = format!("pv-{i:04}");
            let mut p = preview(&id, PreviewKind::New);
            p.order_fields = "x".repeat(600);
            store.insert_preview(&p).unwrap();
            let place = intent("sandbox", MutationKind::PlaceOrder);
            let claimed = store.claim_preview(&claim(&id, &place, &allow)).unwrap();
            store
                .record_outcome(claimed.journal_id, &uncertain())
                .unwrap();
            let (recent, _) = table_sizes(&store);
            assert!(recent <= records::RECENT_LIMIT, "{recent} recent records");
            let height = store
                .read(|txn| {
                    use redb::ReadableTableMetadata;
                    txn.open_table(format::RECENT).db()?.stats().db()
                })
                .unwrap()
                .tree_height();
            highest = highest.max(height);
        }
        assert_eq!(highest, 2);
        let (recent, settled) = table_sizes(&store);
        assert!(settled > 0 && recent < records::RECENT_LIMIT);
        assert_eq!(
            store
                .journal_page("sandbox", "default", None, 100)
                .unwrap()
                .entries
                .len(),
            100
        );
    }
}

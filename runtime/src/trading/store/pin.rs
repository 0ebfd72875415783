//! The approval PIN where the approvals are: its hash, two counts of wrong PINs in a row
//! with the lockouts they earned, and a log of wrong PINs.
//!
//! The counts are per channel ([`PinChannel`]): PINs that arrive over the network side of
//! `etrade serve` (the approval page, the order ticket) and PINs typed at this computer's
//! terminal (`etrade approve`, `etrade resume`, `--set-pin`). A flood of remote guesses
//! locks the remote channels only, so it cannot lock the person out of approving, resuming
//! or changing the PIN at the terminal. Every process that asks for the PIN counts against
//! the same record of its channel, so fresh links, new processes or parallel guesses gain
//! nothing.

use super::{IntoStore, StoreError, TradingStore, decode, encode};
use crate::trading::pin_hash::PinHash;
use crate::trading::pin_strength::PinStrength;
use jiff::{SignedDuration, Timestamp};
use redb::{ReadableTable, TableDefinition, WriteTransaction};
use serde::{Deserialize, Serialize};

pub(super) const PIN: TableDefinition<&str, &str> = TableDefinition::new("approval_pin");
pub(super) const PIN_EVENTS: TableDefinition<u64, &str> =
    TableDefinition::new("approval_pin_events");
const RECORD: &str = "record";
/// The terminal's count (the key older versions kept the one shared count under).
const TERMINAL_ATTEMPTS: &str = "attempts";
const REMOTE_ATTEMPTS: &str = "attempts_remote";
/// The log keeps the newest events; a guesser looping on a locked PIN must not grow the
/// file without bound.
const MAX_EVENTS: u64 = 1000;

/// The PIN as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredPin {
    pub hash: PinHash,
    pub set_at: Timestamp,
    /// The rule the PIN met when it was set (a record without it predates the rule, and
    /// a legacy PIN is written as older versions wrote it).
    #[serde(default, skip_serializing_if = "PinStrength::is_legacy")]
    pub strength: PinStrength,
}

/// Wrong PINs in a row (since the last right one) and the lockout they earned.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinAttempts {
    /// Counted when an attempt starts, before the slow hash runs, so that parallel guesses
    /// are counted too; a right PIN sets it back to zero.
    pub failures: u32,
    pub locked_until: Option<Timestamp>,
    pub last_failure_at: Option<Timestamp>,
    #[serde(default)]
    pub total_failures: u64,
}

/// The two counts of wrong PINs, one per channel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PinCounters {
    pub terminal: PinAttempts,
    pub remote: PinAttempts,
}

impl PinCounters {
    pub fn of(&self, channel: PinChannel) -> &PinAttempts {
        match channel {
            PinChannel::Terminal => &self.terminal,
            PinChannel::Remote => &self.remote,
        }
    }
}

/// Where a PIN was typed, which decides the count it is held against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PinChannel {
    /// `etrade approve`, `etrade resume`, `--set-pin`: a terminal on this computer.
    Terminal,
    /// The approval page and the order ticket: reached through `etrade serve`.
    Remote,
}

impl PinChannel {
    pub fn as_str(self) -> &'static str {
        match self {
            PinChannel::Terminal => "terminal",
            PinChannel::Remote => "remote",
        }
    }

    fn key(self) -> &'static str {
        match self {
            PinChannel::Terminal => TERMINAL_ATTEMPTS,
            PinChannel::Remote => REMOTE_ATTEMPTS,
        }
    }
}

/// What asked for the PIN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PinPurpose {
    /// Approving an order on the local approval page.
    ApprovePage,
    /// Approving an order with `etrade approve`.
    ApproveTerminal,
    /// Approving an order on the order ticket app.
    ApproveApp,
    /// Lifting a halt with `etrade resume`.
    Resume,
    /// Changing the PIN with `etrade approve --set-pin`.
    ChangePin,
}

impl PinPurpose {
    pub fn as_str(self) -> &'static str {
        match self {
            PinPurpose::ApprovePage => "approval page",
            PinPurpose::ApproveTerminal => "etrade approve",
            PinPurpose::ApproveApp => "order ticket app",
            PinPurpose::Resume => "etrade resume",
            PinPurpose::ChangePin => "etrade approve --set-pin",
        }
    }

    pub fn channel(self) -> PinChannel {
        match self {
            PinPurpose::ApprovePage | PinPurpose::ApproveApp => PinChannel::Remote,
            PinPurpose::ApproveTerminal | PinPurpose::Resume | PinPurpose::ChangePin => {
                PinChannel::Terminal
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PinEventKind {
    WrongPin,
    RefusedWhileLocked,
    /// Refused because the clock read earlier than the channel's last wrong PIN: the clock
    /// was moved back (or the attempt's clock is another's).
    RefusedClockBehind,
    PinSet,
    /// An older version's `approval-pin.json` moved into the store.
    Imported,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinEvent {
    pub at: Timestamp,
    pub kind: PinEventKind,
    pub purpose: Option<PinPurpose>,
    /// Wrong PINs in a row after this event.
    pub failures: u32,
}

/// Whether an attempt may go ahead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinGate {
    NotSet,
    /// Check against this hash; the attempt is already counted as a failure.
    Open(PinHash),
    Locked {
        until: Timestamp,
        failures: u32,
    },
    /// The clock reads earlier than the channel's last recorded wrong PIN: nothing is
    /// checked until it reads later (a lockout must not be undone by moving a clock back
    /// after moving it forward).
    ClockBehind {
        last_failure_at: Timestamp,
    },
}

impl TradingStore {
    /// The PIN, `None` when none is set. A record that does not decode is
    /// [`StoreError::Corrupt`]: callers treat that as a PIN that cannot be checked.
    pub fn stored_pin(&self) -> Result<Option<StoredPin>, StoreError> {
        self.read(|txn| {
            let table = txn.open_table(PIN).db()?;
            let guard = table.get(RECORD).db()?;
            guard.map(|json| decode(json.value())).transpose()
        })
    }

    pub fn pin_attempts(&self) -> Result<PinCounters, StoreError> {
        self.read(|txn| {
            let table = txn.open_table(PIN).db()?;
            Ok(PinCounters {
                terminal: read_attempts(&table, PinChannel::Terminal)?,
                remote: read_attempts(&table, PinChannel::Remote)?,
            })
        })
    }

    /// The newest `limit` events, newest first.
    pub fn pin_events(&self, limit: usize) -> Result<Vec<PinEvent>, StoreError> {
        self.read(|txn| {
            let table = txn.open_table(PIN_EVENTS).db()?;
            let mut out = Vec::new();
            for row in table.iter().db()?.rev().take(limit) {
                let (_, json) = row.db()?;
                out.push(decode(json.value())?);
            }
            Ok(out)
        })
    }

    /// Set or replace the PIN (the caller checked the current one) and clear both counts.
    pub fn set_pin(&self, pin: &StoredPin) -> Result<(), StoreError> {
        self.write(|txn| {
            let mut table = txn.open_table(PIN).db()?;
            let json = encode(pin)?;
            table.insert(RECORD, json.as_str()).db()?;
            let json = encode(&PinAttempts::default())?;
            for channel in [PinChannel::Terminal, PinChannel::Remote] {
                table.insert(channel.key(), json.as_str()).db()?;
            }
            drop(table);
            log_event(txn, PinEventKind::PinSet, None, 0, pin.set_at)
        })
    }

    /// Store an older version's PIN unless a PIN is already stored; returns whether it did.
    pub fn import_pin(&self, pin: &StoredPin) -> Result<bool, StoreError> {
        self.write(|txn| {
            let mut table = txn.open_table(PIN).db()?;
            if table.get(RECORD).db()?.is_some() {
                return Ok(false);
            }
            let json = encode(pin)?;
            table.insert(RECORD, json.as_str()).db()?;
            let failures = read_attempts(&table, PinChannel::Terminal)?.failures;
            drop(table);
            log_event(txn, PinEventKind::Imported, None, failures, pin.set_at)?;
            Ok(true)
        })
    }

    /// Start one attempt against the count of `purpose`'s channel: refused while locked,
    /// or while `now` is earlier than the channel's last wrong PIN; otherwise counted as a
    /// failure now (and the lockout that failure would earn set now), so that an attempt
    /// that never finishes, or many at once, cannot guess past the limit.
    /// [`TradingStore::finish_pin_attempt`] clears the count when the PIN was right.
    pub fn begin_pin_attempt(
        &self,
        purpose: PinPurpose,
        now: Timestamp,
        lockout_after: impl Fn(u32) -> Option<SignedDuration>,
    ) -> Result<PinGate, StoreError> {
        self.write(|txn| {
            let mut table = txn.open_table(PIN).db()?;
            let hash = match table.get(RECORD).db()? {
                Some(json) => decode::<StoredPin>(json.value())?.hash,
                None => return Ok(PinGate::NotSet),
            };
            let channel = purpose.channel();
            let mut attempts = read_attempts(&table, channel)?;
            if let Some(last) = attempts.last_failure_at.filter(|last| now < *last) {
                drop(table);
                log_event(
                    txn,
                    PinEventKind::RefusedClockBehind,
                    Some(purpose),
                    attempts.failures,
                    now,
                )?;
                return Ok(PinGate::ClockBehind {
                    last_failure_at: last,
                });
            }
            if let Some(until) = attempts.locked_until.filter(|u| now < *u) {
                drop(table);
                log_event(
                    txn,
                    PinEventKind::RefusedWhileLocked,
                    Some(purpose),
                    attempts.failures,
                    now,
                )?;
                return Ok(PinGate::Locked {
                    until,
                    failures: attempts.failures,
                });
            }
            attempts.failures = attempts.failures.saturating_add(1);
            attempts.locked_until = lockout_after(attempts.failures)
                .and_then(|d| now.checked_add(d).ok())
                .or(attempts.locked_until);
            let json = encode(&attempts)?;
            table.insert(channel.key(), json.as_str()).db()?;
            Ok(PinGate::Open(hash))
        })
    }

    /// End an attempt [`TradingStore::begin_pin_attempt`] let through. A right PIN clears
    /// its channel's count and lockout (and stores `rehashed`, the PIN under current
    /// parameters, when given); a wrong one stays counted and is logged. Returns the
    /// channel's count as it stands.
    pub fn finish_pin_attempt(
        &self,
        right: bool,
        purpose: PinPurpose,
        now: Timestamp,
        rehashed: Option<&StoredPin>,
    ) -> Result<PinAttempts, StoreError> {
        self.write(|txn| {
            let mut table = txn.open_table(PIN).db()?;
            let channel = purpose.channel();
            let mut attempts = read_attempts(&table, channel)?;
            if right {
                attempts.failures = 0;
                attempts.locked_until = None;
                if let Some(pin) = rehashed {
                    let json = encode(pin)?;
                    table.insert(RECORD, json.as_str()).db()?;
                }
            } else {
                attempts.last_failure_at = Some(now);
                attempts.total_failures = attempts.total_failures.saturating_add(1);
            }
            let json = encode(&attempts)?;
            table.insert(channel.key(), json.as_str()).db()?;
            drop(table);
            if !right {
                log_event(
                    txn,
                    PinEventKind::WrongPin,
                    Some(purpose),
                    attempts.failures,
                    now,
                )?;
            }
            Ok(attempts)
        })
    }
}

fn read_attempts(
    table: &impl ReadableTable<&'static str, &'static str>,
    channel: PinChannel,
) -> Result<PinAttempts, StoreError> {
    match table.get(channel.key()).db()? {
        Some(json) => decode(json.value()),
        None => Ok(PinAttempts::default()),
    }
}

fn log_event(
    txn: &WriteTransaction,
    kind: PinEventKind,
    purpose: Option<PinPurpose>,
    failures: u32,
    at: Timestamp,
) -> Result<(), StoreError> {
    let mut events = txn.open_table(PIN_EVENTS).db()?;
    let next = match events.last().db()? {
        Some((id, _)) => id.value().saturating_add(1),
        None => 1,
    };
    let event = PinEvent {
        at,
        kind,
        purpose,
        failures,
    };
    let json = encode(&event)?;
    events.insert(next, json.as_str()).db()?;
    if next > MAX_EVENTS {
        let oldest = next - MAX_EVENTS;
        events.retain_in(..=oldest, |_, _| false).db()?;
    }
    Ok(())
}

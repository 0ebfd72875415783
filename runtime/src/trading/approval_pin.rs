//! The optional approval PIN: what `etrade approve`, the approval page and `etrade resume`
//! ask for when it is set, so that a program running as the user on this machine cannot
//! approve its own orders (`etrade approve --yes`) or lift a person's halt.
//!
//! The PIN lives in the trading store beside the approvals it guards ([`StoredPin`]), not
//! in a file of its own, and a record that cannot be read refuses every approval. Wrong
//! PINs are counted there across processes, one count for the terminal and one for the
//! remote channels (page, ticket); from the [`FREE_FAILURES`]th in a row on, each one locks
//! that channel for longer ([`lockout_after`]), and while it is locked even the right PIN is
//! refused there. Within one OS account all of this binds only programs that play by it: a
//! program running as the user can replace the store, or run with its own clock.

use super::pin_hash::{PinHash, PinHashError};
use super::pin_strength::{self, PinStrength, WeakPin};
use super::store::{
    PinChannel, PinCounters, PinGate, PinPurpose, StoreError, StoredPin, TradingStore,
};
use jiff::{SignedDuration, Timestamp};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The file older versions kept the PIN in; it is moved into the store when first seen.
pub const LEGACY_FILE_NAME: &str = "approval-pin.json";
/// Wrong PINs in a row before the first lockout.
pub const FREE_FAILURES: u32 = 5;
/// The lockouts, one per wrong PIN from the [`FREE_FAILURES`]th on; the last repeats.
pub const LOCKOUTS: [SignedDuration; 4] = [
    SignedDuration::from_mins(1),
    SignedDuration::from_mins(5),
    SignedDuration::from_hours(1),
    SignedDuration::from_hours(24),
];

/// How long `failures` wrong PINs in a row lock the PIN.
pub fn lockout_after(failures: u32) -> Option<SignedDuration> {
    let step = failures.checked_sub(FREE_FAILURES)?;
    let step = usize::try_from(step).unwrap_or(usize::MAX);
    Some(LOCKOUTS[step.min(LOCKOUTS.len() - 1)])
}

#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error("{0}")]
    Weak(#[from] WeakPin),
    #[error("{0}")]
    Hash(#[from] PinHashError),
    #[error("the approval PIN cannot be used: {0}")]
    Store(#[from] StoreError),
}

/// Why a PIN did not pass.
#[derive(Debug, thiserror::Error)]
pub enum PinRefusal {
    #[error("{}", wrong_words(*failures, *locked_until))]
    Wrong {
        failures: u32,
        locked_until: Option<Timestamp>,
    },
    #[error("{}", locked_words(*failures, *until, *channel))]
    Locked {
        until: Timestamp,
        failures: u32,
        channel: PinChannel,
    },
    #[error(
        "this computer's clock reads earlier than the last wrong PIN recorded ({}): nothing is checked until the clock is right again. If you did not move the clock, something on this computer is tampering with it: run `etrade halt`",
        last_failure_at.round(jiff::Unit::Second).unwrap_or(*last_failure_at)
    )]
    ClockBehind { last_failure_at: Timestamp },
    /// The stored PIN (or an older version's PIN file) cannot be read: nothing passes.
    #[error(
        "the approval PIN cannot be checked ({0}); nothing is approved until it can. See `etrade doctor`"
    )]
    Unusable(String),
    /// A PIN is always asked ([`ApprovalPin::always_asked`]) and none was set yet.
    #[error(
        "no approval PIN is set yet, and the trading vault approves nothing and lifts no halt without one: set it with `etrade approve --set-pin`"
    )]
    NotSet,
}

fn wrong_words(failures: u32, locked_until: Option<Timestamp>) -> String {
    let mut out = format!("wrong PIN ({failures} wrong in a row)");
    match locked_until {
        Some(until) => out.push_str(&format!(
            "; the PIN is now locked until {}, and even the right PIN is refused until then",
            until.round(jiff::Unit::Second).unwrap_or(until)
        )),
        None => out.push_str(&format!(
            "; after {FREE_FAILURES} in a row the PIN locks for a while"
        )),
    }
    out
}

fn locked_words(failures: u32, until: Timestamp, channel: PinChannel) -> String {
    let (where_, elsewhere) = match channel {
        PinChannel::Remote => (
            "on the approval page and the order ticket",
            " `etrade approve` and `etrade resume` in a terminal on this computer keep their own count and still take it.",
        ),
        PinChannel::Terminal => ("in the terminal", ""),
    };
    format!(
        "the approval PIN is locked until {} {where_} after {failures} wrong PINs in a row: even the right PIN is refused there until then. It unlocks by itself; then the right PIN clears the count.{elsewhere} If you did not type those PINs, something on this computer is guessing it: run `etrade halt`, and see `etrade doctor`",
        until.round(jiff::Unit::Second).unwrap_or(until)
    )
}

/// What `etrade doctor` and `server_status` say about the PIN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinPosture {
    NotSet,
    Set {
        /// `argon2id`, or `pbkdf2-sha256` for an older version's PIN not yet rehashed.
        kind: &'static str,
        set_at: Option<Timestamp>,
        strength: PinStrength,
        attempts: PinCounters,
    },
    /// A PIN exists but cannot be read: every approval is refused.
    Unusable(String),
}

/// What setting a PIN found: its class, and what guessing it from a copy of its hash costs
/// on this machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PinSet {
    pub strength: PinStrength,
    /// One hash on this machine, as measured when the PIN was hashed.
    pub per_guess: Duration,
    /// Guesses needed on average, were the PIN random over what it is made of.
    pub average_guesses: f64,
}

impl PinSet {
    /// "about 11,000 core-years (one guess: 0.25 s of a core)".
    pub fn offline_cost(&self) -> String {
        format!(
            "{} (one guess: {:.2} s of a core)",
            pin_strength::core_time_words(self.average_guesses, self.per_guess),
            self.per_guess.as_secs_f64()
        )
    }
}

/// The PIN of one state folder, kept in its trading store.
pub struct ApprovalPin {
    store: Arc<TradingStore>,
    legacy_file: PathBuf,
    /// Asked even before one is set (and then nothing passes): the vault's rule, where
    /// anyone who can run `etrade approve` could otherwise approve.
    always_asked: bool,
}

impl ApprovalPin {
    pub fn new(store: Arc<TradingStore>, state_dir: &Path) -> ApprovalPin {
        ApprovalPin {
            store,
            legacy_file: state_dir.join(LEGACY_FILE_NAME),
            always_asked: false,
        }
    }

    /// A PIN is asked for every approval and every lifted halt even before one was set;
    /// until it is, every check refuses ([`PinRefusal::NotSet`]).
    pub fn always_asked(mut self) -> ApprovalPin {
        self.always_asked = true;
        self
    }

    /// Whether a PIN must be given. A PIN that cannot be read counts as set: the check
    /// then refuses, never passes.
    pub fn is_set(&self) -> bool {
        self.always_asked || self.is_stored()
    }

    /// Whether a PIN (readable or not) is stored: what changing it must give first.
    pub fn is_stored(&self) -> bool {
        !matches!(self.posture(), PinPosture::NotSet)
    }

    /// The PIN's state, after moving an older version's PIN file into the store.
    pub fn posture(&self) -> PinPosture {
        if let Err(e) = self.import_legacy() {
            return PinPosture::Unusable(e.to_string());
        }
        match self.store.stored_pin() {
            Ok(None) => PinPosture::NotSet,
            Ok(Some(pin)) => PinPosture::Set {
                kind: pin.hash.kind(),
                set_at: Some(pin.set_at),
                strength: pin.strength,
                attempts: self.store.pin_attempts().unwrap_or_default(),
            },
            Err(e) => PinPosture::Unusable(e.to_string()),
        }
    }

    /// Check `pin` for `purpose`; `Ok` when it is right, or when no PIN is set. Blocks for
    /// the hash (about a quarter of a second): call it off the async threads.
    pub fn verify(&self, pin: &str, purpose: PinPurpose) -> Result<(), PinRefusal> {
        self.verify_at(pin, purpose, Timestamp::now())
    }

    /// [`ApprovalPin::verify`] as if it were `now`.
    pub fn verify_at(
        &self,
        pin: &str,
        purpose: PinPurpose,
        now: Timestamp,
    ) -> Result<(), PinRefusal> {
        self.import_legacy()
            .map_err(|e| PinRefusal::Unusable(e.to_string()))?;
        let unusable = |e: &dyn std::fmt::Display| PinRefusal::Unusable(e.to_string());
        let gate = self
            .store
            .begin_pin_attempt(purpose, now, lockout_after)
            .map_err(|e| unusable(&e))?;
        let hash = match gate {
            PinGate::NotSet if self.always_asked => return Err(PinRefusal::NotSet),
            PinGate::NotSet => return Ok(()),
            PinGate::Locked { until, failures } => {
                tracing::warn!(
                    purpose = purpose.as_str(),
                    failures,
                    "approval PIN refused: locked"
                );
                return Err(PinRefusal::Locked {
                    until,
                    failures,
                    channel: purpose.channel(),
                });
            }
            PinGate::ClockBehind { last_failure_at } => {
                tracing::warn!(
                    purpose = purpose.as_str(),
                    "approval PIN refused: the clock reads earlier than the last wrong PIN"
                );
                return Err(PinRefusal::ClockBehind { last_failure_at });
            }
            PinGate::Open(hash) => hash,
        };
        // A record that cannot be used stays counted as a failure: it never passes.
        let right = hash.matches(pin).map_err(|e| unusable(&e))?;
        let rehashed = if right && hash.is_outdated() {
            // Rehashed, the PIN keeps the rule it was set under.
            let strength = self
                .store
                .stored_pin()
                .ok()
                .flatten()
                .map(|p| p.strength)
                .unwrap_or_default();
            PinHash::new(pin).ok().map(|hash| StoredPin {
                hash,
                set_at: now,
                strength,
            })
        } else {
            None
        };
        let attempts = self
            .store
            .finish_pin_attempt(right, purpose, now, rehashed.as_ref())
            .map_err(|e| unusable(&e))?;
        if right {
            return Ok(());
        }
        tracing::warn!(
            purpose = purpose.as_str(),
            failures = attempts.failures,
            "wrong approval PIN"
        );
        Err(PinRefusal::Wrong {
            failures: attempts.failures,
            locked_until: attempts.locked_until,
        })
    }

    /// Set (or replace) the PIN, refusing one that breaks the rule for new PINs
    /// ([`pin_strength::classify`]). Replacing is the caller's to allow: `etrade approve
    /// --set-pin` checks the current PIN through [`ApprovalPin::verify`] first.
    pub fn set(&self, new: &str) -> Result<PinSet, PinError> {
        let strength = pin_strength::classify(new)?;
        let started = Instant::now();
        let hash = PinHash::new(new)?;
        let per_guess = started.elapsed();
        self.store.set_pin(&StoredPin {
            hash,
            set_at: Timestamp::now(),
            strength,
        })?;
        self.remove_legacy_file();
        Ok(PinSet {
            strength,
            per_guess,
            average_guesses: pin_strength::average_guesses(new),
        })
    }

    /// Move an older version's `approval-pin.json` into the store (once; a PIN already in
    /// the store wins). A file that cannot be read, with no PIN in the store, is an error:
    /// the PIN it holds must not be lost.
    fn import_legacy(&self) -> Result<(), PinError> {
        let Some(hash) = PinHash::read_legacy_file(&self.legacy_file).or_else(|e| {
            if self.store.stored_pin().ok().flatten().is_some() {
                Ok(None)
            } else {
                Err(e)
            }
        })?
        else {
            return Ok(());
        };
        let set_at = std::fs::metadata(&self.legacy_file)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| Timestamp::try_from(t).ok())
            .unwrap_or_else(Timestamp::now);
        let imported = StoredPin {
            hash,
            set_at,
            strength: PinStrength::Legacy,
        };
        if self.store.import_pin(&imported)? {
            tracing::info!("moved the approval PIN from its file into the trading store");
        }
        self.remove_legacy_file();
        Ok(())
    }

    fn remove_legacy_file(&self) {
        match std::fs::remove_file(&self.legacy_file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!(error = %e, "cannot remove the old approval PIN file"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trading::pin_hash::{hex_encode, pbkdf2_sha256};

    fn pin_in(dir: &Path) -> ApprovalPin {
        let store = TradingStore::open(dir.join("trading.redb")).expect("store");
        ApprovalPin::new(Arc::new(store), dir)
    }

    #[test]
    fn the_lockout_grows_from_the_fifth_failure() {
        assert_eq!(lockout_after(4), None);
        assert_eq!(lockout_after(5), Some(SignedDuration::from_mins(1)));
        assert_eq!(lockout_after(6), Some(SignedDuration::from_mins(5)));
        assert_eq!(lockout_after(7), Some(SignedDuration::from_hours(1)));
        assert_eq!(lockout_after(8), Some(SignedDuration::from_hours(24)));
        assert_eq!(
            lockout_after(u32::MAX),
            Some(SignedDuration::from_hours(24))
        );
    }

    #[test]
    fn a_pin_is_checked_and_stored_only_as_a_hash() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pin = pin_in(dir.path());
        assert!(!pin.is_set());
        assert!(pin.verify("anything", PinPurpose::ApproveTerminal).is_ok());
        assert!(matches!(pin.set("12345"), Err(PinError::Weak(_))));
        assert!(matches!(pin.set("123456"), Err(PinError::Weak(_))));
        assert!(matches!(
            pin.set("12345678"),
            Err(PinError::Weak(WeakPin::AllDigits))
        ));
        assert!(!pin.is_set(), "a refused PIN is not stored");
        pin.set("CANARY-pin-4821").expect("set");
        assert!(pin.is_set());
        assert!(
            pin.verify("CANARY-pin-4821", PinPurpose::ApproveTerminal)
                .is_ok()
        );
        let wrong = pin.verify("CANARY-pin-4822", PinPurpose::ApprovePage);
        assert!(
            matches!(
                wrong,
                Err(PinRefusal::Wrong {
                    failures: 1,
                    locked_until: None
                })
            ),
            "{wrong:?}"
        );
        for entry in std::fs::read_dir(dir.path()).expect("dir") {
            let bytes = std::fs::read(entry.expect("entry").path()).expect("read");
            assert!(!String::from_utf8_lossy(&bytes).contains("CANARY"));
        }
    }

    #[test]
    fn five_wrong_pins_lock_out_even_the_right_one_and_a_right_one_later_clears_the_count() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pin = pin_in(dir.path());
        pin.set("right-pin-1").expect("set");
        let now = Timestamp::now();
        // The terminal's purposes share one count.
        for (n, purpose) in (1..=4).zip([
            PinPurpose::ApproveTerminal,
            PinPurpose::Resume,
            PinPurpose::ChangePin,
            PinPurpose::ApproveTerminal,
        ]) {
            let r = pin.verify_at("wrong-pin", purpose, now);
            assert!(
                matches!(r, Err(PinRefusal::Wrong { failures, locked_until: None }) if failures == n),
                "{r:?}"
            );
        }
        let fifth = pin.verify_at("wrong-pin", PinPurpose::ApproveTerminal, now);
        let Err(PinRefusal::Wrong {
            failures: 5,
            locked_until: Some(until),
        }) = fifth
        else {
            panic!("the fifth wrong PIN locks: {fifth:?}");
        };
        assert_eq!(until, now + SignedDuration::from_mins(1));
        let right = pin.verify_at(
            "right-pin-1",
            PinPurpose::Resume,
            now + SignedDuration::from_secs(59),
        );
        assert!(
            matches!(right, Err(PinRefusal::Locked { failures: 5, .. })),
            "{right:?}"
        );
        assert!(right.is_err_and(|e| e.to_string().contains("locked")));
        let events = pin.store.pin_events(10).expect("events");
        let wrong = |e: &&crate::trading::store::PinEvent| {
            e.kind == crate::trading::store::PinEventKind::WrongPin
        };
        assert_eq!(events.iter().filter(wrong).count(), 5);

        // The lock ran out: the right PIN passes and clears the count.
        assert!(
            pin.verify_at("right-pin-1", PinPurpose::Resume, until)
                .is_ok()
        );
        assert_eq!(
            pin.store
                .pin_attempts()
                .expect("attempts")
                .terminal
                .failures,
            0
        );
        assert!(
            pin.verify_at("wrong-pin", PinPurpose::ApproveTerminal, until)
                .is_err_and(|e| matches!(
                    e,
                    PinRefusal::Wrong {
                        failures: 1,
                        locked_until: None
                    }
                ))
        );
    }

    /// A flood of wrong PINs through the page and the ticket locks those channels, and the
    /// person at the terminal still approves, resumes and changes the PIN.
    #[test]
    fn remote_guesses_lock_the_remote_channels_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pin = pin_in(dir.path());
        pin.set("right-pin-1").expect("set");
        let now = Timestamp::now();
        for n in 0..8 {
            let purpose = if n % 2 == 0 {
                PinPurpose::ApprovePage
            } else {
                PinPurpose::ApproveApp
            };
            assert!(pin.verify_at("wrong-pin", purpose, now).is_err());
        }
        let counters = pin.store.pin_attempts().expect("attempts");
        assert_eq!(counters.of(PinChannel::Remote).failures, 5, "{counters:?}");
        assert_eq!(counters.terminal, Default::default());
        assert!(matches!(
            pin.verify_at("right-pin-1", PinPurpose::ApproveApp, now),
            Err(PinRefusal::Locked { .. })
        ));
        for purpose in [
            PinPurpose::ApproveTerminal,
            PinPurpose::Resume,
            PinPurpose::ChangePin,
        ] {
            assert!(pin.verify_at("right-pin-1", purpose, now).is_ok());
        }
        // The terminal's right PIN leaves the remote lock where it was.
        assert!(matches!(
            pin.verify_at("right-pin-1", PinPurpose::ApprovePage, now),
            Err(PinRefusal::Locked { .. })
        ));
    }

    /// A clock moved back behind the last wrong PIN gets nothing checked; the wrong PINs
    /// of a process whose clock runs ahead stay on the record.
    #[test]
    fn an_attempt_on_a_clock_behind_the_last_failure_is_refused_uncounted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pin = pin_in(dir.path());
        pin.set("right-pin-1").expect("set");
        let now = Timestamp::now();
        let ahead = now + SignedDuration::from_hours(72);
        assert!(
            pin.verify_at("wrong-pin", PinPurpose::ApproveTerminal, ahead)
                .is_err()
        );
        let behind = pin.verify_at("right-pin-1", PinPurpose::ApproveTerminal, now);
        assert!(
            matches!(behind, Err(PinRefusal::ClockBehind { last_failure_at }) if last_failure_at == ahead),
            "{behind:?}"
        );
        assert_eq!(
            pin.store
                .pin_attempts()
                .expect("attempts")
                .terminal
                .failures,
            1,
            "not counted"
        );
        // The other channel has its own record.
        assert!(
            pin.verify_at("right-pin-1", PinPurpose::ApprovePage, now)
                .is_ok()
        );
    }

    #[test]
    fn setting_a_pin_reports_its_class_and_offline_cost() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pin = pin_in(dir.path());
        let set = pin.set("red cat sun").expect("set");
        assert_eq!(set.strength, PinStrength::Passphrase);
        assert!(set.per_guess > Duration::ZERO);
        assert!(
            set.offline_cost().starts_with("about "),
            "{}",
            set.offline_cost()
        );
        assert!(matches!(
            pin.posture(),
            PinPosture::Set {
                strength: PinStrength::Passphrase,
                ..
            }
        ));
    }

    #[test]
    fn after_the_first_lockout_each_wrong_pin_locks_for_longer() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pin = pin_in(dir.path());
        pin.set("right-pin-1").expect("set");
        let mut now = Timestamp::now();
        let mut seen = Vec::new();
        for _ in 0..8 {
            if let Err(PinRefusal::Wrong {
                locked_until: Some(until),
                ..
            }) = pin.verify_at("wrong-pin", PinPurpose::ApprovePage, now)
            {
                seen.push(until.duration_since(now).as_mins());
                now = until;
            }
        }
        assert_eq!(seen, vec![1, 5, 60, 1440]);
    }

    #[test]
    fn an_older_versions_pin_file_is_moved_into_the_store_and_rehashed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let salt = [3u8; 16];
        std::fs::write(
            dir.path().join(LEGACY_FILE_NAME),
            format!(
                "{{\"salt\":\"{}\",\"iterations\":1000,\"hash\":\"{}\"}}",
                hex_encode(&salt),
                hex_encode(&pbkdf2_sha256(b"old-pin-77", &salt, 1000))
            ),
        )
        .expect("write");
        let pin = pin_in(dir.path());
        assert!(matches!(
            pin.posture(),
            PinPosture::Set {
                kind: "pbkdf2-sha256",
                ..
            }
        ));
        assert!(
            !dir.path().join(LEGACY_FILE_NAME).exists(),
            "moved into the store"
        );
        // Gone from the folder, the PIN is still required.
        assert!(pin.is_set());
        assert!(
            pin.verify("old-pin-78", PinPurpose::ApproveTerminal)
                .is_err()
        );
        assert!(
            pin.verify("old-pin-77", PinPurpose::ApproveTerminal)
                .is_ok()
        );
        assert!(matches!(
            pin.posture(),
            PinPosture::Set {
                kind: "argon2id",
                ..
            }
        ));
        assert!(
            pin.verify("old-pin-77", PinPurpose::ApproveTerminal)
                .is_ok()
        );
    }

    #[test]
    fn a_damaged_pin_never_passes() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(LEGACY_FILE_NAME), "{not json").expect("write");
        let pin = pin_in(dir.path());
        assert!(pin.is_set(), "a PIN file that cannot be read still counts");
        assert!(matches!(
            pin.verify("x", PinPurpose::ApproveTerminal),
            Err(PinRefusal::Unusable(_))
        ));
        assert!(matches!(pin.posture(), PinPosture::Unusable(_)));
    }
}

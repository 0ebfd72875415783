//! The fake's controllable clock.
//!
//! Time runs at the real rate from a movable origin: `advance` and `set` shift an offset from
//! the real clock, so a test can jump two hours ahead and time keeps flowing from there.

use std::sync::Mutex;
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

#[derive(Debug, Default)]
pub struct FakeClock {
    offset: Mutex<SignedDuration>,
}

impl FakeClock {
    pub fn now(&self) -> Timestamp {
        let offset = *lock(&self.offset);
        Timestamp::now()
            .checked_add(offset)
            .unwrap_or_else(|_| Timestamp::now())
    }

    pub fn advance(&self, by: Duration) {
        let by = SignedDuration::try_from(by).unwrap_or(SignedDuration::MAX);
        let mut offset = lock(&self.offset);
        *offset = offset.saturating_add(by);
    }

    pub fn set(&self, to: Timestamp) {
        let mut offset = lock(&self.offset);
        *offset = to.duration_since(Timestamp::now());
    }
}

/// Locks a mutex, ignoring poisoning (a panicking test thread must not wedge the fake).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

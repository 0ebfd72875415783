//! A local, offline estimate of whether the stored E*TRADE access token still works.
//!
//! E*TRADE access tokens expire at midnight US Eastern time on the day they were issued and
//! go inactive after two hours without a request (an inactive token can be renewed). The
//! estimate applies those rules to locally recorded timestamps only; the broker is the
//! authority, so even an `active` estimate proves nothing.

use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use serde::Serialize;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::time::rfc3339;

use super::{CredentialKey, CredentialStore, StoreError, StoredCredentials};

const BROKER_TIME_ZONE: &str = "America/New_York";
const INACTIVITY_LIMIT: SignedDuration = SignedDuration::from_hours(2);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CredentialState {
    /// No keyring entry for this environment/profile.
    Missing,
    /// Consumer credentials stored, but no access token (not logged in).
    Present,
    Active,
    /// Unused for more than two hours; renewable without a new login.
    Inactive,
    /// Past the midnight US Eastern after authorization; needs a new login.
    Expired,
    /// The store could not be read, so nothing is known.
    Unavailable,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CredentialEstimate {
    pub state: CredentialState,
    /// Whether this environment needs E*TRADE credentials at all (paper does not).
    pub required: bool,
    pub environment: crate::config::Environment,
    pub profile: String,
    pub backend: &'static str,
    pub authorized_at: Option<String>,
    pub last_used_at: Option<String>,
    pub expires_at: Option<String>,
    /// One line for a human: what the state means and the command that fixes it.
    pub detail: String,
}

/// Estimates the credential state for `key` as of `now`, without any network request.
pub fn estimate(
    store: &dyn CredentialStore,
    key: &CredentialKey,
    now: Timestamp,
) -> CredentialEstimate {
    estimate_loaded(store.load(key), store.backend_name(), key, now)
}

/// How long [`RecentReads`] reuses one read of the store.
pub const RECENT_READ_TTL: Duration = Duration::from_secs(1);

/// One store read shared by the estimates of the next [`RECENT_READ_TTL`], for a caller that
/// estimates on every request (`server_status`). A keyring read is a few system calls (the
/// kernel keyring) or a D-Bus round trip (the Secret Service), and nothing tells this process
/// when `etrade auth` in another one changed the entry, so a change shows at most this long
/// after it was made. The state itself is judged at every call, against that call's `now`:
/// expiry and inactivity are never cached.
#[derive(Debug)]
pub struct RecentReads {
    ttl: Duration,
    last: Mutex<Option<Read>>,
}

#[derive(Debug)]
struct Read {
    at: Instant,
    key: CredentialKey,
    loaded: Result<Option<StoredCredentials>, StoreError>,
}

impl Default for RecentReads {
    fn default() -> Self {
        RecentReads::new(RECENT_READ_TTL)
    }
}

impl RecentReads {
    pub fn new(ttl: Duration) -> RecentReads {
        RecentReads {
            ttl,
            last: Mutex::new(None),
        }
    }

    /// [`estimate`], reading the store only when the last read is older than the TTL.
    pub fn estimate(
        &self,
        store: &dyn CredentialStore,
        key: &CredentialKey,
        now: Timestamp,
    ) -> CredentialEstimate {
        // Held across the read: calls arriving together share one read instead of each
        // making its own. The slot holds a finished read only, so a poisoned lock is usable.
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let fresh = last
            .as_ref()
            .is_some_and(|r| r.key == *key && r.at.elapsed() < self.ttl);
        let read = match last.as_mut() {
            Some(read) if fresh => read,
            _ => last.insert(Read {
                at: Instant::now(),
                key: key.clone(),
                loaded: store.load(key),
            }),
        };
        let loaded = read.loaded.clone();
        drop(last);
        estimate_loaded(loaded, store.backend_name(), key, now)
    }
}

fn estimate_loaded(
    loaded: Result<Option<StoredCredentials>, StoreError>,
    backend: &'static str,
    key: &CredentialKey,
    now: Timestamp,
) -> CredentialEstimate {
    let mut report = CredentialEstimate {
        state: CredentialState::Unavailable,
        required: key.environment().required(),
        environment: key.environment(),
        profile: key.profile().to_owned(),
        backend,
        authorized_at: None,
        last_used_at: None,
        expires_at: None,
        detail: String::new(),
    };

    let credentials = match loaded {
        Ok(Some(credentials)) => credentials,
        Ok(None) => {
            report.state = CredentialState::Missing;
            report.detail = if key.environment().required() {
                format!("No credentials stored. Run {}.", login_command(key))
            } else {
                "No credentials stored; the paper environment does not need any.".to_owned()
            };
            return report;
        }
        Err(err) => {
            // StoreError's Display is already sanitized.
            report.detail = format!(
                "Credentials could not be read: {err}. Check the {backend} keyring, then run {}.",
                login_command(key)
            );
            return report;
        }
    };

    report.authorized_at = credentials.authorized_at.map(rfc3339);
    report.last_used_at = credentials.last_used_at.map(rfc3339);
    let (state, detail) = match judge(&credentials, key, now, &mut report.expires_at) {
        Ok(verdict) => verdict,
        Err(TimeZoneUnavailable) => (
            CredentialState::Unavailable,
            format!(
                "Time zone data for {BROKER_TIME_ZONE} is unavailable, so token expiry cannot be estimated."
            ),
        ),
    };
    report.state = state;
    report.detail = detail;
    report
}

/// The state alone, for credentials already in hand (the E*TRADE session judges every call
/// this way, without reading the store again).
pub fn state_of(
    credentials: &StoredCredentials,
    key: &CredentialKey,
    now: Timestamp,
) -> CredentialState {
    let mut expires_at = None;
    match judge(credentials, key, now, &mut expires_at) {
        Ok((state, _)) => state,
        Err(TimeZoneUnavailable) => CredentialState::Unavailable,
    }
}

struct TimeZoneUnavailable;

fn judge(
    credentials: &StoredCredentials,
    key: &CredentialKey,
    now: Timestamp,
    expires_at: &mut Option<String>,
) -> Result<(CredentialState, String), TimeZoneUnavailable> {
    if !credentials.has_access_token() {
        return Ok((
            CredentialState::Present,
            format!(
                "Consumer key stored but not logged in. Run {}.",
                login_command(key)
            ),
        ));
    }
    let Some(authorized_at) = credentials.authorized_at else {
        // Without an issue time the expiry is unknowable; assuming the worst sends the
        // user to log in rather than to a confusing broker rejection.
        return Ok((
            CredentialState::Expired,
            format!(
                "Access token has no recorded authorization time, so it is treated as expired. Run {}.",
                login_command(key)
            ),
        ));
    };

    let expiry = next_broker_midnight(authorized_at)?;
    *expires_at = Some(rfc3339(expiry));
    if now >= expiry {
        return Ok((
            CredentialState::Expired,
            format!(
                "Access token expired at midnight US Eastern ({}). Run {}.",
                rfc3339(expiry),
                login_command(key)
            ),
        ));
    }

    // Authorizing counts as use, and a last-use time recorded for an older token must not
    // make a fresh one look idle.
    let last_activity = credentials
        .last_used_at
        .map_or(authorized_at, |used| used.max(authorized_at));
    if now.duration_since(last_activity) > INACTIVITY_LIMIT {
        return Ok((
            CredentialState::Inactive,
            format!(
                "Access token estimated inactive after 2 hours without use. Run {} (or {}).",
                renew_command(key),
                login_command(key)
            ),
        ));
    }

    Ok((
        CredentialState::Active,
        "Token estimated active from local records; this does not prove broker authorization."
            .to_owned(),
    ))
}

/// The first midnight in US Eastern time strictly after `at`.
fn next_broker_midnight(at: Timestamp) -> Result<Timestamp, TimeZoneUnavailable> {
    let tz = TimeZone::get(BROKER_TIME_ZONE).map_err(|_| TimeZoneUnavailable)?;
    let next = at
        .to_zoned_datetime(tz)
        .tomorrow()
        .and_then(|day| day.start_of_day())
        .map_err(|_| TimeZoneUnavailable)?;
    Ok(next.timestamp())
}

fn login_command(key: &CredentialKey) -> String {
    format!(
        "etrade auth login --environment {} --profile {}",
        key.environment(),
        key.profile()
    )
}

fn renew_command(key: &CredentialKey) -> String {
    format!(
        "etrade auth renew --environment {} --profile {}",
        key.environment(),
        key.profile()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Environment;
    use crate::credentials::{KeyringStore, Secret, StoreFailure};

    fn ts(text: &str) -> Timestamp {
        text.parse().expect("valid timestamp")
    }

    fn sandbox() -> CredentialKey {
        CredentialKey::new(Environment::Sandbox, "default").expect("valid key")
    }

    fn logged_in(authorized_at: &str, last_used_at: Option<&str>) -> StoredCredentials {
        let mut creds = StoredCredentials::new("ck", Secret::new("cs"));
        creds.authorize(
            Secret::new("tok"),
            Secret::new("tok-secret"),
            ts(authorized_at),
        );
        creds.last_used_at = last_used_at.map(ts);
        creds
    }

    fn estimate_for(creds: Option<StoredCredentials>, now: &str) -> CredentialEstimate {
        let store = KeyringStore::mock().expect("mock");
        let key = sandbox();
        if let Some(creds) = creds {
            store.save(&key, &creds).expect("save");
        }
        estimate(&store, &key, ts(now))
    }

    #[test]
    fn missing_entry() {
        let est = estimate_for(None, "2026-10-17T12:00:00Z");
        assert_eq!(est.state, CredentialState::Missing);
        assert_eq!(
            est.detail,
            "No credentials stored. Run etrade auth login --environment sandbox --profile default."
        );
        assert_eq!(est.backend, "mock");
        assert_eq!(est.environment, Environment::Sandbox);
        assert_eq!(est.profile, "default");
        assert_eq!((est.authorized_at, est.expires_at), (None, None));
    }

    #[test]
    fn missing_entry_for_paper_needs_nothing() {
        let store = KeyringStore::mock().expect("mock");
        let key = CredentialKey::new(Environment::Paper, "default").expect("key");
        let est = estimate(&store, &key, ts("2026-10-17T12:00:00Z"));
        assert_eq!(est.state, CredentialState::Missing);
        assert!(
            est.detail.contains("paper environment does not need"),
            "{}",
            est.detail
        );
    }

    #[test]
    fn consumer_key_only_is_present() {
        let creds = StoredCredentials::new("ck", Secret::new("cs"));
        let est = estimate_for(Some(creds), "2026-10-17T12:00:00Z");
        assert_eq!(est.state, CredentialState::Present);
        assert!(
            est.detail
                .ends_with("Run etrade auth login --environment sandbox --profile default.")
        );
        assert_eq!(est.expires_at, None);
    }

    #[test]
    fn fresh_token_is_active_with_expiry_at_eastern_midnight() {
        // 12:00Z on 17 October is 08:00 EDT; the next Eastern midnight is 04:00Z on the 18th.
        let est = estimate_for(
            Some(logged_in("2026-10-17T12:00:00Z", None)),
            "2026-10-17T13:00:00Z",
        );
        assert_eq!(est.state, CredentialState::Active);
        assert_eq!(est.authorized_at.as_deref(), Some("2026-10-17T12:00:00Z"));
        assert_eq!(est.last_used_at, None);
        assert_eq!(est.expires_at.as_deref(), Some("2026-10-18T04:00:00Z"));
        assert_eq!(
            est.detail,
            "Token estimated active from local records; this does not prove broker authorization."
        );
    }

    #[test]
    fn inactivity_boundary_is_two_hours() {
        let creds = || {
            Some(logged_in(
                "2026-10-17T12:00:00Z",
                Some("2026-10-17T13:00:00Z"),
            ))
        };
        let at_limit = estimate_for(creds(), "2026-10-17T15:00:00Z");
        assert_eq!(at_limit.state, CredentialState::Active);
        let past_limit = estimate_for(creds(), "2026-10-17T15:00:01Z");
        assert_eq!(past_limit.state, CredentialState::Inactive);
        assert!(
            past_limit
                .detail
                .contains("etrade auth renew --environment sandbox --profile default"),
            "{}",
            past_limit.detail
        );
        assert_eq!(
            past_limit.last_used_at.as_deref(),
            Some("2026-10-17T13:00:00Z")
        );
    }

    #[test]
    fn inactivity_without_recorded_use_counts_from_authorization() {
        let est = estimate_for(
            Some(logged_in("2026-10-17T12:00:00Z", None)),
            "2026-10-17T14:00:01Z",
        );
        assert_eq!(est.state, CredentialState::Inactive);
    }

    #[test]
    fn stale_last_use_before_authorization_is_ignored() {
        let creds = logged_in("2026-10-17T12:00:00Z", Some("2026-10-16T12:00:00Z"));
        let est = estimate_for(Some(creds), "2026-10-17T13:00:00Z");
        assert_eq!(est.state, CredentialState::Active);
    }

    #[test]
    fn expired_after_eastern_midnight_even_if_recently_used() {
        let creds = logged_in("2026-10-17T12:00:00Z", Some("2026-10-18T03:59:00Z"));
        let before = estimate_for(Some(creds.clone()), "2026-10-18T03:59:59Z");
        assert_eq!(before.state, CredentialState::Active);
        let at = estimate_for(Some(creds), "2026-10-18T04:00:00Z");
        assert_eq!(at.state, CredentialState::Expired);
        assert_eq!(
            at.detail,
            "Access token expired at midnight US Eastern (2026-10-18T04:00:00Z). Run etrade auth login --environment sandbox --profile default."
        );
    }

    #[test]
    fn summer_midnight_is_four_utc() {
        // EDT (UTC-4): authorized 23:30 on 1 July Eastern, expires 00:00 on 2 July Eastern.
        let creds = logged_in("2026-07-02T03:30:00Z", None);
        let est = estimate_for(Some(creds.clone()), "2026-07-02T04:00:01Z");
        assert_eq!(est.expires_at.as_deref(), Some("2026-07-02T04:00:00Z"));
        assert_eq!(est.state, CredentialState::Expired);
        let est = estimate_for(Some(creds), "2026-07-02T03:59:59Z");
        assert_eq!(est.state, CredentialState::Active);

        // Authorized one second after Eastern midnight: good until the following midnight.
        let est = estimate_for(
            Some(logged_in("2026-07-02T04:00:01Z", None)),
            "2026-07-02T05:00:00Z",
        );
        assert_eq!(est.state, CredentialState::Active);
        assert_eq!(est.expires_at.as_deref(), Some("2026-07-03T04:00:00Z"));
    }

    #[test]
    fn winter_midnight_is_five_utc() {
        // EST (UTC-5): 04:30Z on 15 January is still 23:30 on the 14th in New York.
        let creds = logged_in("2026-01-15T04:30:00Z", None);
        let est = estimate_for(Some(creds.clone()), "2026-01-15T04:59:59Z");
        assert_eq!(est.expires_at.as_deref(), Some("2026-01-15T05:00:00Z"));
        assert_eq!(est.state, CredentialState::Active);
        let est = estimate_for(Some(creds), "2026-01-15T05:00:01Z");
        assert_eq!(est.state, CredentialState::Expired);

        let est = estimate_for(
            Some(logged_in("2026-01-15T05:00:01Z", None)),
            "2026-01-15T06:00:00Z",
        );
        assert_eq!(est.state, CredentialState::Active);
        assert_eq!(est.expires_at.as_deref(), Some("2026-01-16T05:00:00Z"));
    }

    #[test]
    fn dst_change_days_use_the_new_offset() {
        // Spring forward on 8 March 2026: authorized on the 8th (EDT from 02:00), so the
        // next midnight is at UTC-4.
        let est = estimate_for(
            Some(logged_in("2026-03-08T12:00:00Z", None)),
            "2026-03-08T13:00:00Z",
        );
        assert_eq!(est.expires_at.as_deref(), Some("2026-03-09T04:00:00Z"));
        // Fall back on 1 November 2026: the next midnight is at UTC-5.
        let est = estimate_for(
            Some(logged_in("2026-11-01T12:00:00Z", None)),
            "2026-11-01T13:00:00Z",
        );
        assert_eq!(est.expires_at.as_deref(), Some("2026-11-02T05:00:00Z"));
    }

    #[test]
    fn token_without_authorization_time_is_expired() {
        let mut creds = logged_in("2026-10-17T12:00:00Z", None);
        creds.authorized_at = None;
        let est = estimate_for(Some(creds), "2026-10-17T12:00:00Z");
        assert_eq!(est.state, CredentialState::Expired);
        assert_eq!(est.expires_at, None);
    }

    #[test]
    fn timestamps_are_reported_to_the_millisecond_at_most() {
        let creds = logged_in(
            "2026-10-17T12:00:00.75Z",
            Some("2026-10-17T12:10:00.123456Z"),
        );
        let est = estimate_for(Some(creds), "2026-10-17T12:20:00Z");
        assert_eq!(
            est.authorized_at.as_deref(),
            Some("2026-10-17T12:00:00.750Z")
        );
        assert_eq!(
            est.last_used_at.as_deref(),
            Some("2026-10-17T12:10:00.123Z")
        );
    }

    struct BrokenStore;

    impl CredentialStore for BrokenStore {
        fn load(&self, _: &CredentialKey) -> Result<Option<StoredCredentials>, StoreError> {
            Err(StoreError::Unavailable {
                backend: "broken",
                kind: StoreFailure::NoStorageAccess,
            })
        }
        fn save(&self, _: &CredentialKey, _: &StoredCredentials) -> Result<(), StoreError> {
            unreachable!("estimate never writes")
        }
        fn delete(&self, _: &CredentialKey) -> Result<(), StoreError> {
            unreachable!("estimate never deletes")
        }
        fn backend_name(&self) -> &'static str {
            "broken"
        }
    }

    #[test]
    fn store_failure_is_unavailable() {
        let est = estimate(&BrokenStore, &sandbox(), ts("2026-10-17T12:00:00Z"));
        assert_eq!(est.state, CredentialState::Unavailable);
        assert_eq!(est.backend, "broken");
        assert_eq!(
            est.detail,
            "Credentials could not be read: the credential store is unavailable (broken: access denied or locked). Check the broken keyring, then run etrade auth login --environment sandbox --profile default."
        );
    }

    #[test]
    fn serializes_with_snake_case_state() {
        let est = estimate_for(
            Some(logged_in("2026-10-17T12:00:00Z", None)),
            "2026-10-17T13:00:00Z",
        );
        let json = serde_json::to_value(&est).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({
                "state": "active",
                "required": true,
                "environment": "sandbox",
                "profile": "default",
                "backend": "mock",
                "authorized_at": "2026-10-17T12:00:00Z",
                "last_used_at": null,
                "expires_at": "2026-10-18T04:00:00Z",
                "detail": "Token estimated active from local records; this does not prove broker authorization."
            })
        );
        for (state, name) in [
            (CredentialState::Missing, "missing"),
            (CredentialState::Present, "present"),
            (CredentialState::Inactive, "inactive"),
            (CredentialState::Expired, "expired"),
            (CredentialState::Unavailable, "unavailable"),
        ] {
            assert_eq!(serde_json::to_value(state).expect("serializes"), name);
        }
    }

    #[test]
    fn estimate_never_reveals_secrets() {
        const CANARY: &str = "canary-estimate-91b2";
        let mut creds = StoredCredentials::new(CANARY, Secret::new(CANARY));
        creds.authorize(
            Secret::new(CANARY),
            Secret::new(CANARY),
            ts("2026-10-17T12:00:00Z"),
        );
        for now in [
            "2026-10-17T13:00:00Z",
            "2026-10-17T15:00:00Z",
            "2026-10-18T12:00:00Z",
        ] {
            let est = estimate_for(Some(creds.clone()), now);
            let json = serde_json::to_string(&est).expect("serializes");
            assert!(!json.contains(CANARY), "{json}");
            assert!(!format!("{est:?}").contains(CANARY));
        }
    }

    /// Counts its loads; what it holds can be swapped as `etrade auth` in another process
    /// would.
    struct CountingStore {
        inner: KeyringStore,
        loads: std::sync::atomic::AtomicUsize,
    }

    impl CredentialStore for CountingStore {
        fn load(&self, key: &CredentialKey) -> Result<Option<StoredCredentials>, StoreError> {
            self.loads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            self.inner.load(key)
        }
        fn save(&self, key: &CredentialKey, c: &StoredCredentials) -> Result<(), StoreError> {
            self.inner.save(key, c)
        }
        fn delete(&self, key: &CredentialKey) -> Result<(), StoreError> {
            self.inner.delete(key)
        }
        fn backend_name(&self) -> &'static str {
            "counting"
        }
    }

    fn counting() -> CountingStore {
        CountingStore {
            inner: KeyringStore::mock().expect("mock"),
            loads: Default::default(),
        }
    }

    #[test]
    fn recent_reads_share_one_load_and_judge_each_call_at_its_own_time() {
        let store = counting();
        let key = sandbox();
        store
            .save(&key, &logged_in("2026-10-17T12:00:00Z", None))
            .expect("save");
        let reads = RecentReads::new(Duration::from_secs(3600));
        let first = reads.estimate(&store, &key, ts("2026-10-17T12:30:00Z"));
        assert_eq!(first.state, CredentialState::Active);
        // The same read, judged later: past midnight US Eastern the token has expired.
        let later = reads.estimate(&store, &key, ts("2026-10-18T12:00:00Z"));
        assert_eq!(later.state, CredentialState::Expired);
        assert_eq!(store.loads.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(later, estimate(&store, &key, ts("2026-10-18T12:00:00Z")));
    }

    #[test]
    fn recent_reads_read_again_after_the_ttl() {
        let store = counting();
        let key = sandbox();
        let reads = RecentReads::new(Duration::ZERO);
        let now = ts("2026-10-17T12:30:00Z");
        assert_eq!(
            reads.estimate(&store, &key, now).state,
            CredentialState::Missing
        );
        // A login elsewhere: the next read sees it.
        store
            .save(&key, &logged_in("2026-10-17T12:00:00Z", None))
            .expect("save");
        assert_eq!(
            reads.estimate(&store, &key, now).state,
            CredentialState::Active
        );
        assert_eq!(store.loads.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    #[test]
    fn recent_reads_do_not_mix_keys() {
        let store = counting();
        let reads = RecentReads::new(Duration::from_secs(3600));
        let now = ts("2026-10-17T12:30:00Z");
        let sandbox_key = sandbox();
        store
            .save(&sandbox_key, &logged_in("2026-10-17T12:00:00Z", None))
            .expect("save");
        let other = CredentialKey::new(Environment::Sandbox, "other").expect("key");
        assert_eq!(
            reads.estimate(&store, &sandbox_key, now).state,
            CredentialState::Active
        );
        assert_eq!(
            reads.estimate(&store, &other, now).state,
            CredentialState::Missing
        );
    }
}

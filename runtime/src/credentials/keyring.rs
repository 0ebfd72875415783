//! [`CredentialStore`] backed by a `keyring-core` store: the platform's keyring (see
//! [`crate::platform::native_stores`]), or keyring-core's in-memory mock in tests.

use std::fmt;
use std::sync::Arc;

use keyring_core::{Entry, Error as KeyringError};

use super::{
    CredentialKey, CredentialStore, DecodeFailure, StoreError, StoreFailure, StoredCredentials,
};

/// Credentials kept in a keyring, one entry per [`CredentialKey`].
///
/// Entries are created in the wrapped store rather than keyring-core's process-wide
/// default, so several stores (and parallel tests) never interfere.
pub struct KeyringStore {
    store: Arc<keyring_core::CredentialStore>,
    backend: &'static str,
}

impl KeyringStore {
    /// The Linux kernel keyutils keyring (an error on other systems).
    pub fn linux_keyutils() -> Result<KeyringStore, StoreError> {
        let store = crate::platform::native_stores::kernel_keyring()
            .map_err(|err| unavailable("linux-keyutils", &err))?;
        Ok(Self::named(store, "linux-keyutils"))
    }

    /// An in-memory store that forgets everything when dropped.
    pub fn mock() -> Result<KeyringStore, StoreError> {
        let store = keyring_core::mock::Store::new().map_err(|err| unavailable("mock", &err))?;
        Ok(Self::named(store, "mock"))
    }

    /// Wraps an already configured keyring-core store.
    pub fn from_store(store: Arc<keyring_core::CredentialStore>) -> KeyringStore {
        Self::named(store, "keyring")
    }

    pub(crate) fn named(
        store: Arc<keyring_core::CredentialStore>,
        backend: &'static str,
    ) -> KeyringStore {
        KeyringStore { store, backend }
    }

    fn entry(&self, key: &CredentialKey) -> Result<Entry, StoreError> {
        Entry::new_in_store(&self.store, key.service(), &key.user())
            .map_err(|err| unavailable(self.backend, &err))
    }

    fn undecodable(&self, key: &CredentialKey, reason: DecodeFailure) -> StoreError {
        StoreError::Undecodable {
            backend: self.backend,
            entry: key.user(),
            reason,
        }
    }
}

impl fmt::Debug for KeyringStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyringStore")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl CredentialStore for KeyringStore {
    fn load(&self, key: &CredentialKey) -> Result<Option<StoredCredentials>, StoreError> {
        let json = match self.entry(key)?.get_password() {
            Ok(json) => json,
            Err(KeyringError::NoEntry) => return Ok(None),
            Err(KeyringError::BadEncoding(_)) => {
                return Err(self.undecodable(key, DecodeFailure::NotUtf8));
            }
            Err(err) => return Err(unavailable(self.backend, &err)),
        };
        // serde_json messages quote the offending input, which here is secret material,
        // so only the error category survives.
        serde_json::from_str(&json).map(Some).map_err(|err| {
            let reason = match err.classify() {
                serde_json::error::Category::Data => DecodeFailure::UnexpectedShape,
                _ => DecodeFailure::NotJson,
            };
            self.undecodable(key, reason)
        })
    }

    fn save(&self, key: &CredentialKey, credentials: &StoredCredentials) -> Result<(), StoreError> {
        let json = serde_json::to_string(credentials).map_err(|_| StoreError::Encode)?;
        self.entry(key)?
            .set_password(&json)
            .map_err(|err| unavailable(self.backend, &err))
    }

    fn delete(&self, key: &CredentialKey) -> Result<(), StoreError> {
        match self.entry(key)?.delete_credential() {
            Ok(()) | Err(KeyringError::NoEntry) => Ok(()),
            Err(err) => Err(unavailable(self.backend, &err)),
        }
    }

    fn backend_name(&self) -> &'static str {
        self.backend
    }
}

/// Classifies a keyring error; its text and payload are dropped because platform
/// messages and `BadDataFormat` bytes can contain the stored secret.
pub(super) fn unavailable(backend: &'static str, err: &KeyringError) -> StoreError {
    let kind = match err {
        KeyringError::PlatformFailure(_) => StoreFailure::PlatformFailure,
        KeyringError::NoStorageAccess(_) => StoreFailure::NoStorageAccess,
        KeyringError::TooLong(..) | KeyringError::Invalid(..) => StoreFailure::InvalidEntry,
        KeyringError::Ambiguous(_) => StoreFailure::AmbiguousEntry,
        KeyringError::NotSupportedByStore(_) | KeyringError::NoDefaultStore => {
            StoreFailure::NotSupported
        }
        _ => StoreFailure::Other,
    };
    tracing::debug!(backend, %kind, "credential store operation failed");
    StoreError::Unavailable { backend, kind }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Environment;
    use crate::credentials::Secret;

    const CANARY: &str = "canary-7c1e-do-not-print";

    fn mock_pair() -> (Arc<keyring_core::CredentialStore>, KeyringStore) {
        let raw: Arc<keyring_core::CredentialStore> =
            keyring_core::mock::Store::new().expect("mock store");
        (raw.clone(), KeyringStore::named(raw, "mock"))
    }

    fn key() -> CredentialKey {
        CredentialKey::new(Environment::Sandbox, "default").expect("valid key")
    }

    fn raw_entry(raw: &Arc<keyring_core::CredentialStore>, key: &CredentialKey) -> Entry {
        Entry::new_in_store(raw, "etrade-mcp", &key.user()).expect("entry")
    }

    fn fail_next(raw: &Arc<keyring_core::CredentialStore>, key: &CredentialKey, err: KeyringError) {
        let entry = raw_entry(raw, key);
        let cred: &keyring_core::mock::Cred = entry.as_any().downcast_ref().expect("mock cred");
        cred.set_error(err);
    }

    fn canary_credentials() -> StoredCredentials {
        let mut creds = StoredCredentials::new(CANARY, Secret::new(CANARY));
        creds.authorize(
            Secret::new(CANARY),
            Secret::new(CANARY),
            "2026-10-17T12:00:00Z".parse().expect("ts"),
        );
        creds
    }

    #[test]
    fn save_load_delete_round_trip() {
        let (_, store) = mock_pair();
        let key = key();
        assert_eq!(store.load(&key).expect("load"), None);

        let creds = canary_credentials();
        store.save(&key, &creds).expect("save");
        assert_eq!(store.load(&key).expect("load"), Some(creds));

        store.delete(&key).expect("delete");
        assert_eq!(store.load(&key).expect("load"), None);
        store.delete(&key).expect("deleting again is fine");
    }

    #[test]
    fn entries_are_per_environment_and_profile() {
        let (raw, store) = mock_pair();
        let sandbox = key();
        let production = CredentialKey::new(Environment::Production, "default").expect("key");
        store.save(&sandbox, &canary_credentials()).expect("save");
        assert_eq!(store.load(&production).expect("load"), None);
        // The entry lives under the documented service and user names.
        let json = raw_entry(&raw, &sandbox).get_password().expect("raw entry");
        assert!(json.starts_with("{\"consumer_key\":"), "stored as JSON");
    }

    #[test]
    fn stores_are_isolated_from_each_other() {
        let (_, first) = mock_pair();
        let (_, second) = mock_pair();
        first.save(&key(), &canary_credentials()).expect("save");
        assert_eq!(second.load(&key()).expect("load"), None);
    }

    #[test]
    fn undecodable_entries_are_errors_without_contents() {
        let (raw, store) = mock_pair();
        let key = key();
        let cases = [
            (
                format!("{{\"consumer_key\": \"{CANARY}\""),
                DecodeFailure::NotJson,
            ),
            (format!("not json {CANARY}"), DecodeFailure::NotJson),
            (
                format!("{{\"consumer_key\": 7, \"consumer_secret\": \"{CANARY}\"}}"),
                DecodeFailure::UnexpectedShape,
            ),
            (format!("[\"{CANARY}\"]"), DecodeFailure::UnexpectedShape),
        ];
        for (contents, reason) in cases {
            raw_entry(&raw, &key).set_password(&contents).expect("seed");
            let err = store.load(&key).expect_err("undecodable");
            assert_eq!(
                err,
                StoreError::Undecodable {
                    backend: "mock",
                    entry: "sandbox:default".into(),
                    reason
                },
                "{contents}"
            );
            assert!(!err.to_string().contains(CANARY));
            assert!(!format!("{err:?}").contains(CANARY));
        }

        raw_entry(&raw, &key)
            .set_secret(&[0xff, 0xfe])
            .expect("seed bytes");
        assert!(matches!(
            store.load(&key),
            Err(StoreError::Undecodable {
                reason: DecodeFailure::NotUtf8,
                ..
            })
        ));
    }

    #[test]
    fn platform_errors_are_classified_and_sanitized() {
        let (raw, store) = mock_pair();
        let key = key();
        let platform = || -> keyring_core::error::PlatformError { CANARY.into() };

        fail_next(&raw, &key, KeyringError::PlatformFailure(platform()));
        let err = store.load(&key).expect_err("platform failure");
        assert_eq!(
            err.to_string(),
            "the credential store is unavailable (mock: platform failure)"
        );
        assert!(!format!("{err:?}").contains(CANARY));

        fail_next(&raw, &key, KeyringError::NoStorageAccess(platform()));
        let err = store.save(&key, &canary_credentials()).expect_err("locked");
        assert_eq!(
            err,
            StoreError::Unavailable {
                backend: "mock",
                kind: StoreFailure::NoStorageAccess
            }
        );

        fail_next(
            &raw,
            &key,
            KeyringError::BadDataFormat(CANARY.as_bytes().to_vec(), platform()),
        );
        let err = store.delete(&key).expect_err("bad data");
        assert!(!err.to_string().contains(CANARY));
        assert!(!format!("{err:?}").contains(CANARY));

        // The injected error is consumed; the store works again afterwards.
        store.save(&key, &canary_credentials()).expect("save");
    }

    #[test]
    fn debug_of_records_and_store_hides_canaries() {
        let (_, store) = mock_pair();
        let creds = canary_credentials();
        let debug = format!("{creds:?}");
        assert!(!debug.contains(CANARY), "{debug}");
        assert!(debug.contains("[redacted]"));
        assert!(
            debug.contains("authorized_at"),
            "non-secret fields stay visible"
        );
        let secret = Secret::new(CANARY);
        assert!(!format!("{secret:?} {secret}").contains(CANARY));
        assert!(!format!("{store:?}").contains(CANARY));
    }

    #[test]
    fn constructors_name_their_backend() {
        assert_eq!(KeyringStore::mock().expect("mock").backend_name(), "mock");
        let (raw, _) = mock_pair();
        assert_eq!(KeyringStore::from_store(raw).backend_name(), "keyring");
        // Construction only; touching the kernel keyring is left to integration testing.
        #[cfg(target_os = "linux")]
        assert_eq!(
            KeyringStore::linux_keyutils()
                .expect("keyutils")
                .backend_name(),
            "linux-keyutils"
        );
    }
}

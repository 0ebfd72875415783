//! E*TRADE credentials: what is stored, where, and a local estimate of whether it still works.
//!
//! Nothing here talks to the broker. The store ([`choice`] picks one per platform and
//! profile) holds one entry per environment and profile; [`estimate`] reads it and applies
//! E*TRADE's published token lifetime rules.

mod choice;
mod coordination;
mod estimate;
mod file_store;
mod keyring;
mod record;
mod secret;

pub use choice::{OpenStoreError, OpenedStore, StoreChoice, UnknownStore, open_store};
pub use coordination::{CoordinationError, Coordinator, CredentialLock, DEFAULT_LOCK_TIMEOUT};
pub use estimate::{
    CredentialEstimate, CredentialState, RECENT_READ_TTL, RecentReads, estimate, state_of,
};
pub use file_store::{FILE_NAME as CREDENTIALS_FILE_NAME, FileStore};
pub use keyring::KeyringStore;
pub use record::StoredCredentials;
pub use secret::Secret;

use std::fmt;

use crate::config::{Environment, ProfileNameError, Settings, validate_profile_name};

/// Keyring service name shared by every etrade-mcp entry.
pub const KEYRING_SERVICE: &str = "etrade-mcp";

/// Identifies one keyring entry; a profile is only meaningful within an environment
/// because sandbox and production issue different consumer keys.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CredentialKey {
    environment: Environment,
    profile: String,
}

impl CredentialKey {
    pub fn new(
        environment: Environment,
        profile: impl Into<String>,
    ) -> Result<CredentialKey, ProfileNameError> {
        let profile = profile.into();
        // The profile becomes part of the keyring user name, where `:` would make
        // entries ambiguous, so the same rules as the config file apply.
        validate_profile_name(&profile)?;
        Ok(CredentialKey {
            environment,
            profile,
        })
    }

    pub fn from_settings(settings: &Settings) -> Result<CredentialKey, ProfileNameError> {
        Self::new(settings.environment, settings.profile.clone())
    }

    pub fn environment(&self) -> Environment {
        self.environment
    }

    pub fn profile(&self) -> &str {
        &self.profile
    }

    pub fn service(&self) -> &'static str {
        KEYRING_SERVICE
    }

    /// Keyring user name: `{environment}:{profile}`.
    pub fn user(&self) -> String {
        format!("{}:{}", self.environment, self.profile)
    }
}

impl fmt::Display for CredentialKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.environment, self.profile)
    }
}

/// Persistence for [`StoredCredentials`], abstracted so the server and tests can swap
/// the platform keyring for an in-memory one.
pub trait CredentialStore: Send + Sync {
    /// `Ok(None)` means no entry exists for `key`.
    fn load(&self, key: &CredentialKey) -> Result<Option<StoredCredentials>, StoreError>;
    fn save(&self, key: &CredentialKey, credentials: &StoredCredentials) -> Result<(), StoreError>;
    /// Deleting an entry that does not exist succeeds, so logout is idempotent.
    fn delete(&self, key: &CredentialKey) -> Result<(), StoreError>;
    /// Short, stable name of the backend for status reports, e.g. `linux-keyutils`.
    fn backend_name(&self) -> &'static str;
}

/// A credential store failure.
///
/// Deliberately carries only classifications, never the platform's error text or the
/// entry's bytes: both can echo secret material, and these errors reach logs and MCP
/// clients.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("the credential store is unavailable ({backend}: {kind})")]
    Unavailable {
        backend: &'static str,
        kind: StoreFailure,
    },
    #[error("the stored credentials for {entry} cannot be decoded ({backend}: {reason})")]
    Undecodable {
        backend: &'static str,
        /// The keyring user name (`environment:profile`), which is not secret.
        entry: String,
        reason: DecodeFailure,
    },
    #[error("the credentials cannot be encoded for storage")]
    Encode,
}

/// Why a store operation failed, reduced to a kind that is safe to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreFailure {
    PlatformFailure,
    NoStorageAccess,
    InvalidEntry,
    AmbiguousEntry,
    NotSupported,
    Other,
}

impl fmt::Display for StoreFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StoreFailure::PlatformFailure => "platform failure",
            StoreFailure::NoStorageAccess => "access denied or locked",
            StoreFailure::InvalidEntry => "invalid entry name",
            StoreFailure::AmbiguousEntry => "more than one matching entry",
            StoreFailure::NotSupported => "operation not supported",
            StoreFailure::Other => "unexpected error",
        })
    }
}

/// Why an entry's contents could not be read back as [`StoredCredentials`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeFailure {
    NotUtf8,
    NotJson,
    UnexpectedShape,
}

impl fmt::Display for DecodeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DecodeFailure::NotUtf8 => "not UTF-8 text",
            DecodeFailure::NotJson => "not valid JSON",
            DecodeFailure::UnexpectedShape => "unexpected fields or value types",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_the_keyring_entry() {
        let key = CredentialKey::new(Environment::Sandbox, "default").expect("valid");
        assert_eq!(key.service(), "etrade-mcp");
        assert_eq!(key.user(), "sandbox:default");
        assert_eq!(key.to_string(), "sandbox:default");
        assert_eq!(key.environment(), Environment::Sandbox);
        assert_eq!(key.profile(), "default");
    }

    #[test]
    fn key_rejects_profiles_that_would_be_ambiguous() {
        assert!(CredentialKey::new(Environment::Production, "a:b").is_err());
        assert!(CredentialKey::new(Environment::Production, "").is_err());
    }

    #[test]
    fn key_from_settings() {
        let settings = Settings {
            environment: Environment::Production,
            profile: "live".into(),
        };
        let key = CredentialKey::from_settings(&settings).expect("valid");
        assert_eq!(key.user(), "production:live");
    }

    #[test]
    fn store_errors_read_as_one_line_summaries() {
        let err = StoreError::Unavailable {
            backend: "linux-keyutils",
            kind: StoreFailure::PlatformFailure,
        };
        assert_eq!(
            err.to_string(),
            "the credential store is unavailable (linux-keyutils: platform failure)"
        );
        let err = StoreError::Undecodable {
            backend: "mock",
            entry: "sandbox:default".into(),
            reason: DecodeFailure::NotJson,
        };
        assert_eq!(
            err.to_string(),
            "the stored credentials for sandbox:default cannot be decoded (mock: not valid JSON)"
        );
    }
}

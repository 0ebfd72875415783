//! What every command resolves first: state paths, config.toml, the effective settings and
//! the credential store.

use super::StoreArg;
use anyhow::Context;
use runtime::config::{ConfigFile, Environment, Settings};
use runtime::credentials::{
    CredentialKey, CredentialStore, KeyringStore, StoreError, StoreFailure, StoredCredentials,
};
use runtime::paths::StatePaths;
use std::sync::Arc;

pub struct Setup {
    pub paths: StatePaths,
    pub file: ConfigFile,
    pub settings: Settings,
}

impl Setup {
    pub fn resolve(
        environment: Option<Environment>,
        profile: Option<String>,
    ) -> anyhow::Result<Setup> {
        let paths = StatePaths::from_env().context("cannot locate the configuration folder")?;
        let file = ConfigFile::load(&paths.config_file())?;
        let settings = Settings::resolve(&file, environment, profile)?;
        Ok(Setup {
            paths,
            file,
            settings,
        })
    }

    pub fn credential_key(&self) -> anyhow::Result<CredentialKey> {
        Ok(CredentialKey::from_settings(&self.settings)?)
    }
}

pub fn credential_store(choice: StoreArg) -> Arc<dyn CredentialStore> {
    let made = match choice {
        StoreArg::Keyutils => KeyringStore::linux_keyutils(),
        StoreArg::Memory => KeyringStore::mock(),
    };
    match made {
        Ok(store) => Arc::new(store),
        Err(e) => {
            // Not fatal: server_status reports the store as unavailable.
            tracing::warn!(error = %e, "credential store unavailable");
            Arc::new(UnavailableStore)
        }
    }
}

/// Stands in when the platform store cannot be opened, so every read reports it.
struct UnavailableStore;

impl CredentialStore for UnavailableStore {
    fn load(&self, _: &CredentialKey) -> Result<Option<StoredCredentials>, StoreError> {
        Err(self.error())
    }
    fn save(&self, _: &CredentialKey, _: &StoredCredentials) -> Result<(), StoreError> {
        Err(self.error())
    }
    fn delete(&self, _: &CredentialKey) -> Result<(), StoreError> {
        Err(self.error())
    }
    fn backend_name(&self) -> &'static str {
        "unavailable"
    }
}

impl UnavailableStore {
    fn error(&self) -> StoreError {
        StoreError::Unavailable {
            backend: "unavailable",
            kind: StoreFailure::PlatformFailure,
        }
    }
}

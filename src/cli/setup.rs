//! What every command resolves first: state paths, config.toml, the effective settings and
//! the credential store.

use anyhow::Context;
use runtime::config::{ConfigFile, Environment, Settings};
use runtime::credentials::{
    CredentialKey, CredentialStore, OpenStoreError, OpenedStore, StoreChoice, StoreError,
    StoreFailure, StoredCredentials, open_store,
};
use runtime::paths::StatePaths;
use runtime::trading::policy::TradingPolicy;
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
        // The vault's profiles come only from its vault.toml: a name it does not hold is not
        // a profile with defaults, it is a mistake (or a probe).
        if runtime::paths::inside_vault() && file.profile(&settings.profile).is_none() {
            anyhow::bail!(
                "the trading vault has no profile {:?}: its profiles are the tables of its vault.toml",
                settings.profile
            );
        }
        Ok(Setup {
            paths,
            file,
            settings,
        })
    }

    pub fn credential_key(&self) -> anyhow::Result<CredentialKey> {
        Ok(CredentialKey::from_settings(&self.settings)?)
    }

    /// This profile's trading policy, from its `[trading]` table and the environment: what
    /// the server enforces, and what `etrade approve` reads to know whether a person is asked.
    pub fn trading_policy(&self) -> TradingPolicy {
        let policy = TradingPolicy::resolve(
            self.file
                .profile(&self.settings.profile)
                .and_then(|p| p.trading.as_ref()),
            self.settings.environment,
        );
        match self.person_narrowing() {
            Some(narrower) => policy.narrowed_by(&narrower),
            None => policy,
        }
    }

    /// In the vault: the person's own `[trading]` table for this profile, which may only
    /// tighten the vault's.
    fn person_narrowing(&self) -> Option<runtime::config::trading::TradingConfig> {
        if !runtime::paths::inside_vault() {
            return None;
        }
        let json = std::env::var(runtime::vault::wire::NARROW_VAR).ok()?;
        let tables: Vec<(String, runtime::config::trading::TradingConfig)> =
            serde_json::from_str(&json).ok()?;
        tables
            .into_iter()
            .find(|(profile, _)| *profile == self.settings.profile)
            .map(|(_, table)| table)
    }
}

impl Setup {
    /// Opens the chosen credential store; `auto` says on stderr, in one line, which store it
    /// picked and why.
    pub fn open_credential_store(
        &self,
        flag: Option<StoreChoice>,
    ) -> Result<OpenedStore, OpenStoreError> {
        let choice = StoreChoice::resolve(flag, &self.file, &self.settings.profile);
        let opened = open_store(choice, &self.paths.data_dir)?;
        if let Some(notice) = &opened.notice {
            crate::cli::output::noteln!("etrade: credentials: {notice}");
        }
        Ok(opened)
    }

    /// For the server: a store that cannot be opened is not fatal (paper needs none, and
    /// `server_status` reports it as unavailable), but it is said once on stderr.
    pub fn credential_store_or_unavailable(
        &self,
        flag: Option<StoreChoice>,
    ) -> Arc<dyn CredentialStore> {
        match self.open_credential_store(flag) {
            Ok(opened) => opened.store,
            Err(e) => {
                crate::cli::output::noteln!("etrade: {e}");
                Arc::new(UnavailableStore)
            }
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

/// The approval PIN of the store in `dir`: in the vault, asked for every approval and lifted
/// halt even before one is set (any local program can reach the vault, so a vault without a
/// PIN would let any of them approve).
pub fn approval_pin(
    store: std::sync::Arc<runtime::trading::store::TradingStore>,
    dir: &std::path::Path,
) -> runtime::trading::approval_pin::ApprovalPin {
    let pin = runtime::trading::approval_pin::ApprovalPin::new(store, dir);
    if runtime::paths::inside_vault() {
        pin.always_asked()
    } else {
        pin
    }
}

/// Who this command acts for when the vault runs it: the OS's word on the connection's peer
/// (`uid 1000 pid 4242`), for the journal; `None` outside the vault.
pub fn vault_peer() -> Option<String> {
    if !runtime::paths::inside_vault() {
        return None;
    }
    std::env::var(runtime::vault::supervisor::PEER_VAR)
        .ok()
        .filter(|p| !p.is_empty())
}

/// HTTP client settings; `ETRADE_MCP_RATE_SCALE` raises the request pacing and
/// `ETRADE_MCP_HTTP_TIMEOUT_MS` sets the per-request deadline (tests against the fake).
pub fn client_options() -> runtime::etrade::ClientOptions {
    let mut o = runtime::etrade::ClientOptions::default();
    if let Some(ms) = std::env::var("ETRADE_MCP_HTTP_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        o.timeout = std::time::Duration::from_millis(ms);
    }
    if let Some(scale) = std::env::var("ETRADE_MCP_RATE_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        o.rate_scale = scale;
    }
    o
}

/// The credential lock for this state folder; `ETRADE_MCP_LOCK_TIMEOUT_MS` shortens the wait.
pub fn coordinator(setup: &Setup) -> anyhow::Result<runtime::credentials::Coordinator> {
    let timeout = std::env::var("ETRADE_MCP_LOCK_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(std::time::Duration::from_millis)
        .unwrap_or(runtime::credentials::DEFAULT_LOCK_TIMEOUT);
    let dir = setup.paths.ensure_data_dir()?;
    Ok(runtime::credentials::Coordinator::new(dir, timeout))
}

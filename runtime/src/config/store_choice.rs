//! A credential store by name: the value of `credential_store` in a profile, of
//! `--credential-store` and of `ETRADE_MCP_CREDENTIAL_STORE`. Opening one is the credentials
//! layer's job; naming one is configuration.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::ConfigFile;
use crate::platform::Os;

/// A credential store by name, as written in `config.toml`, `--credential-store` and
/// `ETRADE_MCP_CREDENTIAL_STORE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StoreChoice {
    /// The platform's persistent store, falling back in a stated order.
    #[default]
    Auto,
    /// The macOS Keychain.
    Keychain,
    /// The Windows Credential Manager.
    Windows,
    /// The freedesktop Secret Service over D-Bus (GNOME Keyring, KWallet, KeePassXC).
    SecretService,
    /// The Linux kernel keyring: in memory, gone at reboot.
    Keyutils,
    /// One owner-only JSON file in the state folder (opt-in).
    File,
    /// In memory, empty at start (tests).
    Memory,
}

impl StoreChoice {
    pub const ALL: [StoreChoice; 7] = [
        StoreChoice::Auto,
        StoreChoice::Keychain,
        StoreChoice::Windows,
        StoreChoice::SecretService,
        StoreChoice::Keyutils,
        StoreChoice::File,
        StoreChoice::Memory,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            StoreChoice::Auto => "auto",
            StoreChoice::Keychain => "keychain",
            StoreChoice::Windows => "windows",
            StoreChoice::SecretService => "secret-service",
            StoreChoice::Keyutils => "keyutils",
            StoreChoice::File => "file",
            StoreChoice::Memory => "memory",
        }
    }

    /// The backend name a store of this kind reports (`server_status.credentials.backend`).
    pub fn backend(self) -> &'static str {
        match self {
            StoreChoice::Auto => "auto",
            StoreChoice::Keychain => "keychain",
            StoreChoice::Windows => "windows-credential-manager",
            StoreChoice::SecretService => "secret-service",
            StoreChoice::Keyutils => "linux-keyutils",
            StoreChoice::File => "file",
            StoreChoice::Memory => "mock",
        }
    }

    /// Whether this store exists on `os` at all.
    pub fn exists_on(self, os: Os) -> bool {
        match self {
            StoreChoice::Auto | StoreChoice::File | StoreChoice::Memory => true,
            StoreChoice::Keychain => os == Os::MacOs,
            StoreChoice::Windows => os == Os::Windows,
            StoreChoice::SecretService | StoreChoice::Keyutils => os == Os::Linux,
        }
    }

    /// The stores a person may pick on `os`, for messages.
    pub fn available_on(os: Os) -> Vec<StoreChoice> {
        Self::ALL
            .into_iter()
            .filter(|c| c.exists_on(os) && *c != StoreChoice::Auto)
            .collect()
    }

    /// The stores worth naming to a person on `os`: the available ones but the test store.
    pub fn offered_on(os: Os) -> impl Iterator<Item = StoreChoice> {
        Self::available_on(os)
            .into_iter()
            .filter(|c| *c != StoreChoice::Memory)
    }

    /// The store a command uses: the flag (or `ETRADE_MCP_CREDENTIAL_STORE`), else the
    /// profile's `credential_store` in `config.toml`, else `auto`.
    pub fn resolve(flag: Option<StoreChoice>, file: &ConfigFile, profile: &str) -> StoreChoice {
        flag.or_else(|| file.profile(profile).and_then(|p| p.credential_store))
            .unwrap_or_default()
    }

    /// What `auto` tries on `os`, in order.
    pub fn auto_order(os: Os) -> &'static [StoreChoice] {
        match os {
            Os::MacOs => &[StoreChoice::Keychain],
            Os::Windows => &[StoreChoice::Windows],
            Os::Linux => &[StoreChoice::SecretService, StoreChoice::Keyutils],
            Os::OtherUnix => &[],
        }
    }

    /// One paragraph on what the store is and what it does and does not protect against
    /// (shown by `etrade doctor`).
    pub fn trade_offs(self) -> &'static str {
        match self {
            StoreChoice::Auto => {
                "picks the platform's persistent store: the Keychain on macOS, the Credential \
                 Manager on Windows, the Secret Service on a Linux desktop, else the kernel keyring"
            }
            StoreChoice::Keychain => {
                "the macOS login Keychain: encrypted at rest, unlocked with your login, survives \
                 reboots; other programs running as you may be allowed to read it"
            }
            StoreChoice::Windows => {
                "the Windows Credential Manager: encrypted with your Windows login (DPAPI), \
                 survives reboots; programs running as you can read it"
            }
            StoreChoice::SecretService => {
                "the desktop keyring over D-Bus (GNOME Keyring, KWallet, KeePassXC): encrypted \
                 at rest, unlocked at login, survives reboots; unlocked, programs running as you \
                 can read it"
            }
            StoreChoice::Keyutils => {
                "the Linux kernel keyring: in memory only, so it forgets the consumer key, secret \
                 and token at every reboot (E*TRADE tokens end at midnight US Eastern anyway); for \
                 headless boxes and containers without a D-Bus session"
            }
            StoreChoice::File => {
                "one JSON file in the state folder, owner-only (mode 0600; the per-user profile on \
                 Windows): keeps other users out, but not anything running as you, and the secrets \
                 are not encrypted (backups and disk images carry them)"
            }
            StoreChoice::Memory => "in memory and empty at every start: for tests only",
        }
    }
}

impl fmt::Display for StoreChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown credential store `{0}`, expected one of: auto, keychain, windows, secret-service, keyutils, file, memory"
)]
pub struct UnknownStore(pub String);

impl FromStr for StoreChoice {
    type Err = UnknownStore;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownStore(s.to_owned()))
    }
}

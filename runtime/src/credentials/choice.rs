//! Which credential store a command uses: the choice (flag, environment variable,
//! `credential_store` in the profile, or `auto`), and opening it.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::keyring::unavailable;
use super::{CredentialStore, FileStore, KeyringStore};
use crate::platform::{self, Os, native_stores};

pub use crate::config::store_choice::{StoreChoice, UnknownStore};

/// A store that opened, and for `auto`, the one line saying which and why.
pub struct OpenedStore {
    pub store: Arc<dyn CredentialStore>,
    pub choice: StoreChoice,
    /// For `auto`: which store is used and why, one line (the CLI prints it once on stderr).
    pub notice: Option<String>,
}

impl fmt::Debug for OpenedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenedStore")
            .field("backend", &self.store.backend_name())
            .field("choice", &self.choice)
            .field("notice", &self.notice)
            .finish()
    }
}

/// Why no store could be opened. Every message names the stores that could be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenStoreError {
    #[error("the {store} credential store does not exist on this system; use one of: {others}")]
    NotOnThisSystem { store: StoreChoice, others: String },
    #[error("the {store} credential store cannot be used: {why}; other stores: {others}")]
    Unavailable {
        store: StoreChoice,
        why: String,
        others: String,
    },
    #[error("no credential store works here ({why}); choose one with --credential-store: {others}")]
    NoneWorks { why: String, others: String },
}

/// Opens the chosen store; `state_dir` is where the `file` store keeps its file.
pub fn open_store(choice: StoreChoice, state_dir: &Path) -> Result<OpenedStore, OpenStoreError> {
    open_store_on(platform::CURRENT, choice, state_dir)
}

fn others(os: Os, except: StoreChoice) -> String {
    StoreChoice::offered_on(os)
        .filter(|c| *c != except)
        .map(StoreChoice::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

fn open_store_on(
    os: Os,
    choice: StoreChoice,
    state_dir: &Path,
) -> Result<OpenedStore, OpenStoreError> {
    if !choice.exists_on(os) {
        return Err(OpenStoreError::NotOnThisSystem {
            store: choice,
            others: others(os, choice),
        });
    }
    if choice != StoreChoice::Auto {
        return open_one(choice, state_dir)
            .map(|store| OpenedStore {
                store,
                choice,
                notice: None,
            })
            .map_err(|why| OpenStoreError::Unavailable {
                store: choice,
                why,
                others: others(os, choice),
            });
    }
    let mut reasons: Vec<String> = Vec::new();
    for &candidate in StoreChoice::auto_order(os) {
        match open_one(candidate, state_dir) {
            Ok(store) => {
                let why = if reasons.is_empty() {
                    String::new()
                } else {
                    format!("{}; ", reasons.join("; "))
                };
                let notice = format!(
                    "{why}using {}, {}",
                    candidate.describe(),
                    persistence(candidate)
                );
                return Ok(OpenedStore {
                    store,
                    choice: candidate,
                    notice: Some(notice),
                });
            }
            Err(why) => reasons.push(why),
        }
    }
    if reasons.is_empty() {
        reasons.push("this system has no native credential store".into());
    }
    Err(OpenStoreError::NoneWorks {
        why: reasons.join("; "),
        others: others(os, StoreChoice::Auto),
    })
}

impl StoreChoice {
    /// What the store is, in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            StoreChoice::Keychain => "the macOS Keychain",
            StoreChoice::Windows => "the Windows Credential Manager",
            StoreChoice::SecretService => "the Secret Service on the D-Bus session bus",
            StoreChoice::Keyutils => "the Linux kernel keyring",
            StoreChoice::File => "the credentials file in the state folder",
            StoreChoice::Memory => "an in-memory store",
            StoreChoice::Auto => "the platform's persistent store, else the next in line",
        }
    }
}

fn persistence(choice: StoreChoice) -> &'static str {
    match choice {
        StoreChoice::Keyutils => "which forgets credentials at reboot",
        StoreChoice::Memory => "which starts empty (tests)",
        _ => "which keeps them across reboots",
    }
}

/// Opens one concrete store; the error is a reason safe to show (never platform text,
/// which can echo stored material).
fn open_one(choice: StoreChoice, state_dir: &Path) -> Result<Arc<dyn CredentialStore>, String> {
    let native = match choice {
        StoreChoice::Keychain => native_stores::keychain(),
        StoreChoice::Windows => native_stores::windows_credential_manager(),
        StoreChoice::SecretService if !native_stores::session_bus_advertised() => {
            return Err("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset)".into());
        }
        // With a bus, a failure here is nearly always a missing or locked service, which
        // says more than the classified platform error.
        StoreChoice::SecretService => Ok(native_stores::secret_service().map_err(|_| {
            "the D-Bus session bus has no working Secret Service (start and unlock GNOME \
             Keyring, KWallet or KeePassXC)"
                .to_string()
        })?),
        StoreChoice::Keyutils => native_stores::kernel_keyring(),
        StoreChoice::File => return Ok(Arc::new(FileStore::in_dir(state_dir))),
        StoreChoice::Memory => {
            return KeyringStore::mock()
                .map(|s| Arc::new(s) as Arc<dyn CredentialStore>)
                .map_err(|e| e.to_string());
        }
        StoreChoice::Auto => return Err("auto is not a store".into()),
    };
    match native {
        Ok(store) => Ok(Arc::new(KeyringStore::named(store, choice.backend()))),
        Err(e) => Err(format!(
            "{} did not open ({})",
            choice.describe(),
            unavailable(choice.backend(), &e)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[test]
    fn names_round_trip_and_parse() {
        for c in StoreChoice::ALL {
            assert_eq!(c.as_str().parse::<StoreChoice>(), Ok(c));
            let toml = format!("v = \"{c}\"");
            #[derive(Deserialize)]
            struct V {
                v: StoreChoice,
            }
            let v: V = toml::from_str(&toml).expect("toml");
            assert_eq!(v.v, c);
        }
        let err = "keyring".parse::<StoreChoice>().expect_err("unknown");
        assert!(err.to_string().contains("secret-service"));
    }

    #[test]
    fn each_platform_offers_its_own_stores() {
        let names = |os| -> Vec<&str> {
            StoreChoice::available_on(os)
                .into_iter()
                .map(StoreChoice::as_str)
                .collect()
        };
        assert_eq!(names(Os::MacOs), ["keychain", "file", "memory"]);
        assert_eq!(names(Os::Windows), ["windows", "file", "memory"]);
        assert_eq!(
            names(Os::Linux),
            ["secret-service", "keyutils", "file", "memory"]
        );
        assert_eq!(
            StoreChoice::auto_order(Os::Linux)[0],
            StoreChoice::SecretService
        );
    }

    #[test]
    fn a_store_from_another_platform_is_refused_with_the_alternatives() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = open_store_on(Os::Linux, StoreChoice::Keychain, dir.path()).expect_err("no");
        assert_eq!(
            err.to_string(),
            "the keychain credential store does not exist on this system; use one of: secret-service, keyutils, file"
        );
        let err = open_store_on(Os::MacOs, StoreChoice::Keyutils, dir.path()).expect_err("no");
        assert!(
            err.to_string().ends_with("use one of: keychain, file"),
            "{err}"
        );
    }

    #[test]
    fn file_and_memory_open_anywhere() {
        let dir = tempfile::tempdir().expect("tempdir");
        let opened = open_store(StoreChoice::File, dir.path()).expect("file");
        assert_eq!(opened.store.backend_name(), "file");
        assert_eq!(opened.notice, None);
        let opened = open_store(StoreChoice::Memory, dir.path()).expect("memory");
        assert_eq!(opened.store.backend_name(), "mock");
    }

    #[test]
    fn other_unix_auto_has_nothing_to_pick_and_says_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = open_store_on(Os::OtherUnix, StoreChoice::Auto, dir.path()).expect_err("none");
        let text = err.to_string();
        assert!(text.contains("no native credential store"), "{text}");
        assert!(text.contains("file"), "{text}");
    }
}

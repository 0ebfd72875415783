//! [`CredentialStore`] in one owner-only JSON file in the state folder, for containers and
//! servers that have no keyring at all.
//!
//! What it protects against: other local users (the file is 0600 inside a 0700 folder on
//! Unix; inside the per-user profile on Windows). What it does not: anything that runs as
//! the same user, and anyone who can read the disk or its backups — the secrets are stored
//! as they are, not encrypted. That is why it is opt-in only.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{
    CredentialKey, CredentialStore, DecodeFailure, StoreError, StoreFailure, StoredCredentials,
};
use crate::platform;

pub const BACKEND: &str = "file";
/// The file's name inside the state folder.
pub const FILE_NAME: &str = "credentials.json";
const FORMAT: u32 = 1;

/// The file's shape. Entries stay raw JSON so that one entry that no longer decodes does
/// not stop the others from loading or being rewritten.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Contents {
    format: u32,
    entries: BTreeMap<String, serde_json::Value>,
}

/// Credentials in `<state folder>/credentials.json`, one entry per [`CredentialKey`].
#[derive(Debug, Clone)]
pub struct FileStore {
    path: PathBuf,
    lock_path: PathBuf,
}

impl FileStore {
    /// The store kept in `state_dir` (created owner-only on first write).
    pub fn in_dir(state_dir: &Path) -> FileStore {
        FileStore {
            path: state_dir.join(FILE_NAME),
            lock_path: state_dir.join("locks").join("credentials-file.lock"),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<Contents, StoreError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Contents::default()),
            Err(e) => return Err(io_failure(e.kind())),
        };
        let text =
            std::str::from_utf8(&bytes).map_err(|_| self.whole_file(DecodeFailure::NotUtf8))?;
        // serde_json's messages quote the input, which here is secret material: only the
        // category survives.
        let contents: Contents = serde_json::from_str(text).map_err(|e| {
            self.whole_file(match e.classify() {
                serde_json::error::Category::Data => DecodeFailure::UnexpectedShape,
                _ => DecodeFailure::NotJson,
            })
        })?;
        if contents.format != FORMAT {
            return Err(self.whole_file(DecodeFailure::UnexpectedShape));
        }
        Ok(contents)
    }

    fn whole_file(&self, reason: DecodeFailure) -> StoreError {
        StoreError::Undecodable {
            backend: BACKEND,
            entry: FILE_NAME.to_string(),
            reason,
        }
    }

    /// Read-modify-write under an exclusive lock, so two processes saving different
    /// entries never lose one of them.
    fn update(&self, change: impl FnOnce(&mut Contents)) -> Result<(), StoreError> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        platform::create_private_dir(dir).map_err(|e| io_failure(e.kind()))?;
        if let Some(locks) = self.lock_path.parent() {
            platform::create_private_dir(locks).map_err(|e| io_failure(e.kind()))?;
        }
        let mut options = OpenOptions::new();
        options.create(true).truncate(false).write(true);
        let lock = platform::owner_only(&mut options)
            .open(&self.lock_path)
            .map_err(|e| io_failure(e.kind()))?;
        lock.lock().map_err(|e| io_failure(e.kind()))?;
        self.remove_stale_temporaries(dir);
        let mut contents = self.read()?;
        contents.format = FORMAT;
        change(&mut contents);
        let json = serde_json::to_vec_pretty(&contents).map_err(|_| StoreError::Encode)?;
        platform::replace_file_atomically(&self.path, &json).map_err(|e| io_failure(e.kind()))
        // The lock is released when `lock` is dropped.
    }
}

impl FileStore {
    /// A writer killed between writing its temporary file and the rename leaves that file
    /// behind, secrets and all. Under the lock no other writer is mid-write, so any
    /// temporary of this file is such a leftover.
    fn remove_stale_temporaries(&self, dir: &Path) {
        let prefix = format!(".{FILE_NAME}.");
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(&prefix) && name.ends_with(".tmp") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

impl CredentialStore for FileStore {
    fn load(&self, key: &CredentialKey) -> Result<Option<StoredCredentials>, StoreError> {
        let contents = self.read()?;
        let Some(value) = contents.entries.get(&key.user()) else {
            return Ok(None);
        };
        StoredCredentials::deserialize(value)
            .map(Some)
            .map_err(|_| StoreError::Undecodable {
                backend: BACKEND,
                entry: key.user(),
                reason: DecodeFailure::UnexpectedShape,
            })
    }

    fn save(&self, key: &CredentialKey, credentials: &StoredCredentials) -> Result<(), StoreError> {
        let value = serde_json::to_value(credentials).map_err(|_| StoreError::Encode)?;
        self.update(|c| {
            c.entries.insert(key.user(), value);
        })
    }

    fn delete(&self, key: &CredentialKey) -> Result<(), StoreError> {
        if !self.path.exists() {
            return Ok(());
        }
        self.update(|c| {
            c.entries.remove(&key.user());
        })
    }

    fn backend_name(&self) -> &'static str {
        BACKEND
    }
}

fn io_failure(kind: ErrorKind) -> StoreError {
    tracing::debug!(backend = BACKEND, ?kind, "credential file operation failed");
    StoreError::Unavailable {
        backend: BACKEND,
        kind: match kind {
            ErrorKind::PermissionDenied => StoreFailure::NoStorageAccess,
            _ => StoreFailure::PlatformFailure,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Environment;
    use crate::credentials::Secret;

    const CANARY: &str = "canary-file-store-5e1d";

    fn key(env: Environment, profile: &str) -> CredentialKey {
        CredentialKey::new(env, profile).expect("valid key")
    }

    fn creds(tag: &str) -> StoredCredentials {
        let mut c = StoredCredentials::new(format!("ck-{tag}"), Secret::new(CANARY));
        c.authorize(
            Secret::new(format!("{CANARY}-token-{tag}")),
            Secret::new(CANARY),
            "2026-11-30T15:00:00Z".parse().expect("ts"),
        );
        c
    }

    #[test]
    fn round_trip_keeps_entries_apart_and_file_private() {
        let dir = tempfile::tempdir().expect("tempdir");
        let state = dir.path().join("state");
        let store = FileStore::in_dir(&state);
        let sandbox = key(Environment::Sandbox, "default");
        let live = key(Environment::Production, "live");
        assert_eq!(store.load(&sandbox).expect("load"), None);
        store.delete(&sandbox).expect("deleting nothing");
        assert!(!store.path().exists(), "a delete of nothing writes nothing");

        store.save(&sandbox, &creds("a")).expect("save");
        store.save(&live, &creds("b")).expect("save");
        assert_eq!(store.load(&sandbox).expect("load"), Some(creds("a")));
        assert_eq!(store.load(&live).expect("load"), Some(creds("b")));
        if cfg!(unix) {
            assert_eq!(platform::permission_bits(store.path()), Some(0o600));
            assert_eq!(platform::permission_bits(&state), Some(0o700));
        }

        store.delete(&sandbox).expect("delete");
        assert_eq!(store.load(&sandbox).expect("load"), None);
        assert_eq!(store.load(&live).expect("load"), Some(creds("b")));
        assert_eq!(store.backend_name(), "file");
    }

    #[test]
    fn damaged_files_are_errors_without_contents() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = FileStore::in_dir(dir.path());
        let k = key(Environment::Sandbox, "default");
        let cases = [
            (
                format!("{{\"format\":1,\"entries\":{{\"x\":\"{CANARY}\""),
                DecodeFailure::NotJson,
            ),
            (format!("[\"{CANARY}\"]"), DecodeFailure::UnexpectedShape),
            (
                format!("{{\"format\":9,\"entries\":{{\"{CANARY}\":1}}}}"),
                DecodeFailure::UnexpectedShape,
            ),
        ];
        for (text, reason) in cases {
            std::fs::write(store.path(), &text).expect("seed");
            let err = store.load(&k).expect_err("damaged");
            assert_eq!(
                err,
                StoreError::Undecodable {
                    backend: "file",
                    entry: FILE_NAME.into(),
                    reason
                }
            );
            assert!(!format!("{err} {err:?}").contains(CANARY));
        }
        std::fs::write(store.path(), [0xff, 0xfe]).expect("seed");
        assert!(matches!(
            store.load(&k),
            Err(StoreError::Undecodable {
                reason: DecodeFailure::NotUtf8,
                ..
            })
        ));

        // One bad entry does not hide the others, and saving keeps it as it was.
        let text = format!(
            "{{\"format\":1,\"entries\":{{\"sandbox:default\":{{\"consumer_key\":7,\"x\":\"{CANARY}\"}}}}}}"
        );
        std::fs::write(store.path(), &text).expect("seed");
        let err = store.load(&k).expect_err("bad entry");
        assert!(!format!("{err} {err:?}").contains(CANARY));
        let other = key(Environment::Production, "default");
        store
            .save(&other, &creds("c"))
            .expect("save beside a bad entry");
        assert_eq!(store.load(&other).expect("load"), Some(creds("c")));
    }

    #[test]
    fn concurrent_saves_of_different_entries_all_survive() {
        let dir = tempfile::tempdir().expect("tempdir");
        let state = dir.path().to_path_buf();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let state = state.clone();
                std::thread::spawn(move || {
                    let store = FileStore::in_dir(&state);
                    for round in 0..10 {
                        let k = key(Environment::Sandbox, &format!("p{i}"));
                        store
                            .save(&k, &creds(&format!("{i}-{round}")))
                            .expect("save");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
        let store = FileStore::in_dir(&state);
        for i in 0..8 {
            let k = key(Environment::Sandbox, &format!("p{i}"));
            assert_eq!(
                store.load(&k).expect("load"),
                Some(creds(&format!("{i}-9")))
            );
        }
    }
}

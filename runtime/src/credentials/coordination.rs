//! Serializes changes to one credential entry across processes (the CLI and any number of
//! servers): every read-modify-write of an entry happens under an advisory file lock in the
//! state directory, so two renewals or a login racing a server never lose or tear a write.

use super::CredentialKey;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Long enough to outlast one renewal round trip by another process.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(20);
const POLL: Duration = Duration::from_millis(20);

#[derive(Debug, thiserror::Error)]
pub enum CoordinationError {
    #[error(
        "another etrade process held the credential lock for {environment}:{profile} longer than {waited_ms} ms"
    )]
    Timeout {
        environment: &'static str,
        profile: String,
        waited_ms: u128,
    },
    #[error("the credential lock file {} cannot be used: {kind}", path.display())]
    Io {
        path: PathBuf,
        kind: std::io::ErrorKind,
    },
}

/// Held while changing one entry; released on drop (or when the process dies).
#[derive(Debug)]
pub struct CredentialLock {
    _file: File,
}

/// Where lock files live and how long to wait for one.
#[derive(Debug, Clone)]
pub struct Coordinator {
    dir: PathBuf,
    timeout: Duration,
}

impl Coordinator {
    pub fn new(state_dir: &Path, timeout: Duration) -> Coordinator {
        Coordinator {
            dir: state_dir.join("locks"),
            timeout,
        }
    }

    pub fn lock_path(&self, key: &CredentialKey) -> PathBuf {
        self.dir.join(format!(
            "credentials-{}-{}.lock",
            key.environment(),
            key.profile()
        ))
    }

    /// Wait (bounded) for the entry's lock.
    pub fn lock(&self, key: &CredentialKey) -> Result<CredentialLock, CoordinationError> {
        let path = self.lock_path(key);
        let io = |e: std::io::Error| CoordinationError::Io {
            path: path.clone(),
            kind: e.kind(),
        };
        crate::platform::create_private_dir(&self.dir).map_err(io)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(CredentialLock { _file: file }),
                Err(TryLockError::WouldBlock) => {
                    if start.elapsed() >= self.timeout {
                        return Err(CoordinationError::Timeout {
                            environment: key.environment().as_str(),
                            profile: key.profile().to_string(),
                            waited_ms: start.elapsed().as_millis(),
                        });
                    }
                    std::thread::sleep(POLL);
                }
                Err(TryLockError::Error(e)) => return Err(io(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Environment;

    #[test]
    fn second_lock_times_out_then_succeeds_after_release() {
        let dir = tempfile::tempdir().expect("temp");
        let c = Coordinator::new(dir.path(), Duration::from_millis(150));
        let key = CredentialKey::new(Environment::Sandbox, "default").expect("key");
        let held = c.lock(&key).expect("first lock");
        let start = Instant::now();
        match c.lock(&key) {
            Err(CoordinationError::Timeout { waited_ms, .. }) => assert!(waited_ms >= 150),
            other => panic!("expected a timeout, got {other:?}"),
        }
        assert!(start.elapsed() < Duration::from_secs(5), "bounded wait");
        drop(held);
        c.lock(&key).expect("free again");
    }

    #[test]
    fn entries_lock_independently() {
        let dir = tempfile::tempdir().expect("temp");
        let c = Coordinator::new(dir.path(), Duration::from_millis(50));
        let a = CredentialKey::new(Environment::Sandbox, "a").expect("key");
        let b = CredentialKey::new(Environment::Sandbox, "b").expect("key");
        let _held = c.lock(&a).expect("a");
        c.lock(&b).expect("b is independent");
    }
}

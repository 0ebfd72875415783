//! The halt switch, for the moment a person sees an agent misbehave.
//!
//! `etrade halt` writes a small record into the state folder: who halted, when, why, and for
//! which scope (one profile in one environment, or `--all`). Every running server, whatever
//! process it is, reads the records before each order or alert change
//! ([`HaltSwitch::check`], called by the order desk) and refuses while one applies; nothing is
//! sent and nothing is journaled. `etrade resume` removes the record. Previews are not
//! mutations and keep working.
//!
//! One file per scope (`halt-all.json`, `halt-ENVIRONMENT-PROFILE.json`), each written
//! owner-only and atomically, so halting one scope never races with another and a reader
//! sees a whole record or none. A record that exists but cannot be read counts as a halt:
//! the switch fails closed.

use crate::config::{Environment, ProfileNameError, validate_profile_name};
use crate::outputs::{
    ServerStatusOutputTradingPolicyHalted as HaltStatus,
    ServerStatusOutputTradingPolicyHaltedScope as HaltStatusScope,
};
use crate::platform;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

const FILE_PREFIX: &str = "halt-";
const FILE_SUFFIX: &str = ".json";
/// The longest reason kept, in characters.
pub const MAX_REASON_CHARS: usize = 500;
/// The longest user name kept, in characters.
const MAX_USER_CHARS: usize = 64;
/// Who halted, when the environment does not say.
pub const UNKNOWN_USER: &str = "unknown";

#[derive(Debug, thiserror::Error)]
pub enum HaltError {
    #[error("invalid profile for a halt: {0}")]
    Profile(#[from] ProfileNameError),
    #[error("the reason is too long ({chars} characters; at most {MAX_REASON_CHARS})")]
    ReasonTooLong { chars: usize },
    #[error("cannot create the state folder {}: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot write the halt record {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot read the halt record {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("the halt record {} is not valid: {source}", path.display())]
    Corrupt {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("the halt record {} is for another scope than its file name says", path.display())]
    WrongScope { path: PathBuf },
    #[error("cannot remove the halt record {}: {source}", path.display())]
    Remove {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot list the state folder {}: {source}", path.display())]
    List {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl HaltError {
    /// The record's file this error is about, if any.
    fn file_name(&self) -> Option<String> {
        match self {
            HaltError::Read { path, .. }
            | HaltError::Corrupt { path, .. }
            | HaltError::WrongScope { path } => {
                path.file_name().map(|n| n.to_string_lossy().into_owned())
            }
            _ => None,
        }
    }
}

/// What a halt covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HaltScope {
    /// Every profile in every environment of this state folder (`etrade halt --all`).
    All,
    /// One profile in one environment (`etrade halt`).
    Profile {
        environment: Environment,
        profile: String,
    },
}

impl HaltScope {
    /// One profile in one environment; the profile name is checked (it names a file).
    pub fn profile(environment: Environment, profile: &str) -> Result<HaltScope, HaltError> {
        validate_profile_name(profile)?;
        Ok(HaltScope::Profile {
            environment,
            profile: profile.to_string(),
        })
    }

    /// `all` or `profile`, as `server_status` reports it.
    pub fn as_str(&self) -> &'static str {
        match self {
            HaltScope::All => "all",
            HaltScope::Profile { .. } => "profile",
        }
    }

    /// The command that lifts a halt of this scope.
    pub fn resume_command(&self) -> String {
        match self {
            HaltScope::All => "etrade resume --all".to_string(),
            HaltScope::Profile {
                environment,
                profile,
            } => format!("etrade resume --environment {environment} --profile {profile}"),
        }
    }

    fn file_name(&self) -> String {
        match self {
            HaltScope::All => format!("{FILE_PREFIX}all{FILE_SUFFIX}"),
            // Environment names hold no `-`, so the first one after the prefix ends it.
            HaltScope::Profile {
                environment,
                profile,
            } => format!("{FILE_PREFIX}{environment}-{profile}{FILE_SUFFIX}"),
        }
    }
}

impl fmt::Display for HaltScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HaltScope::All => f.write_str("every profile and environment"),
            HaltScope::Profile {
                environment,
                profile,
            } => write!(f, "profile {profile} in the {environment} environment"),
        }
    }
}

/// One halt: who, when, why, what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Halt {
    pub scope: HaltScope,
    pub by: String,
    pub at: Timestamp,
    pub reason: Option<String>,
}

impl Halt {
    /// A halt by `by` at `at` (kept to the second); the reason's whitespace is collapsed,
    /// control characters are dropped and an empty reason is none.
    pub fn new(
        scope: HaltScope,
        by: &str,
        at: Timestamp,
        reason: Option<&str>,
    ) -> Result<Halt, HaltError> {
        let reason = reason.map(clean).filter(|r| !r.is_empty());
        if let Some(r) = &reason {
            let chars = r.chars().count();
            if chars > MAX_REASON_CHARS {
                return Err(HaltError::ReasonTooLong { chars });
            }
        }
        let by: String = clean(by).chars().take(MAX_USER_CHARS).collect();
        Ok(Halt {
            scope,
            by: if by.is_empty() {
                UNKNOWN_USER.to_string()
            } else {
                by
            },
            at: Timestamp::from_second(at.as_second()).unwrap_or(at),
            reason,
        })
    }

    /// The `halted` object of `server_status`.
    pub fn describe(&self) -> HaltStatus {
        HaltStatus {
            by: self.by.clone(),
            at: crate::time::rfc3339(self.at),
            reason: self.reason.clone(),
            scope: match self.scope {
                HaltScope::All => HaltStatusScope::All,
                HaltScope::Profile { .. } => HaltStatusScope::Profile,
            },
        }
    }
}

impl fmt::Display for Halt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Trading is halted for {} by {} since {}",
            self.scope, self.by, self.at
        )?;
        if let Some(r) = &self.reason {
            write!(f, " (reason: {r})")?;
        }
        write!(
            f,
            ". A person lifts it with `{}`.",
            self.scope.resume_command()
        )
    }
}

/// Whitespace runs become one space; other control characters go.
fn clean(text: &str) -> String {
    text.split_whitespace()
        .map(|w| w.chars().filter(|c| !c.is_control()).collect::<String>())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The user running this process, for [`Halt::by`]: `USER` / `USERNAME`, else `unknown`.
pub fn current_user() -> String {
    platform::user_name(|name| std::env::var_os(name)).unwrap_or_else(|| UNKNOWN_USER.into())
}

/// A record read from the folder: the halt, or why it could not be read.
pub type Record = Result<Halt, HaltError>;

/// The halt records of one state folder.
#[derive(Debug, Clone)]
pub struct HaltRecords {
    dir: PathBuf,
}

impl HaltRecords {
    /// `dir` is the state folder (where `trading.redb` lives).
    pub fn new(dir: impl Into<PathBuf>) -> HaltRecords {
        HaltRecords { dir: dir.into() }
    }

    /// The state folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, scope: &HaltScope) -> PathBuf {
        self.dir.join(scope.file_name())
    }

    /// The halt of `scope`, if there is one.
    pub fn read(&self, scope: &HaltScope) -> Result<Option<Halt>, HaltError> {
        read_record(&self.path(scope), scope)
    }

    /// Writes (or replaces) the record of `halt.scope`, owner-only and atomically.
    pub fn write(&self, halt: &Halt) -> Result<(), HaltError> {
        platform::create_private_dir(&self.dir).map_err(|source| HaltError::CreateDir {
            path: self.dir.clone(),
            source,
        })?;
        let path = self.path(&halt.scope);
        let mut bytes = serde_json::to_vec_pretty(halt).map_err(|e| HaltError::Write {
            path: path.clone(),
            source: io::Error::other(e),
        })?;
        bytes.push(b'\n');
        platform::replace_file_atomically(&path, &bytes)
            .map_err(|source| HaltError::Write { path, source })
    }

    /// Removes the record of `scope`; returns it (or why it could not be read) if there was
    /// one.
    pub fn remove(&self, scope: &HaltScope) -> Result<Option<Record>, HaltError> {
        let path = self.path(scope);
        let record = match self.read(scope) {
            Ok(None) => return Ok(None),
            Ok(Some(h)) => Ok(h),
            Err(e) => Err(e),
        };
        remove_file(&path)?;
        Ok(Some(record))
    }

    /// Removes every halt record of the folder (`etrade resume --all`); returns them.
    pub fn remove_all(&self) -> Result<Vec<Record>, HaltError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(HaltError::List {
                    path: self.dir.clone(),
                    source,
                });
            }
        };
        let mut names: Vec<String> = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| HaltError::List {
                path: self.dir.clone(),
                source,
            })?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(FILE_PREFIX) && name.ends_with(FILE_SUFFIX) {
                names.push(name);
            }
        }
        names.sort();
        let mut removed = Vec::new();
        for name in names {
            let path = self.dir.join(&name);
            let record = match std::fs::read(&path) {
                Ok(bytes) => parse(&path, &bytes),
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(source) => Err(HaltError::Read {
                    path: path.clone(),
                    source,
                }),
            };
            remove_file(&path)?;
            removed.push(record);
        }
        Ok(removed)
    }
}

/// The halt recorded at `path` for `scope`, if there is one.
fn read_record(path: &Path, scope: &HaltScope) -> Result<Option<Halt>, HaltError> {
    // Every mutation and every `server_status` asks, and there is almost never a halt: a
    // `stat` answers "absent" without the open file an `open` sets up and tears down. Any
    // other answer goes on to the read, which reports its own error as before.
    if std::fs::metadata(path).is_err_and(|e| e.kind() == io::ErrorKind::NotFound) {
        return Ok(None);
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(HaltError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let halt = parse(path, &bytes)?;
    if &halt.scope != scope {
        return Err(HaltError::WrongScope {
            path: path.to_path_buf(),
        });
    }
    Ok(Some(halt))
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Halt, HaltError> {
    serde_json::from_slice(bytes).map_err(|source| HaltError::Corrupt {
        path: path.to_path_buf(),
        source,
    })
}

fn remove_file(path: &Path) -> Result<(), HaltError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(HaltError::Remove {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// What a server of one environment/profile checks before every mutation. It holds no
/// state of its own: every check reads the records, so a halt made by another process
/// applies to the very next mutation.
#[derive(Debug, Clone)]
pub struct HaltSwitch {
    /// The `--all` record, then this profile's: the scopes with their files, joined once.
    checked: [(HaltScope, PathBuf); 2],
}

/// The refusal: the halts in force (at least one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Halted(pub Vec<Halt>);

impl fmt::Display for Halted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for h in &self.0 {
            write!(f, "{h} ")?;
        }
        f.write_str("No order or alert change is sent while halted; previews still work.")
    }
}

impl HaltSwitch {
    /// The switch of `environment`/`profile` in the state folder `dir`.
    pub fn new(
        dir: impl Into<PathBuf>,
        environment: Environment,
        profile: &str,
    ) -> Result<HaltSwitch, HaltError> {
        let records = HaltRecords::new(dir);
        let profile = HaltScope::profile(environment, profile)?;
        Ok(HaltSwitch {
            checked: [HaltScope::All, profile].map(|scope| {
                let path = records.path(&scope);
                (scope, path)
            }),
        })
    }

    /// The halts in force now, the `--all` halt first. A record that cannot be read counts
    /// as a halt by `unknown`, dated by its file, whose reason says what is wrong with it.
    pub fn active(&self) -> Vec<Halt> {
        self.checked
            .iter()
            .filter_map(|(scope, path)| match read_record(path, scope) {
                Ok(found) => found,
                Err(e) => Some(unreadable(scope.clone(), path, &e)),
            })
            .collect()
    }

    /// `Err` while halted.
    pub fn check(&self) -> Result<(), Halted> {
        let active = self.active();
        if active.is_empty() {
            Ok(())
        } else {
            Err(Halted(active))
        }
    }
}

/// The halt an unreadable record at `path` counts as: by `unknown`, dated by its file,
/// with a reason that says what is wrong with it.
fn unreadable(scope: HaltScope, path: &Path, e: &HaltError) -> Halt {
    tracing::warn!(error = %e, "an unreadable halt record counts as a halt");
    let at = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| Timestamp::try_from(t).ok())
        .unwrap_or_else(Timestamp::now);
    let file = e.file_name().unwrap_or_else(|| scope.file_name());
    let what = match e {
        HaltError::Read { source, .. } => format!("cannot be read ({source})"),
        HaltError::Corrupt { .. } => "is not valid".to_string(),
        _ => "is for another scope".to_string(),
    };
    Halt {
        scope,
        by: UNKNOWN_USER.to_string(),
        at: Timestamp::from_second(at.as_second()).unwrap_or(at),
        reason: Some(format!(
            "the halt record {file} in the state folder {what}; it counts as a halt until it is removed"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Timestamp {
        "2026-03-02T15:04:05.123Z".parse().expect("timestamp")
    }

    fn switch(dir: &Path, environment: Environment, profile: &str) -> HaltSwitch {
        HaltSwitch::new(dir, environment, profile).expect("switch")
    }

    fn profile_scope(environment: Environment, profile: &str) -> HaltScope {
        HaltScope::profile(environment, profile).expect("scope")
    }

    #[test]
    fn a_profile_halt_stops_that_profile_only_until_resumed() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("state");
        let records = HaltRecords::new(&dir);
        let desk = switch(&dir, Environment::Sandbox, "default");
        let other_profile = switch(&dir, Environment::Sandbox, "other");
        let other_env = switch(&dir, Environment::Paper, "default");
        assert_eq!(desk.check(), Ok(()), "no folder yet: not halted");

        let scope = profile_scope(Environment::Sandbox, "default");
        let halt = Halt::new(scope.clone(), "ann", at(), Some("runaway agent")).expect("halt");
        records.write(&halt).expect("write");
        // A switch made before the halt sees it at its next check: nothing is cached.
        let refused = desk.check().expect_err("halted");
        assert_eq!(refused.0, vec![halt.clone()]);
        assert_eq!(other_profile.check(), Ok(()));
        assert_eq!(other_env.check(), Ok(()));
        assert_eq!(records.read(&scope).expect("read"), Some(halt.clone()));

        assert_eq!(
            records.remove(&scope).expect("remove").map(|r| r.ok()),
            Some(Some(halt))
        );
        assert_eq!(desk.check(), Ok(()));
        assert!(records.remove(&scope).expect("again").is_none());
    }

    #[test]
    fn an_all_halt_stops_every_profile_and_comes_first() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let records = HaltRecords::new(tmp.path());
        let mine =
            Halt::new(profile_scope(Environment::Paper, "p1"), "ann", at(), None).expect("halt");
        let all = Halt::new(HaltScope::All, "bo", at(), Some("stop everything")).expect("halt");
        records.write(&mine).expect("write");
        records.write(&all).expect("write");
        for env in Environment::ALL {
            let refused = switch(tmp.path(), env, "anyone")
                .check()
                .expect_err("halted");
            assert_eq!(refused.0, vec![all.clone()]);
        }
        let refused = switch(tmp.path(), Environment::Paper, "p1")
            .check()
            .expect_err("halted");
        assert_eq!(refused.0, vec![all.clone(), mine.clone()]);

        // Lifting --all leaves the profile's own halt.
        records.remove(&HaltScope::All).expect("remove");
        assert_eq!(
            switch(tmp.path(), Environment::Sandbox, "x").check(),
            Ok(())
        );
        assert!(
            switch(tmp.path(), Environment::Paper, "p1")
                .check()
                .is_err()
        );

        records.write(&all).expect("write");
        std::fs::write(tmp.path().join("trading.redb"), b"not a halt").expect("write");
        let removed = records.remove_all().expect("remove all");
        assert_eq!(removed.len(), 2);
        assert!(switch(tmp.path(), Environment::Paper, "p1").check().is_ok());
        assert!(tmp.path().join("trading.redb").exists(), "other files stay");
    }

    #[test]
    fn the_message_says_who_when_why_and_how_to_resume() {
        let halt = Halt::new(
            profile_scope(Environment::Sandbox, "work"),
            "ann",
            at(),
            Some("  placed\n200 orders\t "),
        )
        .expect("halt");
        assert_eq!(halt.reason.as_deref(), Some("placed 200 orders"));
        assert_eq!(
            halt.at.to_string(),
            "2026-03-02T15:04:05Z",
            "kept to the second"
        );
        let text = Halted(vec![halt.clone()]).to_string();
        for part in [
            "ann",
            "2026-03-02T15:04:05Z",
            "placed 200 orders",
            "profile work in the sandbox environment",
            "`etrade resume --environment sandbox --profile work`",
            "previews still work",
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
        let all = Halt::new(HaltScope::All, "", at(), Some(" ")).expect("halt");
        assert_eq!(all.by, UNKNOWN_USER);
        assert_eq!(all.reason, None);
        assert!(all.to_string().contains("`etrade resume --all`"));
        assert_eq!(
            serde_json::to_value(halt.describe()).map_err(|e| e.to_string()),
            Ok(
                serde_json::json!({"by": "ann", "at": "2026-03-02T15:04:05Z",
                "reason": "placed 200 orders", "scope": "profile"})
            )
        );
        assert_eq!(all.describe().scope.as_str(), "all");
    }

    #[test]
    fn inputs_are_checked() {
        let long = "x".repeat(MAX_REASON_CHARS + 1);
        assert!(matches!(
            Halt::new(HaltScope::All, "ann", at(), Some(&long)),
            Err(HaltError::ReasonTooLong { .. })
        ));
        assert!(Halt::new(HaltScope::All, "ann", at(), Some(&long[1..])).is_ok());
        for bad in ["", "../x", "a/b", "a b"] {
            assert!(
                matches!(
                    HaltSwitch::new("/tmp", Environment::Paper, bad),
                    Err(HaltError::Profile(_))
                ),
                "{bad:?}"
            );
        }
        let by = Halt::new(HaltScope::All, "a\u{7}nn\nx", at(), None).expect("halt");
        assert_eq!(by.by, "ann x");
    }

    #[test]
    fn an_unreadable_record_fails_closed() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let records = HaltRecords::new(tmp.path());
        let desk = switch(tmp.path(), Environment::Production, "live");
        std::fs::write(tmp.path().join("halt-all.json"), b"{ truncated").expect("write");
        let refused = desk.check().expect_err("counts as halted");
        let reason = refused.0[0].reason.clone().unwrap_or_default();
        assert!(reason.contains("halt-all.json"), "{reason}");
        assert_eq!(refused.0[0].by, UNKNOWN_USER);
        assert!(refused.to_string().contains("etrade resume --all"));
        assert!(matches!(
            records.read(&HaltScope::All),
            Err(HaltError::Corrupt { .. })
        ));

        // A record under another scope's name is not trusted either.
        let theirs = Halt::new(
            profile_scope(Environment::Paper, "other"),
            "ann",
            at(),
            None,
        )
        .expect("halt");
        let text = serde_json::to_vec(&theirs).expect("json");
        std::fs::write(tmp.path().join("halt-production-live.json"), text).expect("write");
        assert!(matches!(
            records.read(&profile_scope(Environment::Production, "live")),
            Err(HaltError::WrongScope { .. })
        ));
        assert_eq!(desk.active().len(), 2);

        // resume --all clears unreadable records too.
        let removed = records.remove_all().expect("remove");
        assert_eq!(removed.len(), 2);
        assert!(removed.iter().any(Result::is_err));
        assert_eq!(desk.check(), Ok(()));
    }

    #[test]
    fn a_record_that_exists_but_is_no_file_fails_closed() {
        // Only "not found" is an absent halt; a record the check can see but not read, or a
        // state folder it cannot look into, is a halt.
        let tmp = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(tmp.path().join("halt-all.json")).expect("dir");
        let desk = switch(tmp.path(), Environment::Production, "live");
        let refused = desk
            .check()
            .expect_err("a folder in the record's place is a halt");
        let reason = refused.0[0].reason.clone().unwrap_or_default();
        assert!(reason.contains("cannot be read"), "{reason}");

        let not_a_folder = tmp.path().join("state");
        std::fs::write(&not_a_folder, b"").expect("file");
        let desk = switch(&not_a_folder, Environment::Production, "live");
        assert_eq!(desk.check().expect_err("unreadable folder").0.len(), 2);

        // A halt made after a check is in force at the very next one: nothing is cached.
        let fresh = tempfile::tempdir().expect("tempdir");
        let desk = switch(fresh.path(), Environment::Production, "live");
        assert_eq!(desk.check(), Ok(()));
        HaltRecords::new(fresh.path())
            .write(&Halt::new(HaltScope::All, "ann", at(), None).expect("halt"))
            .expect("write");
        assert_eq!(desk.check().expect_err("halted").0.len(), 1);
    }

    #[test]
    fn records_are_owner_only_and_written_whole() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("fresh");
        let records = HaltRecords::new(&dir);
        let halt = Halt::new(HaltScope::All, "ann", at(), Some("first")).expect("halt");
        records.write(&halt).expect("write");
        let again = Halt::new(HaltScope::All, "bo", at(), Some("second")).expect("halt");
        records.write(&again).expect("replace");
        assert_eq!(records.read(&HaltScope::All).expect("read"), Some(again));
        let names: Vec<String> = std::fs::read_dir(&dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            vec!["halt-all.json".to_string()],
            "no temporary left"
        );
        if cfg!(unix) {
            assert_eq!(platform::permission_bits(&dir), Some(0o700));
            assert_eq!(
                platform::permission_bits(&dir.join("halt-all.json")),
                Some(0o600)
            );
        }
    }
}

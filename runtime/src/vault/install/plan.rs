//! What an install or uninstall does, as data: the steps are built without touching the
//! machine, so every operating system's plan can be tested on any of them, and the
//! executor is the only part that acts.

use std::fmt;
use std::path::PathBuf;

/// The steps of one install or uninstall, run in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallPlan {
    pub steps: Vec<Step>,
}

/// One thing to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Run a program (an argv, never a shell) when `when` holds.
    Run {
        argv: Vec<String>,
        /// When false, a failure is reported and the plan goes on (stopping a service that
        /// is not running, starting one that already is).
        fatal: bool,
        when: Condition,
    },
    /// Create a folder (and its missing parents, as the installer's own), then set its mode
    /// and owner, also when it already existed.
    CreateDir {
        path: PathBuf,
        mode: Option<u32>,
        owner: Option<String>,
    },
    /// Write a file, then set its mode and owner.
    WriteFile {
        path: PathBuf,
        contents: String,
        mode: Option<u32>,
        owner: Option<String>,
        /// Keep an existing file's contents (its mode and owner are still set): the
        /// person may have edited the vault's configuration since the first install.
        keep_existing: bool,
    },
    /// Create a macOS system account (and its group) with a free id from the system range,
    /// unless an account by this name exists. The id is only known on the machine, so the
    /// commands are made there ([`super::macos::account_commands`]).
    CreateMacAccount { name: String, home: PathBuf },
    /// Remove a file; a missing one is fine.
    RemoveFile { path: PathBuf },
    /// Remove a folder and everything in it; a missing one is fine.
    RemoveDir { path: PathBuf },
    /// Tell the person something the plan cannot do or chose not to.
    Note(String),
}

/// When a [`Step::Run`] runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    Always,
    /// Only when this probe (an argv, its output discarded) fails: create what is missing.
    IfFails(Vec<String>),
    /// Only when this probe succeeds: change or remove what is there.
    IfSucceeds(Vec<String>),
    /// Only when this path exists.
    IfExists(PathBuf),
}

pub(crate) fn argv<const N: usize>(words: [&str; N]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Run { argv, fatal, when } => {
                write!(f, "run {}", shell_words(argv))?;
                match when {
                    Condition::Always => {}
                    Condition::IfFails(probe) => {
                        write!(f, " (unless {} succeeds)", shell_words(probe))?
                    }
                    Condition::IfSucceeds(probe) => {
                        write!(f, " (if {} succeeds)", shell_words(probe))?
                    }
                    Condition::IfExists(path) => write!(f, " (if {} exists)", path.display())?,
                }
                if !fatal {
                    f.write_str(" (a failure is not fatal)")?;
                }
                Ok(())
            }
            Step::CreateDir { path, mode, owner } => {
                write!(f, "create folder {}", path.display())?;
                mode_owner(f, *mode, owner.as_deref())
            }
            Step::WriteFile {
                path,
                mode,
                owner,
                keep_existing,
                ..
            } => {
                let verb = if *keep_existing {
                    "write (keep an existing)"
                } else {
                    "write"
                };
                write!(f, "{verb} file {}", path.display())?;
                mode_owner(f, *mode, owner.as_deref())
            }
            Step::CreateMacAccount { name, home } => write!(
                f,
                "create system account {name} with home {} (unless it exists)",
                home.display()
            ),
            Step::RemoveFile { path } => write!(f, "remove file {}", path.display()),
            Step::RemoveDir { path } => write!(f, "remove folder {}", path.display()),
            Step::Note(text) => write!(f, "note: {text}"),
        }
    }
}

fn mode_owner(f: &mut fmt::Formatter<'_>, mode: Option<u32>, owner: Option<&str>) -> fmt::Result {
    match (mode, owner) {
        (Some(mode), Some(owner)) => write!(f, " (mode {mode:04o}, owner {owner})"),
        (Some(mode), None) => write!(f, " (mode {mode:04o})"),
        (None, Some(owner)) => write!(f, " (owner {owner})"),
        (None, None) => Ok(()),
    }
}

/// An argv as a person would type it in a POSIX shell: for messages only, never run.
pub fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|word| shell_word(word))
        .collect::<Vec<_>>()
        .join(" ")
}

fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

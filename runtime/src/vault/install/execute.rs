//! Running a plan on this machine: one line on `out` per step, commands as argv (never a
//! shell).
//!
//! The vault's account owns the state folder, so whatever is inside it may have been
//! swapped for a symlink or a hard link to a system file by the time root runs a second
//! install. Files and folders are therefore opened without following a final symlink,
//! checked, and changed through the open handle (`fchown`, `fchmod`).

use crate::platform::owned_files;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::plan::{Condition, InstallPlan, Step, shell_words};

/// What a finished plan left to report: the non-fatal steps that failed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub ignored_failures: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("cannot run {command}: {source}")]
    Spawn {
        command: String,
        #[source]
        source: io::Error,
    },
    #[error("{command} failed ({status}){detail}")]
    Failed {
        command: String,
        status: String,
        detail: String,
    },
    #[error("{}: {what}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: {why}; not touched", path.display())]
    Unsafe { path: PathBuf, why: &'static str },
    #[error("there is no account {0} (it should have been created by an earlier step)")]
    NoAccount(String),
    #[error("no free id between {} and {} for a system account", super::macos::SYSTEM_IDS.start, super::macos::SYSTEM_IDS.end - 1)]
    NoFreeId,
    #[error("writing the report: {0}")]
    Report(#[source] io::Error),
}

/// Runs every step of `plan` in order, stopping at the first fatal failure.
pub fn execute(plan: &InstallPlan, out: &mut dyn Write) -> Result<Outcome, ExecError> {
    let mut outcome = Outcome::default();
    for step in &plan.steps {
        let line = run_step(step, &mut outcome)?;
        writeln!(out, "{line}").map_err(ExecError::Report)?;
    }
    Ok(outcome)
}

fn run_step(step: &Step, outcome: &mut Outcome) -> Result<String, ExecError> {
    match step {
        Step::Run { argv, fatal, when } => run_command(argv, *fatal, when, outcome),
        Step::CreateDir { path, mode, owner } => {
            create_dir(path, *mode, owner.as_deref())?;
            Ok(format!(
                "folder {}{}",
                path.display(),
                describe(*mode, owner)
            ))
        }
        Step::WriteFile {
            path,
            contents,
            mode,
            owner,
            keep_existing,
        } => {
            let kept = write_file(path, contents, *mode, owner.as_deref(), *keep_existing)?;
            let verb = if kept { "kept" } else { "wrote" };
            Ok(format!(
                "{verb} {}{}",
                path.display(),
                describe(*mode, owner)
            ))
        }
        Step::CreateMacAccount { name, home } => create_mac_account(name, home),
        Step::RemoveFile { path } => remove(path, false),
        Step::RemoveDir { path } => remove(path, true),
        Step::Note(text) => Ok(format!("note: {text}")),
    }
}

fn describe(mode: Option<u32>, owner: &Option<String>) -> String {
    match (mode, owner) {
        (Some(mode), Some(owner)) => format!(" (mode {mode:04o}, owner {owner})"),
        (Some(mode), None) => format!(" (mode {mode:04o})"),
        (None, Some(owner)) => format!(" (owner {owner})"),
        (None, None) => String::new(),
    }
}

fn run_command(
    argv: &[String],
    fatal: bool,
    when: &Condition,
    outcome: &mut Outcome,
) -> Result<String, ExecError> {
    let command = shell_words(argv);
    let skip = match when {
        Condition::Always => None,
        Condition::IfFails(probe) => {
            probe_succeeds(probe).then(|| format!("{} succeeds", shell_words(probe)))
        }
        Condition::IfSucceeds(probe) => {
            (!probe_succeeds(probe)).then(|| format!("{} fails", shell_words(probe)))
        }
        Condition::IfExists(path) => (std::fs::symlink_metadata(path).is_err())
            .then(|| format!("{} does not exist", path.display())),
    };
    if let Some(reason) = skip {
        return Ok(format!("skipped {command} ({reason})"));
    }
    let Some((program, args)) = argv.split_first() else {
        return Ok("skipped an empty command".into());
    };
    let output = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|source| ExecError::Spawn {
            command: command.clone(),
            source,
        });
    let failure = match output {
        Ok(out) if out.status.success() => return Ok(format!("ran {command}")),
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            let text = if text.is_empty() {
                String::from_utf8_lossy(&out.stdout).trim().to_owned()
            } else {
                text
            };
            let detail = if text.is_empty() {
                String::new()
            } else {
                format!(": {text}")
            };
            ExecError::Failed {
                command,
                status: out.status.to_string(),
                detail,
            }
        }
        Err(err) => err,
    };
    if fatal {
        return Err(failure);
    }
    let text = failure.to_string();
    outcome.ignored_failures.push(text.clone());
    Ok(format!("{text} (not fatal, going on)"))
}

/// Whether `probe` runs and exits 0; its output is not wanted.
fn probe_succeeds(probe: &[String]) -> bool {
    let Some((program, args)) = probe.split_first() else {
        return false;
    };
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn io_err<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> ExecError + 'a {
    move |source| ExecError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

fn create_dir(path: &Path, mode: Option<u32>, owner: Option<&str>) -> Result<(), ExecError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(io_err("cannot create the parent folders", path))?;
    }
    // Private until the final mode and owner are set.
    let builder = owned_files::private_dir_builder();
    match builder.create(path) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
        Err(source) => return Err(io_err("cannot create the folder", path)(source)),
    }
    let meta = std::fs::symlink_metadata(path).map_err(io_err("cannot inspect", path))?;
    if !meta.is_dir() {
        return Err(ExecError::Unsafe {
            path: path.to_path_buf(),
            why: "not a folder (a symlink or a file)",
        });
    }
    if mode.is_none() && owner.is_none() {
        return Ok(());
    }
    let handle = open_no_follow(path, false, false).map_err(io_err("cannot open", path))?;
    set_owner_and_mode(&handle, path, mode, owner)
}

/// Writes `path` (or keeps it when `keep_existing`); true when an existing file was kept.
fn write_file(
    path: &Path,
    contents: &str,
    mode: Option<u32>,
    owner: Option<&str>,
    keep_existing: bool,
) -> Result<bool, ExecError> {
    let existing = match std::fs::symlink_metadata(path) {
        Ok(meta) => Some(meta),
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        Err(source) => return Err(io_err("cannot inspect", path)(source)),
    };
    let kept = existing.is_some() && keep_existing;
    let mut file = if existing.is_some() {
        open_no_follow(path, !kept, false).map_err(io_err("cannot open", path))?
    } else {
        open_no_follow(path, true, true).map_err(io_err("cannot create", path))?
    };
    check_single_regular_file(&file, path)?;
    if !kept {
        file.write_all(contents.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(io_err("cannot write", path))?;
    }
    set_owner_and_mode(&file, path, mode, owner)?;
    Ok(kept)
}

/// Opens `path` without following a symlink in its last component: for reading (a folder,
/// or a file to keep), for replacing (`write`: truncated), or new (`create`: must not exist).
fn open_no_follow(path: &Path, write: bool, create: bool) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    if write {
        options.write(true);
        if create {
            options.create_new(true);
        } else {
            options.truncate(true);
        }
    } else {
        options.read(true);
    }
    // Private until the final mode is set.
    owned_files::no_follow_private(&mut options);
    options.open(path)
}

fn check_single_regular_file(file: &File, path: &Path) -> Result<(), ExecError> {
    let meta = file.metadata().map_err(io_err("cannot inspect", path))?;
    if !meta.is_file() {
        return Err(ExecError::Unsafe {
            path: path.to_path_buf(),
            why: "not a regular file",
        });
    }
    // A hard link would hand another file (say, one of the system's) to the vault's
    // account with the chown below.
    if owned_files::hard_links(&meta) > 1 {
        return Err(ExecError::Unsafe {
            path: path.to_path_buf(),
            why: "has other hard links",
        });
    }
    Ok(())
}

fn set_owner_and_mode(
    handle: &File,
    path: &Path,
    mode: Option<u32>,
    owner: Option<&str>,
) -> Result<(), ExecError> {
    let ids = match owner {
        // Windows: the folder's ACL (set by icacls) is what restricts access.
        Some(_) if !cfg!(unix) => None,
        Some(name) => Some(
            crate::vault::identity::account_ids(name)
                .map_err(io_err("cannot look up the owner", path))?
                .ok_or_else(|| ExecError::NoAccount(name.to_owned()))?,
        ),
        None => None,
    };
    owned_files::set_owner_and_mode(handle, ids, mode)
        .map_err(io_err("cannot change the owner or mode", path))
}

fn remove(path: &Path, folder: bool) -> Result<String, ExecError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Ok(format!("{} was not there", path.display()));
        }
        Err(source) => return Err(io_err("cannot inspect", path)(source)),
    };
    // A symlink goes, never what it points at.
    if folder && meta.is_dir() {
        std::fs::remove_dir_all(path).map_err(io_err("cannot remove", path))?;
    } else {
        std::fs::remove_file(path).map_err(io_err("cannot remove", path))?;
    }
    Ok(format!("removed {}", path.display()))
}

fn create_mac_account(name: &str, home: &Path) -> Result<String, ExecError> {
    let id_probe = super::plan::argv(["id", "-u", name]);
    if probe_succeeds(&id_probe) {
        return Ok(format!("account {name} exists"));
    }
    let list = |record: &str, key: &str| -> Result<String, ExecError> {
        let argv = super::plan::argv(["dscl", ".", "-list", record, key]);
        let out = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::null())
            .output()
            .map_err(|source| ExecError::Spawn {
                command: shell_words(&argv),
                source,
            })?;
        if !out.status.success() {
            return Err(ExecError::Failed {
                command: shell_words(&argv),
                status: out.status.to_string(),
                detail: String::new(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let users = list("/Users", "UniqueID")?;
    let groups = list("/Groups", "PrimaryGroupID")?;
    let id = super::macos::free_system_id(&users, &groups).ok_or(ExecError::NoFreeId)?;
    let mut ignored = Outcome::default();
    for argv in super::macos::account_commands(name, home, id) {
        run_command(&argv, true, &Condition::Always, &mut ignored)?;
    }
    Ok(format!(
        "created account {name} (uid and gid {id}, home {})",
        home.display()
    ))
}

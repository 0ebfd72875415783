//! `etrade vault install` and `uninstall`: the account, the state folder, the socket's
//! folder and the service definition, per operating system.
//!
//! [`install_plan`] and [`uninstall_plan`] only describe (see [`plan`]); [`execute`] acts.
//! Keeping the two apart lets each OS's plan, unit file, plist and `sc.exe` lines be
//! golden-tested on Linux.

mod config_text;
pub mod execute;
pub mod linux;
pub mod macos;
pub mod plan;
pub mod windows;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use crate::platform::Os;

pub use config_text::default_vault_toml;
pub use execute::{ExecError, Outcome, execute};
pub use plan::{Condition, InstallPlan, Step};

/// What `vault install` was asked for, with every default resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallRequest {
    /// The vault's OS account (on Windows the service's virtual account is used instead).
    pub account: String,
    pub state: PathBuf,
    pub socket: PathBuf,
    /// The absolute path of the `etrade` binary the service runs.
    pub program: PathBuf,
    /// Write and start the service definition (false: `--no-service`).
    pub service: bool,
}

/// What `vault uninstall` was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UninstallRequest {
    pub state: PathBuf,
    pub socket: PathBuf,
    /// Remove the state folder and the account too.
    pub purge: bool,
    /// The account to delete on `--purge`, found on the machine (the state folder's
    /// owner); None when there is none to delete.
    pub account: Option<String>,
}

/// Why a request cannot be planned.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InstallError {
    #[error(
        "--account {0:?}: an account name is 1 to 32 lowercase letters, digits, '-' or '_', \
         starting with a letter or '_'"
    )]
    InvalidAccount(String),
    #[error("--account {0}: the vault must not run as a superuser account")]
    PrivilegedAccount(String),
    #[error("{what} {path}: must be an absolute path", path = path.display())]
    NotAbsolute { what: &'static str, path: PathBuf },
    #[error(
        "{what} {path}: a shared system folder; the vault would take it over (give a folder of its own)",
        path = path.display()
    )]
    SharedFolder { what: &'static str, path: PathBuf },
    #[error(
        "the socket {socket} is inside the state folder {state}: the person's side could not \
         reach it (the state folder is the vault's alone)",
        socket = socket.display(),
        state = state.display()
    )]
    SocketInsideState { socket: PathBuf, state: PathBuf },
    #[error(
        "the state folder {state} is inside the socket's folder {dir}, which uninstall removes",
        state = state.display(),
        dir = dir.display()
    )]
    StateInsideSocketDir { state: PathBuf, dir: PathBuf },
    #[error(r"--socket {}: on Windows the vault listens on a named pipe (\\.\pipe\NAME)", .0.display())]
    NotAPipe(PathBuf),
}

/// The steps that install a vault on `os`.
pub fn install_plan(os: Os, request: &InstallRequest) -> Result<InstallPlan, InstallError> {
    if os != Os::Windows {
        validate_account(&request.account)?;
    }
    validate_places(os, &request.state, &request.socket)?;
    if !is_absolute_for(os, &request.program) {
        return Err(InstallError::NotAbsolute {
            what: "the etrade binary",
            path: request.program.clone(),
        });
    }
    let steps = match os {
        Os::Linux | Os::OtherUnix => linux::install_steps(request),
        Os::MacOs => macos::install_steps(request),
        Os::Windows => windows::install_steps(request),
    };
    Ok(InstallPlan { steps })
}

/// The steps that undo [`install_plan`] on `os`.
pub fn uninstall_plan(os: Os, request: &UninstallRequest) -> Result<InstallPlan, InstallError> {
    validate_places(os, &request.state, &request.socket)?;
    if let Some(account) = &request.account
        && os != Os::Windows
    {
        validate_account(account)?;
    }
    let steps = match os {
        Os::Linux | Os::OtherUnix => linux::uninstall_steps(request),
        Os::MacOs => macos::uninstall_steps(request),
        Os::Windows => windows::uninstall_steps(request),
    };
    Ok(InstallPlan { steps })
}

/// The argv of the vault itself, as the service runs it.
/// The state folder (owner-only, the account's) and its `vault.toml` (kept when it exists):
/// the same on every Unix.
fn state_steps(request: &InstallRequest, name: &str) -> [Step; 2] {
    [
        Step::CreateDir {
            path: request.state.clone(),
            mode: Some(0o700),
            owner: Some(name.to_owned()),
        },
        Step::WriteFile {
            path: request.state.join(crate::vault::defaults::CONFIG_FILE),
            contents: default_vault_toml(),
            mode: Some(0o600),
            owner: Some(name.to_owned()),
            keep_existing: true,
        },
    ]
}

pub fn run_argv(request: &InstallRequest) -> Vec<String> {
    vec![
        request.program.to_string_lossy().into_owned(),
        "vault".into(),
        "run".into(),
        "--state".into(),
        request.state.to_string_lossy().into_owned(),
        "--socket".into(),
        request.socket.to_string_lossy().into_owned(),
    ]
}

/// What the person does after an install: how to start the vault by hand, or how to see
/// the service.
pub fn next_steps(os: Os, request: &InstallRequest) -> String {
    let run = plan::shell_words(&run_argv(request));
    match (os, request.service) {
        (Os::Linux | Os::OtherUnix, false) => format!(
            "no service was installed; start the vault as its account with: runuser -u {} -- {run}",
            request.account
        ),
        (Os::Linux | Os::OtherUnix, true) => format!(
            "the vault runs as {} under systemd: systemctl status {}",
            request.account,
            linux::UNIT_NAME
        ),
        (Os::MacOs, false) => format!(
            "no service was installed; start the vault as its account with: sudo -u {} {run}",
            request.account
        ),
        (Os::MacOs, true) => format!(
            "the vault runs as {} under launchd: sudo launchctl print system/{}",
            request.account,
            macos::LABEL
        ),
        (Os::Windows, false) => format!(
            "no service was installed; the vault runs only as the service's account {}: \
             install again without --no-service",
            windows::service_account()
        ),
        (Os::Windows, true) => format!(
            "the vault runs as {}: sc.exe query {}",
            windows::service_account(),
            super::defaults::SERVICE_NAME
        ),
    }
}

fn validate_account(name: &str) -> Result<(), InstallError> {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
    let rest_ok =
        chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if !first_ok || !rest_ok || name.len() > 32 {
        return Err(InstallError::InvalidAccount(name.to_owned()));
    }
    if matches!(
        name,
        "root" | "toor" | "daemon" | "nobody" | "wheel" | "admin"
    ) {
        return Err(InstallError::PrivilegedAccount(name.to_owned()));
    }
    Ok(())
}

/// Folders every program on the machine shares: giving one to the vault's account (and
/// removing it on uninstall) would break the machine.
const SHARED: &[&str] = &[
    "/var/run",
    "/var/lib",
    "/var/tmp",
    "/var/log",
    "/var/cache",
    "/var/db",
    "/var/spool",
    "/usr/local",
    "/usr/lib",
    "/usr/bin",
    "/usr/sbin",
    "/usr/share",
    "/run/user",
    "/run/systemd",
    "/private/var",
    "/private/tmp",
    "/private/etc",
    "/Library/Application Support",
    "/Library/LaunchDaemons",
    "/Library/Logs",
    "/System/Library",
];

fn validate_places(os: Os, state: &Path, socket: &Path) -> Result<(), InstallError> {
    if !is_absolute_for(os, state) {
        return Err(InstallError::NotAbsolute {
            what: "the state folder",
            path: state.to_path_buf(),
        });
    }
    if os == Os::Windows {
        if !socket.to_string_lossy().starts_with(r"\\.\pipe\") {
            return Err(InstallError::NotAPipe(socket.to_path_buf()));
        }
        if windows_is_shallow(state) {
            return Err(InstallError::SharedFolder {
                what: "the state folder",
                path: state.to_path_buf(),
            });
        }
        return Ok(());
    }
    check_own_folder("the state folder", state)?;
    if !socket.is_absolute() {
        return Err(InstallError::NotAbsolute {
            what: "the socket",
            path: socket.to_path_buf(),
        });
    }
    let dir = socket_dir(os, socket).unwrap_or_else(|| PathBuf::from("/"));
    check_own_folder("the socket's folder", &dir)?;
    if dir.starts_with(state) {
        return Err(InstallError::SocketInsideState {
            socket: socket.to_path_buf(),
            state: state.to_path_buf(),
        });
    }
    if state.starts_with(&dir) {
        return Err(InstallError::StateInsideSocketDir {
            state: state.to_path_buf(),
            dir,
        });
    }
    Ok(())
}

/// A folder the vault may own: at least two levels below the root and not a shared one.
fn check_own_folder(what: &'static str, path: &Path) -> Result<(), InstallError> {
    use std::path::Component;
    let mut normal = 0;
    for component in path.components() {
        match component {
            Component::Normal(_) => normal += 1,
            Component::RootDir | Component::CurDir => {}
            // `..` would let a path look deep and still name a shared folder.
            Component::ParentDir | Component::Prefix(_) => {
                return Err(InstallError::SharedFolder {
                    what,
                    path: path.to_path_buf(),
                });
            }
        }
    }
    let shared = SHARED.iter().any(|s| Path::new(s) == path);
    if normal < 2 || shared {
        return Err(InstallError::SharedFolder {
            what,
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// `C:\` or `C:\ProgramData` itself.
fn windows_is_shallow(path: &Path) -> bool {
    let text = path.to_string_lossy();
    let parts = text
        .split('\\')
        .filter(|p| !p.is_empty() && *p != ".")
        .count();
    parts < 2 || text.eq_ignore_ascii_case(r"C:\ProgramData") || text.contains(r"\..")
}

/// The socket's folder; None for a Windows named pipe (there is no folder).
pub fn socket_dir(os: Os, socket: &Path) -> Option<PathBuf> {
    if os == Os::Windows {
        return None;
    }
    socket.parent().map(Path::to_path_buf)
}

/// `dir` joined with `name` by `os`'s rule, so a Windows plan built on Linux says
/// `C:\ProgramData\etrade-mcp\vault.toml`.
pub fn join_for(os: Os, dir: &Path, name: &str) -> PathBuf {
    if os == Os::Windows {
        let text = dir.to_string_lossy();
        let sep = if text.ends_with('\\') { "" } else { "\\" };
        PathBuf::from(format!("{text}{sep}{name}"))
    } else {
        dir.join(name)
    }
}

fn is_absolute_for(os: Os, path: &Path) -> bool {
    let text = path.to_string_lossy();
    if os == Os::Windows {
        let b = text.as_bytes();
        text.starts_with(r"\\")
            || (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\')
    } else {
        text.starts_with('/')
    }
}

//! Everything that differs between operating systems, in one place.
//!
//! The rest of the code calls these functions and never names an OS-specific API: owner-only
//! files and folders, atomic replacement of a small file, termination signals, the default
//! configuration and state folders, and the native credential stores. Each platform compiles
//! only its own branch (and its own store crates, through target-specific dependencies).

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The process's allocator where the C library's is the slow one (see `runtime/Cargo.toml`).
/// Declared here, in the runtime every binary links, so the benches' baselines and the
/// tests run on the same allocator as `etrade` itself.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Set by the vault for the commands it runs as its own account: the configuration is then
/// the vault's `vault.toml`, whose profiles are the only ones there are; nothing is asked of
/// another vault; and a page for the person's browser is handed to the person's side to open.
pub const INSIDE_VAULT_VAR: &str = "ETRADE_MCP_INSIDE_VAULT";

/// Whether this process is a command the vault runs (see [`INSIDE_VAULT_VAR`]).
pub fn inside_vault() -> bool {
    std::env::var_os(INSIDE_VAULT_VAR).is_some_and(|v| !v.is_empty())
}

/// The vault's service: the systemd unit, the launchd label's last word and the Windows
/// service's name.
pub const VAULT_SERVICE_NAME: &str = "etrade-mcp-vault";

/// How a command the vault runs asks the person's side to open a page in the person's
/// browser: this mark and the address, as one line on its standard error. The vault's account
/// has no desktop to open it on; the person's side opens it and shows it to no one else.
pub const OPEN_PAGE_MARK: &str = "\u{1}etrade-open ";

/// The operating-system family, as far as this program cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    MacOs,
    Windows,
    /// Any other Unix (the BSDs): XDG folders, file-based stores only.
    OtherUnix,
}

/// The OS this binary was built for.
pub const CURRENT: Os = if cfg!(target_os = "linux") {
    Os::Linux
} else if cfg!(target_os = "macos") {
    Os::MacOs
} else if cfg!(windows) {
    Os::Windows
} else {
    Os::OtherUnix
};

// ---------------------------------------------------------------------------------------
// Default folders
// ---------------------------------------------------------------------------------------

/// Where configuration and state live when no override is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultDirs {
    pub config: PathBuf,
    pub data: PathBuf,
}

/// Which folder could not be located.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingDir {
    Config,
    Data,
}

/// The default folders for `os`, from environment variables read through `lookup` (so
/// every platform's rule is testable on any platform).
///
/// - Linux, macOS and other Unix: XDG (`$XDG_CONFIG_HOME` or `~/.config`, `$XDG_DATA_HOME`
///   or `~/.local/share`). On macOS this follows the command-line tools people already
///   keep there (gh, gcloud, kubectl, git, the AWS CLI's dot folder): a path without spaces
///   that is easy to type into an MCP host's configuration and to edit from a terminal.
/// - Windows: `%APPDATA%\etrade-mcp` for `config.toml` (roams with the user) and
///   `%LOCALAPPDATA%\etrade-mcp` for state (databases and locks stay on the machine), as gh
///   does; both lie inside the per-user profile, which only that user can open.
pub fn default_dirs(
    os: Os,
    app: &str,
    lookup: impl Fn(&str) -> Option<OsString>,
) -> Result<DefaultDirs, MissingDir> {
    // Relative values would scatter state relative to the working directory; the XDG spec
    // says to ignore them, and the same reasoning holds for the Windows variables.
    let absolute = |name: &str| {
        lookup(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
            .filter(|p| is_absolute_for(os, p))
    };
    match os {
        Os::Windows => {
            let config = absolute("APPDATA").ok_or(MissingDir::Config)?;
            let data = absolute("LOCALAPPDATA").unwrap_or_else(|| config.clone());
            Ok(DefaultDirs {
                config: config.join(app),
                data: data.join(app),
            })
        }
        Os::Linux | Os::MacOs | Os::OtherUnix => {
            let home = absolute("HOME");
            let config = absolute("XDG_CONFIG_HOME")
                .or_else(|| home.as_ref().map(|h| h.join(".config")))
                .ok_or(MissingDir::Config)?;
            let data = absolute("XDG_DATA_HOME")
                .or_else(|| home.as_ref().map(|h| h.join(".local").join("share")))
                .ok_or(MissingDir::Data)?;
            Ok(DefaultDirs {
                config: config.join(app),
                data: data.join(app),
            })
        }
    }
}

/// `Path::is_absolute` answers for the running OS; resolving another OS's rule (in tests)
/// needs that OS's notion: a drive letter or a UNC prefix on Windows.
fn is_absolute_for(os: Os, path: &Path) -> bool {
    if os == CURRENT {
        return path.is_absolute();
    }
    let text = path.to_string_lossy();
    match os {
        Os::Windows => {
            let b = text.as_bytes();
            text.starts_with(r"\\")
                || (b.len() >= 3
                    && b[0].is_ascii_alphabetic()
                    && b[1] == b':'
                    && (b[2] == b'\\' || b[2] == b'/'))
        }
        _ => text.starts_with('/'),
    }
}

// ---------------------------------------------------------------------------------------
// Owner-only files and folders
// ---------------------------------------------------------------------------------------

/// Creates `dir` (and its parents) and restricts it to the current user.
///
/// Unix: mode 0700, enforced on an existing folder too, since it may predate this program
/// or have been made under a loose umask. Windows: the folders used live inside the
/// per-user profile, whose inherited ACL already admits only that user and the system.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        match std::fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(err) => return Err(err),
        }
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

/// Makes `options` create files readable and writable by their owner only (Unix 0600;
/// elsewhere the folder's ACL decides).
pub fn owner_only(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Creates an empty owner-only file, or leaves an existing one as it is.
pub fn create_private_file(path: &Path) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(false);
    owner_only(&mut options).open(path).map(drop)
}

/// The Unix permission bits of `path` (`None` where the OS has none, or it is unreadable).
pub fn permission_bits(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .ok()
            .map(|m| m.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Replaces `path` with `bytes` so that a reader (or a crash at any instant) sees the old
/// contents or the new, never a mix: the bytes go to an owner-only temporary file in the
/// same folder, are flushed to disk, and the temporary file is renamed over `path` (an
/// atomic replace on every supported OS). On Unix the folder is flushed too, so the
/// rename itself survives a power cut.
pub fn replace_file_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let mut temp_name = OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".{}.tmp", std::process::id()));
    let temp = dir.join(temp_name);
    let written = (|| {
        let mut options = OpenOptions::new();
        options.write(true).create(true).truncate(true);
        let mut file = owner_only(&mut options).open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written?;
    sync_dir(dir);
    Ok(())
}

/// Flushes a folder's entries (a rename) to disk where the OS allows opening a folder.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = std::fs::File::open(dir) {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

// ---------------------------------------------------------------------------------------
// The user
// ---------------------------------------------------------------------------------------

/// The name of the user running this process, as the environment reports it (`USER` on
/// Unix, `USERNAME` on Windows; either is tried on both), read through `lookup`. Not an
/// authentication: it only records who did something, such as `etrade halt`.
pub fn user_name(lookup: impl Fn(&str) -> Option<OsString>) -> Option<String> {
    let order = match CURRENT {
        Os::Windows => ["USERNAME", "USER"],
        _ => ["USER", "USERNAME"],
    };
    order.into_iter().find_map(|name| {
        lookup(name)
            .map(|v| v.to_string_lossy().trim().to_string())
            .filter(|v| !v.is_empty())
    })
}

// ---------------------------------------------------------------------------------------
// The person's browser
// ---------------------------------------------------------------------------------------

/// The file a shell would run for `program` (its `.exe` on Windows), searching `PATH`.
pub fn on_path(program: &str) -> Option<PathBuf> {
    let file = match CURRENT {
        Os::Windows => format!("{program}.exe"),
        _ => program.to_string(),
    };
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(&file))
        .find(|p| p.is_file())
}

/// How a page is opened in the person's browser: `$BROWSER` when set (a program, with
/// `%s` standing for the URL or the URL appended, as gh, git and Python's webbrowser read
/// it), else the desktop's own opener.
pub fn browser_command(url: &str, browser: Option<OsString>) -> Option<std::process::Command> {
    if let Some(spec) = browser.map(|b| b.to_string_lossy().trim().to_string())
        && !spec.is_empty()
    {
        let mut words = spec.split_whitespace();
        let mut cmd = std::process::Command::new(words.next()?);
        let mut placed = false;
        for word in words {
            if word.contains("%s") {
                cmd.arg(word.replace("%s", url));
                placed = true;
            } else {
                cmd.arg(word);
            }
        }
        if !placed {
            cmd.arg(url);
        }
        return Some(cmd);
    }
    let mut cmd = match CURRENT {
        Os::MacOs => std::process::Command::new("open"),
        // The URL handler behind ShellExecute: unlike `cmd /c start`, no shell parses the URL.
        Os::Windows => {
            let mut c = std::process::Command::new("rundll32");
            c.arg("url.dll,FileProtocolHandler");
            c
        }
        Os::Linux | Os::OtherUnix => std::process::Command::new("xdg-open"),
    };
    cmd.arg(url);
    Some(cmd)
}

/// Open `url` in the person's browser without waiting for it. The URL is passed as one
/// argument, never through a shell; the opener's output is discarded (it must not reach
/// the MCP stdout). A thread reaps the opener so it leaves no zombie behind.
pub fn open_in_browser(url: &str) -> io::Result<()> {
    if inside_vault() {
        let mut err = io::stderr().lock();
        return writeln!(err, "{OPEN_PAGE_MARK}{url}");
    }
    let mut cmd = browser_command(url, std::env::var_os("BROWSER"))
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "BROWSER names no program"))?;
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    std::thread::Builder::new()
        .name("browser-opener".into())
        .spawn(move || child.wait())?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Termination signals
// ---------------------------------------------------------------------------------------

/// The requests to stop that a server honours: SIGINT and SIGTERM on Unix; Ctrl-C,
/// Ctrl-Break and the console closing on Windows.
///
/// Registered when made, because registration is what makes a signal catchable: one that
/// arrives between registration and [`TerminationSignals::recv`] is not lost.
pub struct TerminationSignals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
    #[cfg(windows)]
    ctrl_c: tokio::signal::windows::CtrlC,
    #[cfg(windows)]
    ctrl_break: tokio::signal::windows::CtrlBreak,
    #[cfg(windows)]
    close: tokio::signal::windows::CtrlClose,
}

impl TerminationSignals {
    /// Must be called inside a Tokio runtime.
    pub fn register() -> io::Result<TerminationSignals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(TerminationSignals {
                term: signal(SignalKind::terminate())?,
                int: signal(SignalKind::interrupt())?,
            })
        }
        #[cfg(windows)]
        {
            use tokio::signal::windows;
            Ok(TerminationSignals {
                ctrl_c: windows::ctrl_c()?,
                ctrl_break: windows::ctrl_break()?,
                close: windows::ctrl_close()?,
            })
        }
    }

    /// Resolves at the first request to stop.
    pub async fn recv(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
        }
        #[cfg(windows)]
        tokio::select! {
            _ = self.ctrl_c.recv() => {}
            _ = self.ctrl_break.recv() => {}
            _ = self.close.recv() => {}
        }
    }
}

// ---------------------------------------------------------------------------------------
// Native credential stores
// ---------------------------------------------------------------------------------------

#[cfg(windows)]
pub mod windows_service;

/// The OS-provided credential stores, each compiled only where it exists. Every
/// constructor exists on every platform and answers `NotSupportedByStore` where the store
/// does not, so callers need no `cfg` of their own.
pub mod identity;
pub mod local_socket;
pub mod owned_files;

pub mod native_stores {
    use keyring_core::{CredentialStore, Error};
    use std::sync::Arc;

    type Made = Result<Arc<CredentialStore>, Error>;

    #[allow(dead_code)]
    fn absent(what: &str) -> Made {
        Err(Error::NotSupportedByStore(format!(
            "{what} is not available on this operating system"
        )))
    }

    /// The macOS login Keychain.
    pub fn keychain() -> Made {
        #[cfg(target_os = "macos")]
        {
            let store: Arc<CredentialStore> = apple_native_keyring_store::keychain::Store::new()?;
            Ok(store)
        }
        #[cfg(not(target_os = "macos"))]
        absent("the macOS Keychain")
    }

    /// The Windows Credential Manager (generic credentials of the signed-in user).
    pub fn windows_credential_manager() -> Made {
        #[cfg(windows)]
        {
            let store: Arc<CredentialStore> = windows_native_keyring_store::Store::new()?;
            Ok(store)
        }
        #[cfg(not(windows))]
        absent("the Windows Credential Manager")
    }

    /// The freedesktop Secret Service on the D-Bus session bus (GNOME Keyring, KWallet,
    /// KeePassXC).
    pub fn secret_service() -> Made {
        #[cfg(target_os = "linux")]
        {
            let store: Arc<CredentialStore> = zbus_secret_service_keyring_store::Store::new()?;
            Ok(store)
        }
        #[cfg(not(target_os = "linux"))]
        absent("the Secret Service")
    }

    /// The Linux kernel keyring (keyutils), linked into the user's persistent keyring.
    pub fn kernel_keyring() -> Made {
        #[cfg(target_os = "linux")]
        {
            // A process started outside a login session (CI, containers, services) may have
            // no usable session keyring; the store would then fail with "access denied".
            // Joining or creating one is harmless, and entries stay shared across processes
            // through the persistent keyring the store links into it.
            let _ = linux_keyutils::KeyRing::from_special_id(
                linux_keyutils::KeyRingIdentifier::Session,
                true,
            );
            let store: Arc<CredentialStore> = linux_keyutils_keyring_store::Store::new()?;
            Ok(store)
        }
        #[cfg(not(target_os = "linux"))]
        absent("the Linux kernel keyring")
    }

    /// Whether a D-Bus session bus is advertised to this process: the address variable, or
    /// the standard socket under `$XDG_RUNTIME_DIR`. Says nothing about what answers there.
    pub fn session_bus_advertised() -> bool {
        if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty()) {
            return true;
        }
        std::env::var_os("XDG_RUNTIME_DIR")
            .filter(|v| !v.is_empty())
            .is_some_and(|dir| std::path::Path::new(&dir).join("bus").exists())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn dirs(os: Os, vars: &[(&str, &str)]) -> Result<DefaultDirs, MissingDir> {
        let map: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        default_dirs(os, "etrade-mcp", |name| map.get(name).cloned())
    }

    fn argv(cmd: &std::process::Command) -> Vec<String> {
        std::iter::once(cmd.get_program())
            .chain(cmd.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn browser_reads_like_gh_and_webbrowser() {
        let url = "http://127.0.0.1:1/approve/ab";
        let c = browser_command(url, Some("firefox".into())).expect("command");
        assert_eq!(argv(&c), ["firefox", url]);
        let c = browser_command(url, Some("chromium --new-window %s --x".into())).expect("cmd");
        assert_eq!(argv(&c), ["chromium", "--new-window", url, "--x"]);
        let c = browser_command(url, Some("  ".into())).expect("the desktop's opener");
        assert_eq!(argv(&c).last().map(String::as_str), Some(url));
        assert_eq!(argv(&c).len(), if CURRENT == Os::Windows { 3 } else { 2 });
    }

    #[test]
    fn windows_uses_roaming_config_and_local_state() {
        let d = dirs(
            Os::Windows,
            &[
                ("APPDATA", r"C:\Users\u\AppData\Roaming"),
                ("LOCALAPPDATA", r"C:\Users\u\AppData\Local"),
                ("HOME", "/home/u"),
            ],
        )
        .expect("resolves");
        assert!(
            d.config
                .to_string_lossy()
                .starts_with(r"C:\Users\u\AppData\Roaming")
        );
        assert!(d.config.to_string_lossy().ends_with("etrade-mcp"));
        assert!(
            d.data
                .to_string_lossy()
                .starts_with(r"C:\Users\u\AppData\Local")
        );
        // Without LOCALAPPDATA the state goes beside the configuration.
        let d = dirs(Os::Windows, &[("APPDATA", r"C:\Users\u\AppData\Roaming")]).expect("ok");
        assert_eq!(d.config, d.data);
        assert_eq!(
            dirs(Os::Windows, &[("APPDATA", "relative")]),
            Err(MissingDir::Config)
        );
        assert_eq!(dirs(Os::Windows, &[]), Err(MissingDir::Config));
    }

    #[test]
    fn unix_family_uses_xdg() {
        for os in [Os::Linux, Os::MacOs, Os::OtherUnix] {
            let d = dirs(os, &[("HOME", "/Users/u")]).expect("resolves");
            assert_eq!(d.config, PathBuf::from("/Users/u/.config/etrade-mcp"));
            assert_eq!(d.data, PathBuf::from("/Users/u/.local/share/etrade-mcp"));
            let d = dirs(os, &[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x/c")]).expect("ok");
            assert_eq!(d.config, PathBuf::from("/x/c/etrade-mcp"));
            assert_eq!(dirs(os, &[("APPDATA", r"C:\x")]), Err(MissingDir::Config));
        }
    }

    #[test]
    fn private_dir_and_file_are_owner_only() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("a").join("b");
        create_private_dir(&dir).expect("created");
        create_private_dir(&dir).expect("idempotent");
        let file = dir.join("f");
        create_private_file(&file).expect("file");
        if cfg!(unix) {
            assert_eq!(permission_bits(&dir), Some(0o700));
            assert_eq!(permission_bits(&file), Some(0o600));
        }
    }

    // Permission bits exist on Unix only.
    #[cfg(unix)]
    #[test]
    fn private_dir_tightens_an_existing_folder() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("data");
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        create_private_dir(&dir).expect("ok");
        assert_eq!(permission_bits(&dir), Some(0o700));
    }

    #[test]
    fn atomic_replace_writes_owner_only_and_leaves_no_temporary() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("credentials.json");
        replace_file_atomically(&path, b"first").expect("write");
        replace_file_atomically(&path, b"second").expect("replace");
        assert_eq!(std::fs::read(&path).expect("read"), b"second");
        if cfg!(unix) {
            assert_eq!(permission_bits(&path), Some(0o600));
        }
        let names: Vec<_> = std::fs::read_dir(tmp.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![OsString::from("credentials.json")]);
    }

    #[test]
    fn user_name_from_the_environment() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        assert_eq!(user_name(vars(&[("USER", "ann")])), Some("ann".into()));
        assert_eq!(user_name(vars(&[("USERNAME", "bo")])), Some("bo".into()));
        assert_eq!(user_name(vars(&[("USER", "  "), ("USERNAME", "")])), None);
        assert_eq!(user_name(vars(&[])), None);
    }

    #[test]
    fn absent_stores_say_so() {
        let missing = [
            (Os::MacOs, native_stores::keychain()),
            (Os::Windows, native_stores::windows_credential_manager()),
        ];
        for (os, made) in missing {
            if os != CURRENT {
                assert!(matches!(
                    made,
                    Err(keyring_core::Error::NotSupportedByStore(_))
                ));
            }
        }
    }
}

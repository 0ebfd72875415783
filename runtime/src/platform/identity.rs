//! Who this process runs as and who owns a path: what `vault install` checks before it
//! acts, and how `vault uninstall --purge` finds the vault's account.

use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

/// The effective uid; None on Windows, which has no uids.
pub fn effective_uid() -> Option<u32> {
    #[cfg(unix)]
    {
        Some(rustix::process::geteuid().as_raw())
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The uid owning `path` (the link itself when it is a symlink); `Ok(None)` on Windows, or
/// when the path does not exist.
pub fn owner_uid(path: &Path) -> io::Result<Option<u32>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match std::fs::symlink_metadata(path) {
            Ok(meta) => Ok(Some(meta.uid())),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(None)
    }
}

/// Whether this process may install a system service: uid 0 on Unix; on Windows an
/// elevated token (a member of Administrators that was not started elevated has a filtered
/// token and could not write the service or the ACL).
pub fn is_administrator() -> bool {
    #[cfg(unix)]
    {
        effective_uid() == Some(0)
    }
    #[cfg(windows)]
    {
        windows_token_is_elevated()
    }
    #[cfg(not(any(unix, windows)))]
    {
        false
    }
}

#[cfg(windows)]
fn windows_token_is_elevated() -> bool {
    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
    use windows_sys::Win32::Security::{
        GetTokenInformation, TOKEN_ELEVATION, TOKEN_QUERY, TokenElevation,
    };
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

    let mut token: HANDLE = std::ptr::null_mut();
    // SAFETY: GetCurrentProcess returns a pseudo-handle that needs no closing; `token` is a
    // valid out-pointer.
    if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
        return false;
    }
    let mut elevation = TOKEN_ELEVATION { TokenIsElevated: 0 };
    let mut returned = 0u32;
    let size = std::mem::size_of::<TOKEN_ELEVATION>() as u32;
    // SAFETY: `token` was opened above with TOKEN_QUERY; the buffer is a TOKEN_ELEVATION of
    // `size` bytes, as TokenElevation requires.
    let ok = unsafe {
        GetTokenInformation(
            token,
            TokenElevation,
            (&mut elevation as *mut TOKEN_ELEVATION).cast(),
            size,
            &mut returned,
        )
    };
    // SAFETY: `token` is a handle this function opened and has not closed.
    unsafe { CloseHandle(token) };
    ok != 0 && elevation.TokenIsElevated != 0
}

/// The uid and primary gid of the account `name`, through `id` (present on every Unix and
/// answering from whatever user database the machine uses); `Ok(None)` when there is no
/// such account.
pub fn account_ids(name: &str) -> io::Result<Option<(u32, u32)>> {
    let (Some(uid), Some(gid)) = (id_query(&["-u", name])?, id_query(&["-g", name])?) else {
        return Ok(None);
    };
    match (uid.parse(), gid.parse()) {
        (Ok(uid), Ok(gid)) => Ok(Some((uid, gid))),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("id printed a uid or gid that is not a number for {name}: {uid}, {gid}"),
        )),
    }
}

/// The name of the account with `uid`; `Ok(None)` when there is none.
pub fn account_name(uid: u32) -> io::Result<Option<String>> {
    id_query(&["-nu", &uid.to_string()])
}

fn id_query(args: &[&str]) -> io::Result<Option<String>> {
    let out = Command::new("id")
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()?;
    if !out.status.success() {
        return Ok(None);
    }
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    Ok(Some(text).filter(|t| !t.is_empty()))
}

/// The home folder the user database gives the account `name` (`getent passwd` on Linux
/// and other Unix, `dscl` on macOS); `Ok(None)` when it has none or the account is unknown.
pub fn account_home(name: &str) -> io::Result<Option<std::path::PathBuf>> {
    let (program, args): (&str, Vec<String>) =
        if crate::platform::CURRENT == crate::platform::Os::MacOs {
            (
                "dscl",
                vec![
                    ".".into(),
                    "-read".into(),
                    format!("/Users/{name}"),
                    "NFSHomeDirectory".into(),
                ],
            )
        } else {
            ("getent", vec!["passwd".into(), name.into()])
        };
    let out = Command::new(program)
        .args(&args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()?;
    if !out.status.success() {
        return Ok(None);
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let home = if program == "dscl" {
        text.trim().strip_prefix("NFSHomeDirectory:").map(str::trim)
    } else {
        // name:password:uid:gid:comment:home:shell
        text.trim().split(':').nth(5)
    };
    Ok(home.filter(|h| !h.is_empty()).map(std::path::PathBuf::from))
}

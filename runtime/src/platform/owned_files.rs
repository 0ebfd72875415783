//! Files and folders made for another account (`vault install`): created private, opened
//! without following a symlink, refused when hard-linked, then given their owner and mode
//! through the open handle, so a swap between the check and the change lands nowhere.

use std::fs::{DirBuilder, File, Metadata, OpenOptions};
use std::io;

/// A folder builder that creates it readable by its owner only (until the final mode is set).
pub fn private_dir_builder() -> DirBuilder {
    #[allow(unused_mut)]
    let mut builder = DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
}

/// Makes `options` create owner-only files and refuse a symlink as the last component.
pub fn no_follow_private(options: &mut OpenOptions) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    #[cfg(not(unix))]
    let _ = options;
}

/// How many names the file has (1 where the OS does not say).
pub fn hard_links(meta: &Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
    }
}

/// The permission bits (`None` where there are none: Windows uses ACLs).
pub fn mode(meta: &Metadata) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(meta.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// Gives the open file or folder `ids` (uid, gid) and `mode`. Nothing on Windows, where the
/// folder's ACL restricts access.
pub fn set_owner_and_mode(
    handle: &File,
    ids: Option<(u32, u32)>,
    mode: Option<u32>,
) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Some((uid, gid)) = ids {
            std::os::unix::fs::fchown(handle, Some(uid), Some(gid))?;
        }
        if let Some(mode) = mode {
            handle.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (handle, ids, mode);
    Ok(())
}

/// Sets `path`'s permission bits (nothing where there are none).
pub fn set_mode(path: &std::path::Path, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

/// A symbolic link at `link` to `target` (tests of the refusals above).
pub fn symlink(target: &std::path::Path, link: &std::path::Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(windows)]
    {
        std::os::windows::fs::symlink_file(target, link)
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (target, link);
        Err(io::Error::other("no symlinks here"))
    }
}

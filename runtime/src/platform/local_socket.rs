//! The vault's local socket: a Unix socket on Linux and macOS, a named pipe on Windows. Any
//! local user may connect; the vault learns who did from the OS (the peer's uid and pid), to
//! write in its journal. It identifies the caller and authorises nothing: the PIN is the
//! person's proof.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Who is at the other end of a connection, as the OS says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PeerIdentity {
    pub uid: Option<u32>,
    pub pid: Option<u32>,
}

impl fmt::Display for PeerIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.uid {
            Some(uid) => write!(f, "uid {uid}")?,
            None => f.write_str("uid unknown")?,
        }
        match self.pid {
            Some(pid) => write!(f, " pid {pid}"),
            None => f.write_str(" pid unknown"),
        }
    }
}

#[cfg(unix)]
pub use unix::{LocalListener, LocalStream, connect};
#[cfg(windows)]
pub use windows::{LocalListener, LocalStream, connect};

#[cfg(unix)]
mod unix {
    use super::*;
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};

    pub type LocalStream = tokio::net::UnixStream;

    pub struct LocalListener {
        listener: tokio::net::UnixListener,
        path: PathBuf,
    }

    impl LocalListener {
        /// Listens at `path`, replacing a socket left by a vault that is gone (never
        /// another kind of file), readable and writable by every local user.
        pub fn bind(path: &Path) -> io::Result<LocalListener> {
            if let Ok(meta) = std::fs::symlink_metadata(path) {
                if !meta.file_type().is_socket() {
                    return Err(io::Error::new(
                        io::ErrorKind::AlreadyExists,
                        format!("{} exists and is not a socket", path.display()),
                    ));
                }
                if std::os::unix::net::UnixStream::connect(path).is_ok() {
                    return Err(io::Error::new(
                        io::ErrorKind::AddrInUse,
                        format!("a vault already listens at {}", path.display()),
                    ));
                }
                std::fs::remove_file(path)?;
            }
            let listener = tokio::net::UnixListener::bind(path)?;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))?;
            Ok(LocalListener {
                listener,
                path: path.to_path_buf(),
            })
        }

        pub async fn accept(&mut self) -> io::Result<(LocalStream, PeerIdentity)> {
            let (stream, _) = self.listener.accept().await?;
            let peer = match stream.peer_cred() {
                Ok(cred) => PeerIdentity {
                    uid: Some(cred.uid()),
                    pid: cred.pid().and_then(|p| u32::try_from(p).ok()),
                },
                Err(_) => PeerIdentity::default(),
            };
            Ok((stream, peer))
        }
    }

    impl Drop for LocalListener {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.path);
        }
    }

    pub async fn connect(path: &Path) -> io::Result<LocalStream> {
        tokio::net::UnixStream::connect(path).await
    }
}

#[cfg(windows)]
mod windows {
    use super::*;
    use std::ffi::OsStr;
    use std::os::windows::ffi::OsStrExt;
    use std::os::windows::io::AsRawHandle;
    use tokio::net::windows::named_pipe::{
        ClientOptions, NamedPipeClient, NamedPipeServer, ServerOptions,
    };
    use windows_sys::Win32::Foundation::{HANDLE, LocalFree};
    use windows_sys::Win32::Security::Authorization::{
        ConvertStringSecurityDescriptorToSecurityDescriptorW, SDDL_REVISION_1,
    };
    use windows_sys::Win32::Security::SECURITY_ATTRIBUTES;
    use windows_sys::Win32::System::Pipes::GetNamedPipeClientProcessId;

    /// Interactive users may read and write (connect); SYSTEM, administrators and the
    /// pipe's owner (the service account) have full control.
    const PIPE_SDDL: &str = "D:P(A;;GRGW;;;IU)(A;;GA;;;SY)(A;;GA;;;BA)(A;;GA;;;OW)";

    /// One end of a pipe: the vault holds servers, the person's side a client.
    pub enum LocalStream {
        Server(NamedPipeServer),
        Client(NamedPipeClient),
    }

    pub struct LocalListener {
        name: PathBuf,
        next: NamedPipeServer,
    }

    fn create(name: &Path, first: bool) -> io::Result<NamedPipeServer> {
        let wide: Vec<u16> = OsStr::new(PIPE_SDDL)
            .encode_wide()
            .chain(std::iter::once(0))
            .collect();
        let mut descriptor = std::ptr::null_mut();
        // SAFETY: `wide` is a NUL-terminated UTF-16 string; the descriptor is freed below.
        let made = unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                wide.as_ptr(),
                SDDL_REVISION_1,
                &mut descriptor,
                std::ptr::null_mut(),
            )
        };
        if made == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut attributes = SECURITY_ATTRIBUTES {
            nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
            lpSecurityDescriptor: descriptor,
            bInheritHandle: 0,
        };
        // SAFETY: `attributes` outlives the call, which copies the descriptor.
        let server = unsafe {
            ServerOptions::new()
                .first_pipe_instance(first)
                .reject_remote_clients(true)
                .create_with_security_attributes_raw(
                    name.as_os_str(),
                    (&mut attributes as *mut SECURITY_ATTRIBUTES).cast(),
                )
        };
        // SAFETY: allocated by ConvertStringSecurityDescriptorToSecurityDescriptorW.
        unsafe { LocalFree(descriptor) };
        server
    }

    impl LocalListener {
        pub fn bind(name: &Path) -> io::Result<LocalListener> {
            Ok(LocalListener {
                name: name.to_path_buf(),
                next: create(name, true)?,
            })
        }

        pub async fn accept(&mut self) -> io::Result<(LocalStream, PeerIdentity)> {
            self.next.connect().await?;
            let connected = std::mem::replace(&mut self.next, create(&self.name, false)?);
            let mut pid = 0u32;
            // SAFETY: a connected pipe handle owned by `connected`.
            let known = unsafe {
                GetNamedPipeClientProcessId(connected.as_raw_handle() as HANDLE, &mut pid)
            };
            let peer = PeerIdentity {
                uid: None,
                pid: (known != 0).then_some(pid),
            };
            Ok((LocalStream::Server(connected), peer))
        }
    }

    pub async fn connect(name: &Path) -> io::Result<LocalStream> {
        Ok(LocalStream::Client(
            ClientOptions::new().open(name.as_os_str())?,
        ))
    }

    macro_rules! either_end {
        ($self:ident, $p:ident => $e:expr) => {
            match $self.get_mut() {
                LocalStream::Server($p) => {
                    let $p = std::pin::Pin::new($p);
                    $e
                }
                LocalStream::Client($p) => {
                    let $p = std::pin::Pin::new($p);
                    $e
                }
            }
        };
    }

    impl tokio::io::AsyncRead for LocalStream {
        fn poll_read(
            self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            either_end!(self, p => p.poll_read(cx, buf))
        }
    }

    impl tokio::io::AsyncWrite for LocalStream {
        fn poll_write(
            self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<io::Result<usize>> {
            either_end!(self, p => p.poll_write(cx, buf))
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            either_end!(self, p => p.poll_flush(cx))
        }
        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            either_end!(self, p => p.poll_shutdown(cx))
        }
    }
}
